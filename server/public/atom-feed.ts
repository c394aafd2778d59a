import { type PublicMaintenance, type PublicPage, type PublicReport, reportUpdatedAt } from '../domain/pages/public-view.ts';
import { REPORT_STATUS_LABEL } from '../domain/public-words.ts';
import { escape, html, type Markup, raw } from './markup.ts';
import { affects, anchor, instant, withoutSlash } from './page-formats.ts';

/**
 * A status page's reports and maintenance windows as an Atom 1.0 feed, with each entry's
 * timeline as escaped HTML.
 */

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
  const content = html`<p><strong>${REPORT_STATUS_LABEL[report.status]}</strong>${report.components.length > 0 && html` · ${affects(report.components, '')}`}</p>
<ul>${report.updates.map((u) => html`<li><p><strong>${REPORT_STATUS_LABEL[u.status]}</strong> · ${plainTime(u.at)}</p><p>${lines(u.message)}</p></li>`)}</ul>`;
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
<content type="html">${e.content.toString()}</content>
</entry>`,
)}
</feed>
`.toString();
}
