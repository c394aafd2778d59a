import { homedir } from 'node:os';
import type { McpServerPick } from '../../contract/dashboard-api.ts';
import { AppError } from '../errors.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { discoverMcpServers } from '../mcp-servers/discovery.ts';
import { monitorInputOf } from '../mcp-servers/monitor-input.ts';
import { shownServer } from '../mcp-servers/shown.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';

/** How often a monitor made of a picked server is checked; the monitor's form changes it later. */
const IMPORT_FREQUENCY = '5m';

/**
 * The MCP servers this machine's AI editors are set up with (server/mcp-servers/), as the
 * dashboard's import screen lists them, and monitors made of the ones the owner picks. Listing
 * reads the editors' files only; nothing runs before a pick. The pick names a server, not its
 * values: the service reads them again from the files, so a command's environment and a
 * credential header go from the file to the sealed monitor without passing through the page,
 * which is shown them redacted.
 */
export function registerMcpServerRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  // The service's own machine: the dashboard is the owner's, on loopback, like the files it reads.
  const { editorFolders } = options;
  const discover = () =>
    discoverMcpServers({
      home: editorFolders?.home ?? homedir(),
      platform: process.platform,
      cwd: editorFolders?.project ?? process.cwd(),
      env: editorFolders ? {} : process.env,
      serviceUrls: [options.apiUrl],
    });

  jsonRoute(app, 'mcpServers', async () => {
    const { found, problems, read } = await discover();
    return { servers: found.map(shownServer), problems, read };
  });

  jsonRoute(
    app,
    'importMcpServers',
    async (c) => {
      const workspaceId = workspaceIdOf(c);
      const picks = picksOf(await c.req.json().catch(() => undefined));
      const { found } = await discover();
      const picked = picks.map((pick, i) => {
        const server = found.find((candidate) => candidate.name === pick.name && candidate.file === pick.file);
        if (!server)
          throw new AppError('VALIDATION', `picks[${i}]: no MCP server "${pick.name}" is in ${pick.file} any more; list the servers again`, [
            { field: `picks[${i}]`, rule: 'must name a server the editors are set up with' },
          ]);
        if (server.itself)
          throw new AppError('VALIDATION', `picks[${i}]: "${pick.name}" is Statusdesk itself`, [
            { field: `picks[${i}]`, rule: 'must not be Statusdesk itself' },
          ]);
        return server;
      });
      const monitors = [];
      // Only the picked servers become monitors: a stdio server's command runs from their first check on.
      for (const server of picked) {
        const monitor = await services.monitors.create(c.get('actor'), workspaceId, 'mcp', { ...monitorInputOf(server), periodicity: IMPORT_FREQUENCY });
        monitors.push({ id: monitor.id, name: monitor.name });
      }
      return { monitors };
    },
    { status: 201 },
  );
}

/** The body's picks, or a refusal naming what is wrong with it. */
function picksOf(body: unknown): McpServerPick[] {
  const picks = (body as { picks?: unknown } | null)?.picks;
  if (!Array.isArray(picks) || picks.length === 0)
    throw new AppError('VALIDATION', 'picks: must list at least one server, each as { name, file }', [
      { field: 'picks', rule: 'must list at least one server' },
    ]);
  return picks.map((pick: unknown, i) => {
    const { name, file } = (pick ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || typeof file !== 'string')
      throw new AppError('VALIDATION', `picks[${i}]: must be { name, file }, both text`, [{ field: `picks[${i}]`, rule: 'must be { name, file }, both text' }]);
    return { name, file };
  });
}
