import type { ComponentState, PublicComponent, PublicMaintenance, PublicPage, PublicReport, PublicUpdate, UptimeDay } from '../domain/pages/public-view.ts';
import { COMPONENT_STATE_LABEL, overallStatus, percent, REPORT_STATUS_LABEL } from '../domain/public-words.ts';
import { documentOf, STATUS_PAGE_META_CSP } from './html-document.ts';
import { escape, type Fragment, html, type Markup, raw } from './markup.ts';
import { affects, anchor, time, withoutSlash } from './page-formats.ts';

/**
 * The public status page as one HTML document without JavaScript or external assets: every
 * string from the view is escaped on the way in.
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

/** A day's label, as markup: only the date is text from outside, and it is escaped. */
function dayLabel(day: UptimeDay): string {
  const date = escape(day.date);
  if (day.uptime === null) return `${date}: no data`;
  let label = `${date}: ${percent(day.uptime)} uptime`;
  if (day.down > 0) label += `, ${plural(day.down, 'failed check')}`;
  if (day.degraded > 0) label += `, ${plural(day.degraded, 'degraded check')}`;
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
<section class="banner b-${page.state}" aria-labelledby="overall"><h2 id="overall"><span class="i" aria-hidden="true">${STATE_ICON[page.state]}</span>${overallStatus(page)}</h2></section>
${page.activeMaintenances.length > 0 && section('ongoing-maintenance', 'Maintenance in progress', page.activeMaintenances.map(maintenanceArticle))}
${page.activeReports.length > 0 && section('incidents', 'Current incidents', page.activeReports.map(reportArticle))}
${section('components', 'Components', componentList(page.components))}
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
<p>Powered by Statusdesk · Generated ${time(page.generatedAt)}</p>
</footer>`;
  return documentOf({
    title: `${page.title}: ${overallStatus(page)}`,
    description: page.description,
    // A live page gets its policy as a header (status-routes.ts); a static copy carries it.
    csp: live ? undefined : STATUS_PAGE_META_CSP,
    head: html`<link rel="alternate" type="application/atom+xml" title="${page.title}" href="${feedUrl}">
<link rel="alternate" type="application/json" href="${jsonUrl}">`,
    body,
  });
}
