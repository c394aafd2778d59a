import { createHash } from 'node:crypto';
import type { ComponentState, PublicComponent, PublicMaintenance, PublicPage, PublicReport, PublicUpdate, UptimeDay } from '../domain/pages/public-view.ts';

/**
 * The public face of a status page, as pure functions of its view: an HTML document without
 * JavaScript or external assets, an Atom feed and a JSON summary, plus the small pages of the
 * email subscription. Every string from the view is escaped on the way in; the markup around it
 * is written here and nowhere else.
 */

export interface RenderOptions {
  /** 'live' is served by the running service; 'static' is a copy exported to a folder. */
  mode: 'live' | 'static';
  /** A line above the overall status, e.g. after a subscription form was sent. */
  notice?: { kind: 'info' | 'error'; text: string };
}

export interface NoticeOptions {
  /** The status page's title: shown above the heading and in the document title. */
  title: string;
  heading: string;
  message: string;
  /** The status page's address, for a way back. */
  pageUrl?: string;
  /** A POST form with one button, e.g. to confirm an unsubscription. */
  form?: { action: string; button: string; hidden?: Record<string, string> };
}

/** The public JSON of a page: no day-by-day history, only what a script polls for. */
export interface StatusSummary {
  page: { id: string; slug: string; title: string; url: string; updatedAt: string };
  status: { state: ComponentState; description: string };
  components: { id: string; name: string; group: string | null; state: ComponentState; uptime: number | null }[];
  activeReports: {
    id: string;
    title: string;
    status: PublicUpdate['status'];
    components: string[];
    updatedAt: string;
    latestUpdate: PublicUpdate | null;
  }[];
  maintenances: { active: SummaryMaintenance[]; upcoming: SummaryMaintenance[] };
}

export interface SummaryMaintenance {
  id: string;
  title: string;
  message: string;
  from: string;
  to: string;
  components: string[];
}

// ---------------------------------------------------------------------------------------------
// Markup: a tagged template that escapes every interpolated string.

/** Text that is already markup: interpolated unchanged. Only this module makes it. */
class Markup {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Fragment = Markup | string | number | null | undefined | false | readonly Fragment[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/g;
/** Control characters XML 1.0 forbids (and HTML calls parse errors): dropped. */
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/g;
const NEEDS_WORK = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/;

/** Escapes text for HTML and XML content and quoted attribute values. */
function escape(value: string): string {
  if (!NEEDS_WORK.test(value) && value.isWellFormed()) return value;
  // Lone surrogates cannot be encoded as UTF-8: they become U+FFFD.
  const text = value.isWellFormed() ? value : value.toWellFormed();
  return text.replace(FORBIDDEN, '').replace(SPECIAL, (c) => ESCAPES[c]!);
}

function fragment(value: Fragment): string {
  if (value instanceof Markup) return value.text;
  if (typeof value === 'string') return escape(value);
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined || value === false) return '';
  let text = '';
  for (const item of value) text += fragment(item);
  return text;
}

/**
 * The literal parts of each template, with the line breaks and indentation between tags taken
 * out once per call site: templates stay readable and the output stays small.
 */
const compacted = new WeakMap<TemplateStringsArray, readonly string[]>();

function compact(strings: TemplateStringsArray): readonly string[] {
  let parts = compacted.get(strings);
  if (!parts) {
    parts = strings.map((s) => s.replace(/>\s*\n\s*/g, '>').replace(/\s*\n\s*</g, '<').replace(/\s*\n\s*/g, ' '));
    compacted.set(strings, parts);
  }
  return parts;
}

function html(strings: TemplateStringsArray, ...values: Fragment[]): Markup {
  const parts = compact(strings);
  let text = parts[0]!;
  for (let i = 0; i < values.length; i++) text += fragment(values[i]!) + parts[i + 1]!;
  return new Markup(text);
}

function raw(text: string): Markup {
  return new Markup(text);
}

// ---------------------------------------------------------------------------------------------
// Words and formats.

const STATES: Record<ComponentState, { label: string; icon: string }> = {
  operational: { label: 'Operational', icon: '✓' },
  degraded: { label: 'Degraded performance', icon: '!' },
  down: { label: 'Outage', icon: '✕' },
  // U+FE0E asks for the text form of the gear, not an emoji.
  maintenance: { label: 'Under maintenance', icon: '⚙\uFE0E' },
  unknown: { label: 'Status unknown', icon: '?' },
};

const REPORT_STATUS: Record<PublicUpdate['status'], string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

const DAYS = 90;
const DAY_MS = 86_400_000;

/** The sentence of the overall banner. 'down' is a major outage when every component is down. */
function overallText(page: PublicPage): string {
  switch (page.state) {
    case 'operational':
      return 'All systems operational';
    case 'degraded':
      return 'Degraded performance';
    case 'down': {
      const all = page.components.length > 0 && page.components.every((c) => c.state === 'down');
      return all ? 'Major outage' : 'Partial outage';
    }
    case 'maintenance':
      return 'Under maintenance';
    case 'unknown':
      return 'Status unknown';
  }
}

/**
 * A share as a percentage, rounded down to two decimals so that a day with one failed check in
 * thousands never shows 100%.
 */
function percent(share: number): string {
  if (share >= 1) return '100%';
  if (!(share > 0)) return '0%';
  // The small addition absorbs binary fractions such as 0.9986 * 10000 = 9985.999…
  return `${(Math.floor(share * 10_000 + 1e-7) / 100).toFixed(2)}%`;
}

/** Six colour steps of a day's uptime, plus no data. */
function uptimeClass(uptime: number | null): string {
  if (uptime === null) return 'nd';
  if (uptime >= 1) return 'u5';
  if (uptime >= 0.999) return 'u4';
  if (uptime >= 0.99) return 'u3';
  if (uptime >= 0.95) return 'u2';
  if (uptime >= 0.9) return 'u1';
  return 'u0';
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** A day's label, as markup: only the date is text from outside, and it is escaped. */
function dayLabel(day: UptimeDay): string {
  const date = escape(day.date);
  if (day.uptime === null) return `${date}: no data`;
  let label = `${date}: ${percent(day.uptime)} uptime`;
  if (day.down > 0) label += `, ${plural(day.down, 'failed check')}`;
  if (day.degraded > 0) label += `, ${plural(day.degraded, 'degraded check')}`;
  return label;
}

/** What Date#toISOString writes: taken as it is, without parsing (a page has hundreds). */
const CANONICAL = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{3})?Z$/;

/** RFC 3339 in UTC (milliseconds only when there are some), or null for text that is not a time. */
function instant(value: string): string | null {
  if (CANONICAL.test(value)) return value.endsWith('.000Z') ? `${value.slice(0, -5)}Z` : value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A time for people: 2026-11-20 14:05 UTC. */
function time(value: string): Markup {
  const iso = instant(value);
  if (iso === null) return html`<time>${value}</time>`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** An element id (and URL fragment) for a report or maintenance: the same in the page and the feed. */
function anchor(kind: 'report' | 'maintenance', id: string): string {
  return `${kind}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function withoutSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The newest update's time, else the report's creation. */
function reportUpdatedAt(report: PublicReport): string {
  let latest = report.createdAt;
  let latestMs = Date.parse(latest);
  for (const update of report.updates) {
    const ms = Date.parse(update.at);
    if (!Number.isNaN(ms) && !(ms <= latestMs)) {
      latest = update.at;
      latestMs = ms;
    }
  }
  return latest;
}

/** The newest update: the first, as the view orders them, unless the times disagree. */
function latestUpdate(report: PublicReport): PublicUpdate | null {
  let latest: PublicUpdate | null = null;
  for (const update of report.updates) {
    if (latest === null || Date.parse(update.at) > Date.parse(latest.at)) latest = update;
  }
  return latest;
}

/** Exactly 90 days, oldest first: a young component's history is padded with days of no data. */
function ninetyDays(days: readonly UptimeDay[]): readonly UptimeDay[] {
  if (days.length >= DAYS) return days.slice(-DAYS);
  const first = Date.parse(`${days[0]?.date}T00:00:00Z`);
  if (Number.isNaN(first)) return days;
  const padding: UptimeDay[] = [];
  for (let back = DAYS - days.length; back > 0; back--) {
    padding.push({ date: new Date(first - back * DAY_MS).toISOString().slice(0, 10), up: 0, degraded: 0, down: 0, uptime: null });
  }
  return [...padding, ...days];
}

// ---------------------------------------------------------------------------------------------
// The stylesheet: one inline block, the same on every page (hence one hash for a CSP).

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#111;--mut:#4a4a4a;--ln:#d0d0d0;--ok:#0a6b2d;--deg:#8a5300;--down:#b00020;--mnt:#1d4ed8;--link:#0645ad;
--u5:#1f9d55;--u4:#74c044;--u3:#d4ac00;--u2:#f08c00;--u1:#e8590c;--u0:#c8102e;--nd:#d0d0d0}
@media (prefers-color-scheme:dark){:root{--bg:#111318;--fg:#f1f1f1;--mut:#c4c4c4;--ln:#3c404a;--ok:#6ee293;--deg:#ffc857;--down:#ff8a94;--mnt:#9dbbff;--link:#9dbbff;--nd:#3c404a}}
@media (prefers-contrast:more){:root{--mut:var(--fg);--ln:var(--fg)}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:break-word;-webkit-text-size-adjust:100%}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--mnt);outline-offset:2px}
.w{max-width:52rem;margin:0 auto;padding:0 1rem}
.skip{position:absolute;left:-999rem;top:0;padding:.5rem 1rem;background:var(--fg);color:var(--bg);z-index:2}
.skip:focus{left:0}
header{padding-top:2rem}
h1{font-size:1.75rem;line-height:1.2;margin:0 0 .25rem}
h2{font-size:1.25rem;margin:2.25rem 0 .75rem}
h3,h4{font-size:1rem;margin:0}
p{margin:.5rem 0}
.mut,.lede{color:var(--mut)}
.site{margin:0;font-weight:600}
.i{display:inline-flex;align-items:center;justify-content:center;flex:none;width:1.5em;height:1.5em;border:2px solid currentColor;border-radius:50%;font-size:.8em;font-weight:700;line-height:1}
.banner{margin:1.5rem 0;padding:1rem 1.25rem;border-radius:.5rem;background:var(--b);color:#fff}
.banner h2{display:flex;align-items:center;gap:.75rem;margin:0;font-size:1.375rem}
.b-operational{--b:#0a6b2d}.b-degraded{--b:#8a5300}.b-down{--b:#b00020}.b-maintenance{--b:#1d4ed8}.b-unknown{--b:#4a4a4a}
.note{display:flex;align-items:center;gap:.6rem;margin:1.5rem 0 0;padding:.75rem 1rem;border:2px solid var(--k);border-radius:.5rem}
.n-info{--k:var(--mnt)}.n-error{--k:var(--down)}
.st{display:inline-flex;align-items:center;gap:.4rem;font-weight:600;white-space:nowrap}
.s-operational{color:var(--ok)}.s-degraded{color:var(--deg)}.s-down{color:var(--down)}.s-maintenance{color:var(--mnt)}.s-unknown{color:var(--mut)}
.cl{list-style:none;margin:0 0 1rem;padding:0;border:1px solid var(--ln);border-radius:.5rem}
.c{padding:1rem;border-top:1px solid var(--ln)}
.c:first-child{border-top:0}
.ch{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem}
.cd{margin:.25rem 0 0;color:var(--mut);font-size:.9rem}
.gh{margin:1.25rem 0 .5rem;font-size:1.05rem}
.bar{display:flex;gap:2px;height:2rem;margin:.75rem 0 .25rem;padding:0;list-style:none}
.bar li{position:relative;flex:1;min-width:0;border-radius:1px;forced-color-adjust:none}
.bar li:hover{outline:2px solid var(--fg)}
.bar span{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.bar li:hover span{width:auto;height:auto;overflow:visible;clip-path:none;bottom:calc(100% + 6px);left:50%;transform:translateX(-50%);padding:.25rem .5rem;border-radius:.25rem;background:var(--fg);color:var(--bg);font-size:.8rem;z-index:1;pointer-events:none}
.bar li:nth-child(-n+15):hover span{left:0;transform:none}
.bar li:nth-last-child(-n+15):hover span{left:auto;right:0;transform:none}
.u5{background:var(--u5)}.u4{background:var(--u4)}.u3{background:var(--u3)}.u2{background:var(--u2)}.u1{background:var(--u1)}.u0{background:var(--u0)}.nd{background:var(--nd)}
.ax{display:flex;justify-content:space-between;gap:1rem;margin:0;font-size:.8rem;color:var(--mut)}
.d30{display:none}
.rep,.mnt{margin:0 0 1rem;padding:1rem;border:1px solid var(--ln);border-left:4px solid var(--k);border-radius:.5rem}
.rep{--k:var(--deg)}.done{--k:var(--ln)}.mnt{--k:var(--mnt)}
.meta{margin:.25rem 0 .75rem;color:var(--mut);font-size:.9rem}
.tl{list-style:none;margin:0;padding:0 0 0 1rem;border-left:2px solid var(--ln)}
.tl li{margin:0 0 .75rem}
.tl p{margin:0}
.msg{white-space:pre-line;overflow-wrap:anywhere}
form{display:grid;gap:.5rem;max-width:30rem;margin:1rem 0}
.row{display:flex;gap:.5rem}
input{flex:1;min-width:0;padding:.5rem .75rem;border:2px solid var(--mut);border-radius:.375rem;background:var(--bg);color:var(--fg);font:inherit}
button{justify-self:start;padding:.5rem 1rem;border:2px solid var(--fg);border-radius:.375rem;background:var(--fg);color:var(--bg);font:inherit;font-weight:600;cursor:pointer}
footer{margin-top:3rem;padding-top:1rem;padding-bottom:2rem;border-top:1px solid var(--ln);color:var(--mut);font-size:.875rem}
footer p{margin:.25rem 0}
@media (max-width:40rem){.bar li:nth-child(-n+60){display:none}.d90{display:none}.d30{display:inline}.bar li:nth-child(n+61):nth-child(-n+66):hover span{left:0;transform:none}}
@media (forced-colors:active){.banner,.rep,.mnt,.note{border:2px solid CanvasText}}
`
  .replace(/\s*\n\s*/g, '')
  .replace(/\s*([{};,>])\s*/g, '$1');

/**
 * A Content-Security-Policy for every page rendered here: nothing runs and nothing is fetched;
 * the one inline stylesheet is allowed by its hash. Forms are not limited to 'self': the
 * subscription form posts to the page's public address, whose origin may be another name of the
 * same service (localhost and 127.0.0.1).
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  'img-src data:',
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Directives a `<meta http-equiv>` policy cannot carry (CSP Level 3): browsers ignore them there, with a warning. */
const HEADER_ONLY_DIRECTIVES = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/**
 * The policy of a page served without our headers (the static export): the same policy, as a
 * `<meta http-equiv>` tag, without what only a header can carry. Framing is then up to the host.
 */
export const STATUS_PAGE_META_CSP = STATUS_PAGE_CSP.split('; ')
  .filter((directive) => !HEADER_ONLY_DIRECTIVES.has(directive.split(' ')[0]!))
  .join('; ');

function documentOf(parts: { title: string; description?: string; csp?: string; head?: Markup; body: Markup }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${parts.csp ? html`<meta http-equiv="Content-Security-Policy" content="${parts.csp}">` : ''}
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${parts.title}</title>
${parts.description ? html`<meta name="description" content="${parts.description}">` : ''}
<link rel="icon" href="data:,">
${parts.head}
<style>${raw(CSS)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${parts.body}
</body>
</html>
`.text;
}

// ---------------------------------------------------------------------------------------------
// The status page.

function stateBadge(state: ComponentState): Markup {
  const { label, icon } = STATES[state];
  return html`<span class="st s-${state}"><span class="i" aria-hidden="true">${icon}</span>${label}</span>`;
}

function affects(components: readonly string[], whole: string): Markup {
  return html`Affects: ${components.length === 0 ? whole : components.join(', ')}`;
}

function timeline(updates: readonly PublicUpdate[]): Markup {
  if (updates.length === 0) return html``;
  return html`<ol class="tl">${updates.map(
    (u) => html`<li><p><strong>${REPORT_STATUS[u.status]}</strong> · ${time(u.at)}</p><p class="msg">${u.message}</p></li>`,
  )}</ol>`;
}

function reportArticle(report: PublicReport): Markup {
  const id = anchor('report', report.id);
  const when = report.resolved ? html`<strong>Resolved</strong> ${report.resolvedAt && time(report.resolvedAt)}` : html`<strong>${REPORT_STATUS[report.status]}</strong> · Started ${time(report.createdAt)}`;
  return html`<article class="rep${report.resolved ? ' done' : ''}" id="${id}" aria-labelledby="${id}-t">
<h3 id="${id}-t">${report.title}</h3>
<p class="meta">${when}${report.components.length > 0 && html` · ${affects(report.components, '')}`}</p>
${timeline(report.updates)}
</article>`;
}

function maintenanceArticle(maintenance: PublicMaintenance): Markup {
  const id = anchor('maintenance', maintenance.id);
  return html`<article class="mnt" id="${id}" aria-labelledby="${id}-t">
<h3 id="${id}-t">${maintenance.title}</h3>
<p class="meta">${time(maintenance.from)} to ${time(maintenance.to)} · ${affects(maintenance.components, 'all components')}</p>
${maintenance.message && html`<p class="msg">${maintenance.message}</p>`}
</article>`;
}

function uptimeBar(component: PublicComponent): Markup {
  // The bulk of a page: 90 items per component, so plain concatenation, and the shortest valid
  // markup (an unquoted class without spaces; </li> is implied by the next <li> and by </ol>).
  let blocks = '';
  for (const day of ninetyDays(component.days)) blocks += `<li class=${uptimeClass(day.uptime)}><span>${dayLabel(day)}</span>`;
  return html`<ol class="bar" aria-label="${component.name}: uptime per day, oldest first">${raw(blocks)}</ol>
<p class="ax"><span><span class="d90">90 days ago</span><span class="d30">30 days ago</span></span>
<span>${component.uptime === null ? 'No data' : `${percent(component.uptime)} uptime over 90 days`}</span><span>Today</span></p>`;
}

function componentItem(component: PublicComponent, level: 3 | 4): Markup {
  const h = raw(`h${level}`);
  return html`<li class="c">
<div class="ch"><${h}>${component.name}</${h}>${stateBadge(component.state)}</div>
${component.description && html`<p class="cd">${component.description}</p>`}
${component.days.length > 0 && uptimeBar(component)}
</li>`;
}

/** Runs of adjacent components with the same group: ungrouped ones in a plain list, the others under their group's heading. */
function componentList(components: readonly PublicComponent[]): Markup {
  if (components.length === 0) return html`<p class="mut">No components yet.</p>`;
  const runs: { group: string | null; items: PublicComponent[] }[] = [];
  for (const component of components) {
    const last = runs.at(-1);
    if (last && last.group === component.group) last.items.push(component);
    else runs.push({ group: component.group, items: [component] });
  }
  return html`${runs.map((run, index) =>
    run.group === null
      ? html`<ul class="cl">${run.items.map((c) => componentItem(c, 3))}</ul>`
      : html`<section aria-labelledby="group-${index}"><h3 class="gh" id="group-${index}">${run.group}</h3>
<ul class="cl">${run.items.map((c) => componentItem(c, 4))}</ul></section>`,
  )}`;
}

function section(id: string, heading: string, content: Fragment): Markup {
  return html`<section aria-labelledby="${id}"><h2 id="${id}">${heading}</h2>${content}</section>`;
}

/** The public status page as a complete HTML document. */
export function renderStatusPage(page: PublicPage, options: RenderOptions): string {
  const base = withoutSlash(page.url);
  const live = options.mode === 'live';
  const feedUrl = live ? `${base}/feed.atom` : 'feed.atom';
  const jsonUrl = live ? `${base}/summary.json` : 'summary.json';
  const notice = options.notice;
  const body = html`<header class="w"><h1>${page.title}</h1>${page.description && html`<p class="lede">${page.description}</p>`}</header>
<main id="main" class="w">
${notice && html`<p class="note n-${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}"><span class="i" aria-hidden="true">${notice.kind === 'error' ? '✕' : 'i'}</span>${notice.text}</p>`}
<section class="banner b-${page.state}" aria-labelledby="overall"><h2 id="overall"><span class="i" aria-hidden="true">${STATES[page.state].icon}</span>${overallText(page)}</h2></section>
${page.activeMaintenances.length > 0 && section('ongoing-maintenance', 'Maintenance in progress', page.activeMaintenances.map(maintenanceArticle))}
${page.activeReports.length > 0 && section('incidents', 'Current incidents', page.activeReports.map(reportArticle))}
${section('components', 'Components', componentList(page.components))}
${page.upcomingMaintenances.length > 0 && section('scheduled-maintenance', 'Scheduled maintenance', page.upcomingMaintenances.map(maintenanceArticle))}
${section('history', 'Past incidents', page.pastReports.length > 0 ? page.pastReports.map(reportArticle) : html`<p class="mut">No incidents in the last 14 days.</p>`)}
${live &&
  page.subscribable &&
  section(
    'subscribe',
    'Get updates by email',
    html`<form method="post" action="${base}/subscribe">
<label for="email">Email address</label>
<div class="row"><input id="email" name="email" type="email" autocomplete="email" required maxlength="254" aria-describedby="email-hint">
<button type="submit">Subscribe</button></div>
<p class="mut" id="email-hint">A message with a link to confirm the address comes first. Every message has a link to unsubscribe.</p>
</form>`,
  )}
</main>
<footer class="w">
<p><a href="${feedUrl}">Atom feed</a> · <a href="${jsonUrl}">JSON summary</a></p>
<p>Powered by Statusdesk · Generated ${time(page.generatedAt)}</p>
</footer>`;
  return documentOf({
    title: `${page.title}: ${overallText(page)}`,
    description: page.description,
    // A live page gets its policy as a header (status-routes.ts); a static copy carries it.
    csp: live ? undefined : STATUS_PAGE_META_CSP,
    head: html`<link rel="alternate" type="application/atom+xml" title="${page.title}" href="${feedUrl}">
<link rel="alternate" type="application/json" href="${jsonUrl}">`,
    body,
  });
}

/** A small page of the subscription flow ("Check your inbox", "Unsubscribe?"), styled as the status page. */
export function renderNoticePage(options: NoticeOptions): string {
  const { title, heading, message, pageUrl, form } = options;
  const body = html`<header class="w"><p class="site">${pageUrl ? html`<a href="${pageUrl}">${title}</a>` : title}</p></header>
<main id="main" class="w">
<h1>${heading}</h1>
<p class="msg">${message}</p>
${form &&
  html`<form method="post" action="${form.action}">
${Object.entries(form.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">${form.button}</button>
</form>`}
${pageUrl && html`<p><a href="${pageUrl}">Back to the status page</a></p>`}
</main>
<footer class="w"><p>Powered by Statusdesk</p></footer>`;
  return documentOf({
    title: heading === title ? title : `${heading} · ${title}`,
    head: html`<meta name="robots" content="noindex">`,
    body,
  });
}

// ---------------------------------------------------------------------------------------------
// The Atom feed.

const ATOM_NS = 'http://www.w3.org/2005/Atom';

interface FeedEntry {
  id: string;
  title: string;
  updated: string;
  published: string | null;
  link: string;
  category: 'incident' | 'maintenance';
  content: Markup;
}

/** Line breaks of a message as <br>, for feed readers that ignore white space. */
function lines(text: string): Markup {
  return raw(escape(text).replace(/\r?\n/g, '<br>'));
}

/** A time for the feed's HTML content. */
function plainTime(value: string): string {
  const iso = instant(value);
  return iso === null ? value : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function entryId(page: PublicPage, kind: 'report' | 'maintenance', id: string): string {
  return `urn:statusdesk:page:${encodeURIComponent(page.id)}:${kind}:${encodeURIComponent(id)}`;
}

function reportEntry(page: PublicPage, base: string, report: PublicReport): FeedEntry {
  const content = html`<p><strong>${REPORT_STATUS[report.status]}</strong>${report.components.length > 0 && html` · ${affects(report.components, '')}`}</p>
<ul>${report.updates.map((u) => html`<li><p><strong>${REPORT_STATUS[u.status]}</strong> · ${plainTime(u.at)}</p><p>${lines(u.message)}</p></li>`)}</ul>`;
  return {
    id: entryId(page, 'report', report.id),
    title: report.title,
    updated: reportUpdatedAt(report),
    published: report.createdAt,
    link: `${base}#${anchor('report', report.id)}`,
    category: 'incident',
    content,
  };
}

function maintenanceEntry(page: PublicPage, base: string, maintenance: PublicMaintenance): FeedEntry {
  const content = html`<p>${plainTime(maintenance.from)} to ${plainTime(maintenance.to)} · ${affects(maintenance.components, 'all components')}</p>
${maintenance.message && html`<p>${lines(maintenance.message)}</p>`}`;
  return {
    id: entryId(page, 'maintenance', maintenance.id),
    title: `Maintenance: ${maintenance.title}`,
    // A window has no updates of its own: its start is its one stable time, once it has come
    // (until then the feed's own time, see renderAtomFeed).
    updated: maintenance.from,
    published: null,
    link: `${base}#${anchor('maintenance', maintenance.id)}`,
    category: 'maintenance',
    content,
  };
}

/**
 * The page's reports (active and past) and maintenance windows (active and upcoming) as an Atom
 * 1.0 feed, newest first. Entry ids are stable: they name the page and the report or window.
 */
export function renderAtomFeed(page: PublicPage, selfUrl: string): string {
  const base = withoutSlash(page.url);
  const generated = instant(page.generatedAt) ?? new Date(0).toISOString();
  const entries = [
    ...[...page.activeReports, ...page.pastReports].map((r) => reportEntry(page, base, r)),
    ...[...page.activeMaintenances, ...page.upcomingMaintenances].map((m) => maintenanceEntry(page, base, m)),
  ].map((entry) => {
    // Never later than the feed itself: an upcoming window's start is in the future, and a reader
    // would keep it on top, "updated" at a time that has not come.
    const updated = instant(entry.updated) ?? generated;
    return { ...entry, updated: updated > generated ? generated : updated, published: entry.published === null ? null : instant(entry.published) };
  });
  entries.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
  const updated = entries.reduce((latest, entry) => (entry.updated > latest ? entry.updated : latest), '') || generated;
  return html`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="${ATOM_NS}">
<id>urn:statusdesk:page:${encodeURIComponent(page.id)}</id>
<title>${page.title}</title>
${page.description && html`<subtitle>${page.description}</subtitle>`}
<updated>${updated}</updated>
<link rel="self" type="application/atom+xml" href="${selfUrl}"/>
<link rel="alternate" type="text/html" href="${page.url}"/>
<author><name>${page.title}</name></author>
<generator>Statusdesk</generator>
${entries.map(
  (e) => html`<entry>
<id>${e.id}</id>
<title>${e.title}</title>
<updated>${e.updated}</updated>
${e.published && html`<published>${e.published}</published>`}
<link rel="alternate" type="text/html" href="${e.link}"/>
<category term="${e.category}"/>
<content type="html">${e.content.text}</content>
</entry>`,
)}
</feed>
`.text;
}

// ---------------------------------------------------------------------------------------------
// The JSON summary.

function summaryMaintenance(m: PublicMaintenance): SummaryMaintenance {
  return { id: m.id, title: m.title, message: m.message, from: m.from, to: m.to, components: m.components };
}

/** The page's public JSON (served as summary.json): current state, components and open matters. */
export function summaryJson(page: PublicPage): StatusSummary {
  return {
    page: { id: page.id, slug: page.slug, title: page.title, url: page.url, updatedAt: page.generatedAt },
    status: { state: page.state, description: overallText(page) },
    components: page.components.map((c) => ({ id: c.id, name: c.name, group: c.group, state: c.state, uptime: c.uptime })),
    activeReports: page.activeReports.map((r) => ({
      id: r.id,
      title: r.title,
      status: r.status,
      components: r.components,
      updatedAt: reportUpdatedAt(r),
      latestUpdate: latestUpdate(r),
    })),
    maintenances: { active: page.activeMaintenances.map(summaryMaintenance), upcoming: page.upcomingMaintenances.map(summaryMaintenance) },
  };
}
