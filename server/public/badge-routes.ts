import type { HonoApp } from '../http/hono-app.ts';
import type { Services } from '../services.ts';
import { BADGE_KINDS, type BadgeKind, badgeSvg } from './badge-svg.ts';

/** A badge may be a minute old: README hosts (GitHub's image proxy) fetch it often. */
const CACHE_CONTROL = 'public, max-age=60';
/** An SVG opened on its own runs no script and loads nothing; its inline style attributes are its own. */
const BADGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * A monitor's public status badges on the API port: /badge/{badge id}/{kind}.svg, no credential,
 * behind the same Host and Origin rules as the status pages (the HTTP edge applies them to every
 * request). An unknown id, a rotated one and badges turned off all answer the same 404.
 */
export function registerBadges(app: HonoApp, services: Services): void {
  app.get('/badge/:badgeId/:file', async (c) => {
    const file = c.req.param('file');
    const kind = file.endsWith('.svg') ? file.slice(0, -'.svg'.length) : '';
    const badge = (BADGE_KINDS as readonly string[]).includes(kind) ? await services.badges.publicBadge(c.req.param('badgeId')) : undefined;
    if (!badge) {
      return c.body('Not found: no badge at this address (badges are off, or the address was replaced)\n', 404, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
    }
    return c.body(badgeSvg(kind as BadgeKind, badge), 200, {
      'content-type': 'image/svg+xml; charset=utf-8',
      'content-security-policy': BADGE_CSP,
      'cache-control': CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
    });
  });
}
