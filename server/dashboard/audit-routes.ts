import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { workspaceIdOf } from './route-params.ts';

/** The workspace's audit log, a page at a time, on the plans that have it. */
export function registerAuditRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  app.get('/api/workspaces/:workspaceId/audit', async (c) => c.json(await services.auditLog.entries(c.get('actor'), workspaceIdOf(c), c.req.query())));
}
