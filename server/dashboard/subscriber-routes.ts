import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { workspaceIdOf } from './route-params.ts';

/** A page's subscribers with the outcome of the last page event sent to each (which the RPC message does not carry). */
export function registerSubscriberRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  app.get('/api/workspaces/:workspaceId/pages/:pageId/subscribers', async (c) =>
    c.json({ subscribers: await services.subscribers.list(c.get('actor'), workspaceIdOf(c), c.req.param('pageId')) }),
  );
}
