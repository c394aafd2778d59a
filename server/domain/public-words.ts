import { STORM_RULES } from './notifications/alert-storms.ts';
import type { AlertEvent, ReportStatus } from './notifications/events.ts';

const FLAP_WINDOW_WORDS_MS = STORM_RULES.flapWindowMs;
import type { ComponentState, PublicPage } from './pages/public-view.ts';

/**
 * The words the service shows to the public: on status pages, in their feeds, summaries and
 * markdown, and in alerts and subscriber mail. Each is written here once, so every output says
 * the same thing.
 */

export const COMPONENT_STATE_LABEL: Record<ComponentState, string> = {
  operational: 'Operational',
  degraded: 'Degraded performance',
  down: 'Outage',
  maintenance: 'Under maintenance',
  unknown: 'Status unknown',
};

export const REPORT_STATUS_LABEL: Record<ReportStatus, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

/** A page's overall state in words. 'down' is a major outage when every component is down. */
export function overallStatus(page: Pick<PublicPage, 'state' | 'components'>): string {
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
export function percent(share: number): string {
  if (share >= 1) return '100%';
  if (!(share > 0)) return '0%';
  // The small addition absorbs binary fractions such as 0.9986 * 10000 = 9985.999…
  return `${(Math.floor(share * 10_000 + 1e-7) / 100).toFixed(2)}%`;
}

/** An alert's kind as a label, e.g. in a subject: `[Down] api.example.com`. */
export const ALERT_LABEL: Record<AlertEvent['kind'], string> = { down: 'Down', recovered: 'Recovered', degraded: 'Degraded', tool_drift: 'Tools changed' };

/** What happened to the monitor, after its name: `api.example.com is down`. */
export const ALERT_SENTENCE: Record<AlertEvent['kind'], string> = {
  down: 'is down',
  recovered: 'has recovered',
  degraded: 'is degraded',
  tool_drift: 'changed its tools: review them before your editor uses them again',
};

/** The same, said of several monitors: `3 monitors are down`. */
const ALERT_SENTENCE_OF_MANY: Record<AlertEvent['kind'], string> = {
  down: 'are down',
  recovered: 'have recovered',
  degraded: 'are degraded',
  tool_drift: 'changed their tools: review them before your editor uses them again',
};

/** A span in words, to the two largest units: `45 s`, `12 min`, `2 h 5 min`, `3 d 4 h`. */
export function durationWords(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1_000],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(ms / 1_000) * 1_000);
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
    // `2 h`, not `2 h 0 min`; and never more than two units.
    else if (parts.length > 0) break;
    if (parts.length === 2) break;
  }
  return parts.length > 0 ? parts.join(' ') : '0 s';
}

/**
 * What an alert says in one line, the title of every channel's message: `api is down`, `api is
 * back up after 12 min`, `api is still down (since 2025-03-01 14:05 UTC)`, `api is flapping: 5
 * changes in 10 min, now down`, `3 monitors are down: api, db and cache`.
 */
export function alertHeadline(event: AlertEvent): string {
  if (event.group && event.group.length > 1) {
    const names = event.group.map((m) => m.name);
    const listed = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    return `${names.length} monitors ${ALERT_SENTENCE_OF_MANY[event.kind]}: ${listed}`;
  }
  const name = event.monitor.name;
  if (event.flapping) return `${name} is flapping: ${event.flapping} changes in ${durationWords(FLAP_WINDOW_WORDS_MS)}, now ${event.to}`;
  if (event.remindedSince) return `${name} is still ${event.to} (since ${event.remindedSince})`;
  if (event.kind === 'recovered' && event.downForMs !== undefined) return `${name} is back up after ${durationWords(event.downForMs)}`;
  return `${name} ${ALERT_SENTENCE[event.kind]}`;
}

/** How the monitor's result changed: `down → up`, or `first result: down`. */
export const resultChange = (event: Pick<AlertEvent, 'from' | 'to'>) => (event.from === null ? `first result: ${event.to}` : `${event.from} → ${event.to}`);
