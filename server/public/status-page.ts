import type { ComponentState, PublicComponent, PublicMaintenance, PublicPage, PublicReport, PublicUpdate, UptimeDay } from '../domain/pages/public-view.ts';
import { COMPONENT_STATE_LABEL, overallStatus, percent, REPORT_STATUS_LABEL } from '../domain/public-words.ts';
import { brandingOf } from './branding.ts';
import { documentOf, STATUS_PAGE_META_CSP } from './html-document.ts';
import { escape, type Fragment, html, type Markup, raw } from './markup.ts';
import { affects, anchor, time, withoutSlash } from './page-formats.ts';
import { PAGE_SCRIPT_FILE, PAGE_SCRIPT_VERSION } from './page-script.ts';

/**
 * The public status page as one HTML document that is complete without JavaScript and needs no
 * external assets: every string from the view is escaped on the way in. Its one script
 * (page-script.ts, a file beside the page) only enhances it: local times, arrow keys between
 * days, and refreshing the content every minute.
 */

export interface RenderOptions {
  /** 'live' is served by the running service; 'static' is a copy exported to a folder. */
  mode: 'live' | 'static';
  /** A line above the overall status, e.g. after a subscription form was sent. */
  notice?: { kind: 'info' | 'error'; text: string };
}

/** The icon beside each state's label. */
const STATE_ICON: Record<ComponentState, string> = {
  operational: '✓',
  degraded: '!',
  down: '✕',
  // U+FE0E asks for the text form of the gear, not an emoji.
  maintenance: '⚙\uFE0E',
  unknown: '?',
};

const DAYS = 90;
const DAY_MS = 86_400_000;

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

/** An incident as the days it spans see it: from its start to its resolution (or now), in ms. */
interface IncidentSpan {
  title: string;
  from: number;
  to: number;
}

/** The incidents of the page naming `component`, with the times they span. */
function incidentsOf(component: PublicComponent, page: PublicPage): IncidentSpan[] {
  const now = Date.parse(page.generatedAt);
  const spans: IncidentSpan[] = [];
  for (const report of [...page.activeReports, ...page.pastReports]) {
    if (!report.components.includes(component.name)) continue;
    const from = Date.parse(report.createdAt);
    const to = report.resolvedAt === null ? now : Date.parse(report.resolvedAt);
    if (!Number.isNaN(from)) spans.push({ title: report.title, from, to: Number.isNaN(to) ? now : to });
  }
  return spans;
}

/**
 * A day's label, as markup: its date (UTC), uptime, failed checks and the incidents that were
 * open on it. The date and the incidents' titles are text from outside, and escaped.
 */
function dayLabel(day: UptimeDay, incidents: readonly IncidentSpan[]): string {
  const date = escape(day.date);
  let label = day.uptime === null ? `${date}: no data` : `${date}: ${percent(day.uptime)} uptime`;
  if (day.down > 0) label += `, ${plural(day.down, 'failed check')}`;
  if (day.degraded > 0) label += `, ${plural(day.degraded, 'degraded check')}`;
  if (incidents.length > 0) {
    const start = Date.parse(`${day.date}T00:00:00Z`);
    const open = incidents.filter((i) => i.from < start + DAY_MS && i.to >= start);
    if (open.length > 0) label += `. ${open.length === 1 ? 'Incident' : 'Incidents'}: ${open.map((i) => escape(i.title)).join('; ')}`;
  }
  return label;
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

function stateBadge(state: ComponentState): Markup {
  return html`<span class="st s-${state}"><span class="i" aria-hidden="true">${STATE_ICON[state]}</span>${COMPONENT_STATE_LABEL[state]}</span>`;
}

function timeline(updates: readonly PublicUpdate[]): Markup {
  if (updates.length === 0) return html``;
  return html`<ol class="tl">${updates.map(
    (u) => html`<li><p><strong>${REPORT_STATUS_LABEL[u.status]}</strong> · ${time(u.at)}</p><p class="msg">${u.message}</p></li>`,
  )}</ol>`;
}

function reportArticle(report: PublicReport): Markup {
  const id = anchor('report', report.id);
  const when = report.resolved
    ? html`<strong>Resolved</strong> ${report.resolvedAt && time(report.resolvedAt)}`
    : html`<strong>${REPORT_STATUS_LABEL[report.status]}</strong> · Started ${time(report.createdAt)}`;
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

/**
 * The uptime under a bar of `shown` days: over those days, or "since created" when the component's
 * monitor is younger (an hour-old monitor has no 90 days of uptime). `uptime` is the component's
 * over all 90 days; a shorter span (the 30 days a phone shows) is summed from its days.
 */
function uptimeWords(component: PublicComponent, shown: number, generatedAt: string): string {
  const created = component.createdAt === undefined ? Number.NaN : Date.parse(component.createdAt);
  // Created within the days shown: every check it had is in them, as in the 90 days' figure.
  const young = created > Date.parse(generatedAt) - shown * DAY_MS;
  let uptime = component.uptime;
  if (!young && shown < component.days.length) {
    let ok = 0;
    let all = 0;
    for (const day of component.days.slice(-shown)) {
      ok += day.up + day.degraded;
      all += day.up + day.degraded + day.down;
    }
    uptime = all === 0 ? null : ok / all;
  }
  if (uptime === null) return 'No data';
  return `${percent(uptime)} uptime ${young ? 'since created' : `over ${shown} days`}`;
}

function uptimeBar(component: PublicComponent, page: PublicPage): Markup {
  // The bulk of a page: 90 items per component, so plain concatenation, and the shortest valid
  // markup (an unquoted class without spaces; </li> is implied by the next <li> and by </ol>).
  // Each day is focusable, its label then shown as on hover: without the script every day is a
  // stop of the Tab key; the script makes the bar one stop, with arrow keys between its days.
  const incidents = incidentsOf(component, page);
  let blocks = '';
  for (const day of ninetyDays(component.days)) blocks += `<li class=${uptimeClass(day.uptime)} tabindex=0><span>${dayLabel(day, incidents)}</span>`;
  return html`<ol class="bar" aria-label="${component.name}: uptime per day, oldest first">${raw(blocks)}</ol>
<p class="ax"><span><span class="d90">90 days ago</span><span class="d30">30 days ago</span></span>
<span>${uptimeAxis(component, page.generatedAt)}</span><span>Today</span></p>`;
}

/** The uptime of the days the bar shows: 90, or the last 30 on a phone (the same classes as the axis's start). */
function uptimeAxis(component: PublicComponent, generatedAt: string): Markup {
  const [all, phone] = [uptimeWords(component, DAYS, generatedAt), uptimeWords(component, 30, generatedAt)];
  if (all === phone) return html`${all}`;
  return html`<span class="d90">${all}</span><span class="d30">${phone}</span>`;
}

function componentItem(component: PublicComponent, level: 3 | 4, page: PublicPage): Markup {
  const h = raw(`h${level}`);
  return html`<li class="c">
<div class="ch"><${h}>${component.name}</${h}>${stateBadge(component.state)}</div>
${component.description && html`<p class="cd">${component.description}</p>`}
${component.days.length > 0 && uptimeBar(component, page)}
</li>`;
}

/**
 * Runs of adjacent components with the same group, in the page's order: a group is one box with
 * its heading inside, so an ungrouped component, in a list of its own, stands apart from the
 * group before it and is not read as one of its members.
 */
function componentList(components: readonly PublicComponent[], page: PublicPage): Markup {
  if (components.length === 0) return html`<p class="mut">No components yet.</p>`;
  const runs: { group: string | null; items: PublicComponent[] }[] = [];
  for (const component of components) {
    const last = runs.at(-1);
    if (last && last.group === component.group) last.items.push(component);
    else runs.push({ group: component.group, items: [component] });
  }
  return html`${runs.map((run, index) =>
    run.group === null
      ? html`<ul class="cl">${run.items.map((c) => componentItem(c, 3, page))}</ul>`
      : html`<section class="grp" aria-labelledby="group-${index}"><h3 class="gh" id="group-${index}">${run.group}</h3>
<ul class="cl">${run.items.map((c) => componentItem(c, 4, page))}</ul></section>`,
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
  const branding = brandingOf(page);
  const body = html`${branding.band}<header class="w"><h1>${page.title}</h1>${page.description && html`<p class="lede">${page.description}</p>`}</header>
<main id="main" class="w">
${notice && html`<p class="note n-${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}"><span class="i" aria-hidden="true">${notice.kind === 'error' ? '✕' : 'i'}</span>${notice.text}</p>`}
<section class="banner b-${page.state}" aria-labelledby="overall"><h2 id="overall"><span class="i" aria-hidden="true">${STATE_ICON[page.state]}</span>${overallStatus(page)}</h2></section>
<p class="upd" id="updated">Updated ${time(page.generatedAt)}</p>
${page.activeMaintenances.length > 0 && section('ongoing-maintenance', 'Maintenance in progress', page.activeMaintenances.map(maintenanceArticle))}
${page.activeReports.length > 0 && section('incidents', 'Current incidents', page.activeReports.map(reportArticle))}
${section('components', 'Components', componentList(page.components, page))}
${page.upcomingMaintenances.length > 0 && section('scheduled-maintenance', 'Scheduled maintenance', page.upcomingMaintenances.map(maintenanceArticle))}
${section('history', 'Past incidents', page.pastReports.length > 0 ? page.pastReports.map(reportArticle) : html`<p class="mut">No incidents in the last 14 days.</p>`)}
${
  live &&
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
  )
}
</main>
<footer class="w">
<p><a href="${feedUrl}">Atom feed</a> · <a href="${jsonUrl}">JSON summary</a></p>
<p>Powered by Statusdesk</p>
</footer>`;
  return documentOf({
    title: `${page.title}: ${overallStatus(page)}`,
    description: page.description,
    // A live page gets its policy as a header (status-routes.ts); a static copy carries it.
    csp: live ? undefined : branding.csp(STATUS_PAGE_META_CSP),
    // On the page's own path (not its public origin, which may be another name of this service),
    // so that the script is of the visitor's origin, as the policy's 'self' asks.
    script: `${live ? `${new URL(base).pathname}/` : ''}${PAGE_SCRIPT_FILE}?v=${PAGE_SCRIPT_VERSION}`,
    head: html`<link rel="alternate" type="application/atom+xml" title="${page.title}" href="${feedUrl}">
<link rel="alternate" type="application/json" href="${jsonUrl}">${branding.style}`,
    body,
  });
}
