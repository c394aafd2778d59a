import type { AlertEvent, ReportStatus } from './notifications/events.ts';
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

/** How the monitor's result changed: `down → up`, or `first result: down`. */
export const resultChange = (event: Pick<AlertEvent, 'from' | 'to'>) => (event.from === null ? `first result: ${event.to}` : `${event.from} → ${event.to}`);
