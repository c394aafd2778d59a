import type { HonoApp } from '../http/hono-app.ts';
import { summaryJson } from '../domain/pages/public-view.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';

/**
 * What a visitor of a status page sees now, for the dashboard's preview: the page's public
 * summary (the `summary.json` the public page serves), made from the same view by the same code,
 * so the dashboard never decides a component's state by rules of its own.
 */
export function registerPagePreviewRoute(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  jsonRoute(app, 'pagePreview', async (c) => {
    const page = await services.pages.get(c.get('actor'), workspaceIdOf(c), c.req.param('pageId') ?? '');
    c.header('cache-control', 'no-store');
    return summaryJson(await services.publicPages.view(page.slug));
  });
}
