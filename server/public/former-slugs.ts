import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';

/**
 * A page's address before its last change of slug forwards to the new one: links already shared
 * keep working. Looked up only when the path found no page, so a page that exists costs nothing.
 * The forward is temporary (302): the old slug stays the page's only until its next change.
 */
export function registerFormerSlugs(app: HonoApp, services: Services): void {
  app.use('/status/*', async (c, next) => {
    await next();
    if (c.res.status !== 404 || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return;
    const [, , slug, ...rest] = c.req.path.split('/');
    if (!slug) return;
    const current = await services.pages.forwardOf(slug);
    if (current === undefined) return;
    const query = c.req.url.includes('?') ? c.req.url.slice(c.req.url.indexOf('?')) : '';
    c.res = c.redirect(['', 'status', encodeURIComponent(current), ...rest].join('/') + query, 302);
  });
}
