import type { HonoApp } from '../http/hono-app.ts';
import type { BadgeWindow, PublicBadge } from '../domain/monitors/badges.ts';
import type { Services } from '../services.ts';
import { type BadgeColour, renderBadge } from './badge-svg.ts';

/** A badge may be a minute old: README hosts (GitHub's image proxy) fetch it often. */
const CACHE_CONTROL = 'public, max-age=60';
/** An SVG opened on its own runs no script and loads nothing; its inline style attributes are its own. */
const BADGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

type Kind = 'status' | 'uptime-24h' | 'uptime-7d' | 'uptime-30d' | 'latency';
const KINDS = new Set<string>(['status', 'uptime-24h', 'uptime-7d', 'uptime-30d', 'latency']);

const STATE_WORDS = { up: 'up', degraded: 'degraded', down: 'down' } as const;

const percent = (value: number) => `${value >= 99.995 ? '100' : value.toFixed(2)}%`;

/** What one badge reads; a paused monitor's every badge says only "paused". */
function badgeOf(kind: Kind, badge: PublicBadge): { label: string; value: string; colour: BadgeColour } {
  const label = kind === 'status' ? 'status' : kind === 'latency' ? 'latency' : `uptime ${kind.slice('uptime-'.length)}`;
  if (badge.paused) return { label, value: 'paused', colour: 'paused' };
  if (kind === 'status') return badge.state ? { label, value: STATE_WORDS[badge.state], colour: badge.state } : { label, value: 'pending', colour: 'unknown' };
  if (kind === 'latency') return badge.latencyMs === null ? { label, value: 'n/a', colour: 'unknown' } : { label, value: `${Math.round(badge.latencyMs)} ms`, colour: 'info' };
  const uptime = badge.uptime[kind.slice('uptime-'.length) as BadgeWindow];
  if (uptime === null) return { label, value: 'n/a', colour: 'unknown' };
  return { label, value: percent(uptime), colour: uptime >= 99 ? 'up' : uptime >= 95 ? 'degraded' : 'down' };
}

/**
 * A monitor's public status badges on the API port: /badge/{badge id}/{kind}.svg, no credential,
 * behind the same Host and Origin rules as the status pages (the HTTP edge applies them to every
 * request). An unknown id, a rotated one and badges turned off all answer the same 404.
 */
export function registerBadges(app: HonoApp, services: Services): void {
  app.get('/badge/:badgeId/:file', async (c) => {
    const file = c.req.param('file');
    const kind = file.endsWith('.svg') ? file.slice(0, -'.svg'.length) : '';
    const badge = KINDS.has(kind) ? await services.badges.publicBadge(c.req.param('badgeId')) : undefined;
    if (!badge) {
      return c.body('Not found: no badge at this address (badges are off, or the address was replaced)\n', 404, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
    }
    const shown = badgeOf(kind as Kind, badge);
    const title = badge.paused ? `${badge.name}: paused` : `${badge.name}: ${shown.label} ${shown.value}`;
    return c.body(renderBadge({ ...shown, title }), 200, {
      'content-type': 'image/svg+xml; charset=utf-8',
      'content-security-policy': BADGE_CSP,
      'cache-control': CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
    });
  });
}
