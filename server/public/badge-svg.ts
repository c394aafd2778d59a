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
