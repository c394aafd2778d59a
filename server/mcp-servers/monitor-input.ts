import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import type { FoundMcpServer } from './discovery.ts';

/**
 * A found server as the create input of an `mcp` monitor. Discovery runs nothing: a monitor, and
 * with it a check that starts a stdio server's command, exists only once the user picks the entry.
 */

/** The fields an `mcp` monitor is created with, as its type declares them (domain/monitors/types/mcp.ts). */
export type McpMonitorInput = { name: string } & Pick<ConfigOf<'mcp'>, 'transport' | 'server' | 'headers' | 'args' | 'env' | 'cwd' | 'allowCommand'>;

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
