import type { BadgeWindow, PublicBadge } from '../domain/monitors/badges.ts';

/**
 * Status badges as SVG, in the shields.io shape: a grey label and a coloured value. Drawn with a
 * fixed set of colours whose white text meets WCAG AA (4.5:1) on every one of them, and with
 * every piece of text escaped: a monitor's name comes from its owner and may hold markup.
 */

/** Background colours of a badge's value; each holds white text at 4.5:1 or more. */
export const BADGE_COLOURS = {
  label: '#4b5563',
  up: '#15803d',
  degraded: '#a16207',
  down: '#b91c1c',
  paused: '#4b5563',
  unknown: '#4b5563',
  info: '#1d4ed8',
} as const;
export type BadgeColour = keyof typeof BADGE_COLOURS;

const escapeXml = (text: string) =>
  // Characters XML 1.0 forbids are dropped: a badge is well-formed whatever the name holds.
  text
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

/** Approximate width of text in 11 px Verdana, which the badge asks for: wide enough, never clipped. */
const textWidth = (text: string) => Math.ceil([...text].length * 7 + 10);

/** A badge reading `label | value`, titled `title` for screen readers and tooltips. */
export function renderBadge(options: { label: string; value: string; colour: BadgeColour; title: string }): string {
  const label = escapeXml(options.label);
  const value = escapeXml(options.value);
  const title = escapeXml(options.title);
  const lw = textWidth(options.label);
  const vw = textWidth(options.value);
  const width = lw + vw;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${label}: ${value}">
<title>${title}</title>
<rect width="${lw}" height="20" fill="${BADGE_COLOURS.label}"/>
<rect x="${lw}" width="${vw}" height="20" fill="${BADGE_COLOURS[options.colour]}"/>
<g fill="#ffffff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="${lw / 2}" y="14">${label}</text>
<text x="${lw + vw / 2}" y="14">${value}</text>
</g>
</svg>
`;
}

/** The badges of a monitor, by the file name of their address (`<kind>.svg`). */
export const BADGE_KINDS = ['status', 'uptime-24h', 'uptime-7d', 'uptime-30d', 'latency'] as const;
export type BadgeKind = (typeof BADGE_KINDS)[number];

const STATE_WORDS = { up: 'up', degraded: 'degraded', down: 'down' } as const;

const percent = (value: number) => `${value >= 99.995 ? '100' : value.toFixed(2)}%`;

/** What one badge reads; a paused monitor's every badge says only "paused". */
function badgeOf(kind: BadgeKind, badge: PublicBadge): { label: string; value: string; colour: BadgeColour } {
  const label = kind === 'status' ? 'status' : kind === 'latency' ? 'latency' : `uptime ${kind.slice('uptime-'.length)}`;
  if (badge.paused) return { label, value: 'paused', colour: 'paused' };
  if (kind === 'status') return badge.state ? { label, value: STATE_WORDS[badge.state], colour: badge.state } : { label, value: 'pending', colour: 'unknown' };
  if (kind === 'latency')
    return badge.latencyMs === null ? { label, value: 'n/a', colour: 'unknown' } : { label, value: `${Math.round(badge.latencyMs)} ms`, colour: 'info' };
  const uptime = badge.uptime[kind.slice('uptime-'.length) as BadgeWindow];
  if (uptime === null) return { label, value: 'n/a', colour: 'unknown' };
  return { label, value: percent(uptime), colour: uptime >= 99 ? 'up' : uptime >= 95 ? 'degraded' : 'down' };
}

/** One badge of a monitor whose badges are on, as its address answers it. */
export function badgeSvg(kind: BadgeKind, badge: PublicBadge): string {
  const shown = badgeOf(kind, badge);
  const title = badge.paused ? `${badge.name}: paused` : `${badge.name}: ${shown.label} ${shown.value}`;
  return renderBadge({ ...shown, title });
}
