import { isSecretName, REDACTED } from '../domain/monitors/monitor-secrets.ts';
import type { FoundMcpServer } from './discovery.ts';

/**
 * A found server as it is shown (by `statusdesk mcp-servers discover` and the dashboard): every
 * environment value of a command (a monitor seals them as secrets) and every credential-like
 * header read `[redacted]`. A `${...}` reference is no secret and stays as written.
 */

const shownMap = (map: Record<string, string>, secret: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(map).map(([name, value]) => [name, /^\$\{[^}]+\}$/.test(value) || !secret(name) ? value : REDACTED]));

export const shownServer = (server: FoundMcpServer): FoundMcpServer => ({
  ...server,
  env: shownMap(server.env, () => true),
  headers: shownMap(server.headers, isSecretName),
});
