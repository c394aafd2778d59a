import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.ts';
import { activeMaintenanceFor } from '../maintenance/maintenance-repository.ts';
import type { MonitorStateChange } from '../monitors/check-results.ts';
import { targetOf } from '../monitors/monitor-types.ts';
import { findMonitor, type Monitor } from '../monitors/monitors.ts';
import { findWorkspaceRow } from '../workspaces/workspace-repository.ts';
import { insertAlert, latestHeldFailures } from './alert-repository.ts';
import type { ChannelTarget } from './channel-rules.ts';
import { reasonOf } from './channels.ts';
import type { AlertEvent } from './events.ts';
import type { ToolChange } from '../monitors/tool-pins.ts';

export interface Alert {
  id: string;
  monitorId: string;
  kind: AlertEvent['kind'];
  message: string;
  occurredAt: string;
  /** The maintenance window that held the alert back; null when it was sent. */
  suppressedBy: string | null;
  deliveries: { channelId: string; ok: boolean; error: string | null }[];
}

export interface AlertServiceOptions {
  /** The channels wired to a monitor; an error in place of a channel whose credentials cannot be read. */
  targetsOf(monitorId: number): Promise<{ id: number; target: ChannelTarget | Error }[]>;
  deliver(target: ChannelTarget, event: AlertEvent): Promise<void>;
  /**
   * Shows an alert in the desktop app, if one runs (throws when none does): a tool drift is shown
   * there even when no desktop channel is wired to the monitor.
   */
  desktop?(event: AlertEvent): void;
  log: Logger;
}

/** How often alerts held back by a maintenance window that has ended are looked for. */
const RELEASE_HELD_EVERY_MS = 30_000;

/**
 * Monitor alerts: each change of a monitor's overall result (the check engine emits one per
 * change) goes to every channel wired to the monitor, unless an active maintenance window covers
 * it. Each alert is recorded with what became of it.
 */
export function createAlertService(db: Kysely<Database>, options: AlertServiceOptions) {
  /**
   * Sends `event` to every channel of the monitor and records the alert; `onDesktop`: also to the
   * desktop app when no desktop channel of the monitor shows it.
   */
  async function send(
    monitor: Monitor,
    event: Omit<AlertEvent, 'monitor' | 'workspace'>,
    suppressedBy: number | undefined,
    onDesktop = false,
  ): Promise<Alert | undefined> {
    const monitorId = Number(monitor.id);
    let deliveries: Alert['deliveries'] = [];
    if (suppressedBy === undefined) {
      const { slug, name } = await findWorkspaceRow(db, Number(monitor.workspaceId));
      const full: AlertEvent = {
        ...event,
        monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: targetOf(monitor) },
        workspace: { slug, name },
      };
      const targets = await options.targetsOf(monitorId);
      if (onDesktop && !targets.some(({ target }) => !(target instanceof Error) && target.kind === 'desktop')) {
        try {
          options.desktop?.(full);
        } catch {
          // No desktop app runs: the channels still have it.
        }
      }
      deliveries = await Promise.all(
        targets.map(({ id, target }) =>
          (target instanceof Error ? Promise.reject(target) : options.deliver(target, full)).then(
            () => ({ channelId: String(id), ok: true, error: null }),
            (error: unknown) => {
              options.log.warn({ err: error, channelId: id, monitorId }, 'alert delivery failed');
              return { channelId: String(id), ok: false, error: reasonOf(error) };
            },
          ),
        ),
      );
    }
    const id = await insertAlert(db, {
      monitorId,
      kind: event.kind,
      message: event.message,
      at: event.at,
      suppressedBy: suppressedBy ?? null,
      deliveries,
    }).catch(
      () => undefined, // the monitor was deleted meanwhile
    );
    if (id === undefined) return undefined;
    return {
      id: String(id),
      monitorId: monitor.id,
      kind: event.kind,
      message: event.message,
      occurredAt: event.at,
      suppressedBy: suppressedBy === undefined ? null : String(suppressedBy),
      deliveries,
    };
  }

  async function stateChanged(change: MonitorStateChange): Promise<Alert | undefined> {
    // A first check that is up is not news.
    if (change.kind === 'checked') return undefined;
    const monitor = await findMonitor(db, Number(change.workspaceId), Number(change.monitorId));
    if (!monitor) return undefined; // deleted while its check ran
    const { kind, from, to, message, at } = change;
    return send(monitor, { kind, from, to, message, at }, await activeMaintenanceFor(db, Number(monitor.id)));
  }

  /**
   * An MCP monitor's server changed its tools (tool-pins.ts opened or changed a drift): every
   * channel of the monitor, and the desktop app, is told which, once. Not held back by maintenance: a changed tool is
   * a security event, not an outage.
   */
  async function toolsDrifted(drift: { monitorId: number; workspaceId: number; at: string; changes: readonly ToolChange[] }): Promise<Alert | undefined> {
    const monitor = await findMonitor(db, drift.workspaceId, drift.monitorId);
    if (!monitor) return undefined;
    const changed = drift.changes.map(({ name, change }) => `${change} ${name}`);
    const message = `Tools changed since they were accepted: ${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ` and ${changed.length - 10} more` : ''}. Review and accept them in Statusdesk before an editor uses them again.`;
    return send(monitor, { kind: 'tool_drift', from: 'up', to: 'up', message, at: drift.at }, undefined, true);
  }

  /**
   * Alerts held back by a maintenance window that has ended, for monitors still down or
   * degraded: sent now, once, so a failure that outlasts the window is not kept quiet. A
   * monitor that recovered during the window had its recovery held back too, and is left alone.
   */
  async function releaseHeld(): Promise<Alert[]> {
    const held = await latestHeldFailures(db);
    const sent: Alert[] = [];
    for (const alert of held) {
      if ((await activeMaintenanceFor(db, alert.monitor_id)) !== undefined) continue;
      const monitor = await findMonitor(db, alert.workspace_id, alert.monitor_id);
      if (!monitor) continue;
      const kind = alert.kind as 'down' | 'degraded';
      const released = await send(
        monitor,
        { kind, from: 'up', to: kind, message: `${alert.message} (held back during maintenance, which has ended)`, at: new Date().toISOString() },
        undefined,
      );
      if (released) sent.push(released);
    }
    return sent;
  }

  /** Alerts still being sent in the background: closing waits for them (each delivery is bounded). */
  const inFlight = new Set<Promise<unknown>>();
  const inBackground = (work: Promise<unknown>, failed: string, context: object = {}) => {
    const settled: Promise<unknown> = work
      .catch((error: unknown) => options.log.error({ err: error, ...context }, failed))
      .finally(() => inFlight.delete(settled));
    inFlight.add(settled);
  };
  let releasing: NodeJS.Timeout | undefined;

  return {
    stateChanged,
    releaseHeld,
    toolsDrifted,

    /** A drift's alert goes out in the background, a failure logged. */
    toolsDriftedInBackground(drift: Parameters<typeof toolsDrifted>[0]): void {
      inBackground(toolsDrifted(drift), 'tool drift alert failed', { monitorId: drift.monitorId });
    },

    /** The check engine's state-change listener: the change's alert goes out in the background, a failure logged. */
    sendInBackground(change: MonitorStateChange): void {
      inBackground(stateChanged(change), 'alert failed', { monitorId: change.monitorId });
    },

    /** Releases held alerts every 30 s while `mine` says so (one process of those sharing a database), in the background, until closed. */
    start(mine: () => boolean = () => true): void {
      releasing ??= setInterval(() => {
        if (mine()) inBackground(releaseHeld(), 'releasing held alerts failed');
      }, RELEASE_HELD_EVERY_MS).unref();
    },

    /** Stops releasing held alerts and waits for the alerts still being sent. */
    async close(): Promise<void> {
      clearInterval(releasing);
      releasing = undefined;
      await Promise.all(inFlight);
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
