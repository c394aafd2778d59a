import type { FoundMcpServer, McpTransport } from './discovery.ts';

/**
 * A found server as the create input of an `mcp` monitor. Discovery runs nothing: a monitor, and
 * with it a check that starts a stdio server's command, exists only once the user picks the entry.
 */

/** The fields an `mcp` monitor is created with, under the names of its type. */
export interface McpMonitorInput {
  name: string;
  transport: McpTransport;
  /** The URL (http) or the command (stdio). */
  server: string;
  headers: Record<string, string>;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The opt-in that lets a check run the command: true only for a stdio entry the user picked. */
  allowCommand: boolean;
}

/**
 * The create input of a server the user picked. The pick is the opt-in to run a stdio server's
 * command, so `allowCommand` is true for stdio; never call this for entries nobody picked.
 * `${...}` references stay as written (discovery.ts): the user gives their values on the monitor.
 */
export function monitorInputOf(picked: FoundMcpServer): McpMonitorInput {
  const stdio = picked.transport === 'stdio';
  return {
    name: picked.name,
    transport: picked.transport,
    server: picked.server,
    headers: stdio ? {} : { ...picked.headers },
    args: stdio ? [...picked.args] : [],
    env: stdio ? { ...picked.env } : {},
    cwd: stdio ? picked.cwd : '',
    allowCommand: stdio,
  };
}
