import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';

/**
 * What the overview and a monitor's page read: the workspace's monitors with their state, one
 * monitor's latency, latest results, regions and incidents, and what the plan allows. Query values are
 * handed to the domain as they came; it refuses the ones it cannot use, naming them.
 */
export function registerMonitorViewRoutes(app: HonoApp, options: DashboardAppOptions): void {
  const views = options.services.monitorViews;

  jsonRoute(app, 'overview', async (c) => views.overview(c.get('actor'), workspaceIdOf(c), c.req.query()));
  jsonRoute(app, 'latency', async (c) => views.latency(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId') ?? '', c.req.query()));
  jsonRoute(app, 'results', async (c) => ({ results: await views.results(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId') ?? '', c.req.query()) }));
  jsonRoute(app, 'regions', async (c) => ({ regions: await views.regions(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId') ?? '') }));
  jsonRoute(app, 'incidents', async (c) => ({
    incidents: await options.services.monitorIncidents.list(c.get('actor'), workspaceIdOf(c), c.req.param('monitorId') ?? ''),
  }));
  jsonRoute(app, 'plan', async (c) => views.plan(c.get('actor'), workspaceIdOf(c)));
}
