import { html, type Markup } from './markup.ts';

/** How the status page and its feed write times, anchors and affected components: the same in both. */

/** What Date#toISOString writes: taken as it is, without parsing (a page has hundreds). */
const CANONICAL = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{3})?Z$/;

/** RFC 3339 in UTC (milliseconds only when there are some), or null for text that is not a time. */
export function instant(value: string): string | null {
  if (CANONICAL.test(value)) return value.endsWith('.000Z') ? `${value.slice(0, -5)}Z` : value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A time for people: 2026-11-20 14:05 UTC. */
export function time(value: string): Markup {
  const iso = instant(value);
  if (iso === null) return html`<time>${value}</time>`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** An element id (and URL fragment) for a report or maintenance: the same in the page and the feed. */
export function anchor(kind: 'report' | 'maintenance', id: string): string {
  return `${kind}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** The page's address without a trailing slash, to append paths and fragments to. */
export function withoutSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The components a report or window affects; `whole` when it names none. */
export function affects(components: readonly string[], whole: string): Markup {
  return html`Affects: ${components.length === 0 ? whole : components.join(', ')}`;
}
