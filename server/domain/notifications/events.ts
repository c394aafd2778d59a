import type { AlertTopic } from '../../../contract/alert-topics.ts';
import type { ReportStatus } from '../../db/schema.ts';

/**
 * What subscribers and channels are told. These are plain data: the delivery code turns them
 * into mail, chat messages and signed JSON, and never reads the database.
 */

export const reportStatuses = ['investigating', 'identified', 'monitoring', 'resolved'] as const satisfies readonly ReportStatus[];
export type { ReportStatus };

export interface PageRef {
  id: string;
  slug: string;
  title: string;
  /** The public address of the page. */
  url: string;
}

/** A page subscriber is told of these; `update_status_report` never produces one. */
export type PageEvent =
  | {
      kind: 'report.created' | 'report.updated' | 'report.resolved';
      page: PageRef;
      report: { id: string; title: string; status: ReportStatus; components: string[] };
      update: { id: string; status: ReportStatus; message: string; at: string };
    }
  | {
      kind: 'maintenance.scheduled';
      page: PageRef;
      maintenance: { id: string; title: string; message: string; from: string; to: string; components: string[] };
    };

/**
 * A monitor alert: one per change of a monitor's overall result, and one when an MCP monitor's
 * server changes its tools (`tool_drift`: `message` says which; the state is unchanged).
 */
export interface AlertEvent {
  kind: 'down' | 'recovered' | 'degraded' | 'tool_drift';
  monitor: { id: string; name: string; type: string; target: string };
  /** The overall result before the change; null for the first result. */
  from: 'up' | 'degraded' | 'down' | null;
  to: 'up' | 'degraded' | 'down';
  message: string;
  at: string;
  workspace: { slug: string; name: string };
  /** Set when the alert is a test send from the API. */
  test?: boolean;
  /** `recovered`: how long the monitor was down or degraded, in milliseconds, where known. */
  downForMs?: number;
  /** Where the failing check ran: its regions, or the private location's name. */
  regions?: string[];
  /** The monitor in the dashboard, where the service knows its own address. */
  link?: string;
  /**
   * Set when the alert stands for several monitors that changed the same way, to the same
   * channel, within a minute: every one of them, `monitor` being the first (alert-storms.ts).
   */
  group?: { id: string; name: string; type: string; target: string; message: string }[];
  /** Set when the monitor is flapping: the changes counted within the window. */
  flapping?: number;
  /** Set on a reminder: the monitor is still down (or degraded) since this time. */
  remindedSince?: string;
}

/**
 * What a channel can choose to receive (its `events`; none chosen: every one): a monitor going
 * down, degraded, or back up; a certificate monitor's warning or failure; a heartbeat that did not
 * come; an MCP server's tools changing.
 */
export { type AlertTopic, alertTopics } from '../../../contract/alert-topics.ts';

/**
 * The alert's event name, as a webhook's `event` field and `x-statusdesk-event` header and a
 * channel's delivery log give it: `monitor.down`, `monitor.recovered`, `monitor.degraded`,
 * `monitor.tool_drift`; `test` for a test send, whatever alert it shows.
 */
export const eventNameOf = (event: Pick<AlertEvent, 'kind' | 'test'>) => (event.test ? 'test' : `monitor.${event.kind}`);

/** Which choice of a channel an alert falls under. */
export function topicOf(event: Pick<AlertEvent, 'kind'> & { monitor: Pick<AlertEvent['monitor'], 'type'> }): AlertTopic {
  if (event.kind === 'tool_drift') return 'tool_drift';
  if (event.kind === 'recovered') return 'up';
  if (event.monitor.type === 'certificate') return 'certificate';
  if (event.monitor.type === 'heartbeat' && event.kind === 'down') return 'heartbeat_missed';
  return event.kind;
}
