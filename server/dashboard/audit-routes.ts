import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';

/** The workspace's audit log, a page at a time, on the plans that have it. */
export function registerAuditRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  jsonRoute(app, 'audit', async (c) => services.auditLog.entries(c.get('actor'), workspaceIdOf(c), c.req.query()));
}
