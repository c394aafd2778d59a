import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.ts';
import { activeMaintenanceFor } from '../maintenance/maintenances.ts';
import type { MonitorStateChange } from '../monitors/checks.ts';
import { findMonitor, type Monitor } from '../monitors/monitor-repository.ts';
import type { ChannelTarget } from './channel-rules.ts';
import { reasonOf } from './channels.ts';
import type { AlertEvent } from './events.ts';

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
  log: Logger;
}

const targetOf = (monitor: Monitor) => (monitor.type === 'http' ? monitor.url : monitor.uri);

/**
 * Monitor alerts: each change of a monitor's overall result (the check engine emits one per
 * change) goes to every channel wired to the monitor, unless an active maintenance window covers
 * it. Each alert is recorded with what became of it.
 */
export function createAlertService(db: Kysely<Database>, options: AlertServiceOptions) {
  return {
    async stateChanged(change: MonitorStateChange): Promise<Alert | undefined> {
      const monitorId = Number(change.monitorId);
      const workspaceId = Number(change.workspaceId);
      const monitor = await findMonitor(db, workspaceId, monitorId);
      if (!monitor) return undefined; // deleted while its check ran
      const suppressedBy = await activeMaintenanceFor(db, monitorId);
      let deliveries: Alert['deliveries'] = [];
      if (suppressedBy === undefined) {
        const workspace = await db.selectFrom('workspaces').select(['slug', 'name']).where('id', '=', workspaceId).executeTakeFirstOrThrow();
        const event: AlertEvent = {
          kind: change.kind,
          monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: targetOf(monitor) },
          from: change.from,
          to: change.to,
          message: change.message,
          at: change.at,
          workspace,
        };
        const targets = await options.targetsOf(monitorId);
        deliveries = await Promise.all(
          targets.map(({ id, target }) =>
            (target instanceof Error ? Promise.reject(target) : options.deliver(target, event)).then(
              () => ({ channelId: String(id), ok: true, error: null }),
              (error: unknown) => {
                options.log.warn({ err: error, channelId: id, monitorId }, 'alert delivery failed');
                return { channelId: String(id), ok: false, error: reasonOf(error) };
              },
            ),
          ),
        );
      }
      const row = await db
        .insertInto('alerts')
        .values({
          monitor_id: monitorId,
          kind: change.kind,
          message: change.message,
          occurred_at: change.at,
          suppressed_by: suppressedBy ?? null,
          deliveries: JSON.stringify(deliveries),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
        .catch(() => undefined); // the monitor was deleted meanwhile
      if (!row) return undefined;
      return {
        id: String(row.id),
        monitorId: String(monitorId),
        kind: change.kind,
        message: change.message,
        occurredAt: change.at,
        suppressedBy: suppressedBy === undefined ? null : String(suppressedBy),
        deliveries,
      };
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
