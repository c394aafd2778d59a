import type { PublicMaintenance, PublicPage, PublicReport } from '../domain/pages/public-view.ts';
import { COMPONENT_STATE_LABEL, overallStatus, percent, REPORT_STATUS_LABEL } from '../domain/public-words.ts';

/** Text from page editors on one line, where a line break would end a list item or heading. */
const line = (text: string) => text.replace(/\s+/g, ' ').trim();

const affects = (names: string[]) => (names.length === 0 ? 'the whole page' : names.map(line).join(', '));

function report(r: PublicReport): string[] {
  const when = r.resolved && r.resolvedAt ? `Opened ${r.createdAt}, resolved ${r.resolvedAt}.` : `Opened ${r.createdAt}.`;
  const components = r.components.length === 0 ? '' : ` Affects: ${affects(r.components)}.`;
  return [
    `### ${line(r.title)}`,
    '',
    `Status: ${REPORT_STATUS_LABEL[r.status]}. ${when}${components}`,
    '',
    ...r.updates.map((u) => `- ${u.at}, ${REPORT_STATUS_LABEL[u.status]}: ${line(u.message)}`),
    '',
  ];
}

function maintenance(m: PublicMaintenance): string[] {
  return [`### ${line(m.title)}`, '', `From ${m.from} to ${m.to}. Affects: ${affects(m.components)}.`, '', ...(m.message.trim() ? [m.message.trim(), ''] : [])];
}

/**
 * A status page as markdown: what its public page shows, in words, for reading and for search.
 * It holds no build time, so a page whose state did not change reads the same and is not
 * indexed again.
 */
export function statusPageMarkdown(page: PublicPage): string {
  const out = [`# ${line(page.title)}`, ''];
  if (page.description.trim()) out.push(page.description.trim(), '');
  out.push(`Current status: **${overallStatus(page)}**`, '');
  out.push(`Public page: ${page.url} (Atom feed: ${page.url}/feed.atom, JSON summary: ${page.url}/summary.json)`, '');
  if (page.subscribable) out.push(`Email updates: subscribe on ${page.url}`, '');

  if (page.components.length > 0) {
    out.push('## Components', '');
    for (const c of page.components) {
      const group = c.group === null ? '' : ` (${line(c.group)})`;
      const uptime = c.uptime === null ? '' : `, ${percent(c.uptime)} uptime over 90 days`;
      const description = c.description.trim() ? `: ${line(c.description)}` : '';
      out.push(`- ${line(c.name)}${group}: ${COMPONENT_STATE_LABEL[c.state]}${uptime}${description}`);
    }
    out.push('');
  }
  const sections: [string, string[]][] = [
    ['Active incidents', page.activeReports.flatMap(report)],
    ['Maintenance in progress', page.activeMaintenances.flatMap(maintenance)],
    ['Scheduled maintenance', page.upcomingMaintenances.flatMap(maintenance)],
    ['Resolved incidents (last 14 days)', page.pastReports.flatMap(report)],
  ];
  for (const [heading, body] of sections) if (body.length > 0) out.push(`## ${heading}`, '', ...body);
  if (page.activeReports.length === 0 && page.pastReports.length === 0) out.push('No incidents reported in the last 14 days.', '');
  return `${out.join('\n').trim()}\n`;
}

/** One line about the page for the site index: its state, then its own description. */
export function statusPageSummary(page: PublicPage): string {
  const state = overallStatus(page);
  return page.description.trim() ? `${state}. ${line(page.description)}` : `${state}.`;
}
