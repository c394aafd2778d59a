import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { workspaceIdOf } from './route-params.ts';

/**
 * What the overview and a monitor's page read: the workspace's monitors with their state, one
 * monitor's latency, latest results and regions, and what the plan allows. Query values are
 * handed to the domain as they came; it refuses the ones it cannot use, naming them.
 */
export function registerMonitorViewRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const views = options.services.monitorViews;
  const ws = '/api/workspaces/:workspaceId';

  app.get(`${ws}/overview`, async (c) => c.json(await views.overview(c.get('actor'), workspaceIdOf(c), c.req.query())));

  app.get(`${ws}/monitors/:monitorId/latency`, async (c) =>
    c.json(await views.latency(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId'), c.req.query())),
  );

  app.get(`${ws}/monitors/:monitorId/results`, async (c) =>
    c.json({ results: await views.results(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId'), c.req.query()) }),
  );

  app.get(`${ws}/monitors/:monitorId/regions`, async (c) =>
    c.json({ regions: await views.regions(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId')) }),
  );

  app.get(`${ws}/plan`, async (c) => c.json(await views.plan(c.get('actor'), workspaceIdOf(c))));
}
