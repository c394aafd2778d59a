import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import type { MonitorStateChange } from './check-results.ts';

/**
 * A monitor's incidents: each span in which it was down, as its detail lists them. The check
 * engine's state changes open and close them (a change to down opens one, the next change away
 * from down closes it); a degraded monitor still answers, so it opens none. The latest
 * INCIDENTS_KEPT of each monitor are kept.
 */

/** Incidents kept per monitor; older ones are deleted as new ones open. */
export const INCIDENTS_KEPT = 100;

export interface MonitorIncident {
  id: string;
  monitorId: string;
  startedAt: string;
  /** Null while the monitor is still down. */
  endedAt: string | null;
  /** Milliseconds from its start to its end, or to now while it is open. */
  durationMs: number;
  /** Checks that found the monitor down during the incident, by every runner. */
  failedChecks: number;
  /** Why the first failed check failed. */
  firstMessage: string;
}

interface IncidentOptions {
  log?: Logger;
  now?: () => number;
}

/** Monitor ids are positive integers; anything else names no monitor of the workspace. */
function monitorIdOf(id: string): number {
  const value = /^\d{1,15}$/.test(id) ? Number(id) : 0;
  if (value < 1) throw notFound('monitor', id);
  return value;
}

export function createMonitorIncidentService(db: Kysely<Database>, options: IncidentOptions = {}) {
  const now = options.now ?? Date.now;
  /**
   * State changes are handled one after another, in the order the engine announced them: a
   * recovery right after a failure closes the incident the failure opened.
   */
  let queue: Promise<void> = Promise.resolve();

  /** Failed checks of the monitor from `from` (inclusive) to `to` (exclusive), by every runner. */
  async function failedChecksBetween(monitorId: number, from: number, to: number): Promise<number> {
    const row = await db
      .selectFrom('check_results')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('monitor_id', '=', monitorId)
      .where('result', '=', 'down')
      .where('started_at', '>=', from)
      .where('started_at', '<', to)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function openIncident(monitorId: number) {
    return db
      .selectFrom('monitor_incidents')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('ended_at', 'is', null)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  async function record(change: MonitorStateChange): Promise<void> {
    const monitorId = Number(change.monitorId);
    const at = Date.parse(change.at);
    const isDown = change.to === 'down';
    if (isDown && change.from !== 'down') {
      // One open incident per monitor, even if a change is announced twice (another process, a restart).
      if (await openIncident(monitorId)) return;
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('monitor_incidents')
          .values({ monitor_id: monitorId, started_at: at, ended_at: null, failed_checks: null, first_message: change.message })
          .execute();
        const kept = tx.selectFrom('monitor_incidents').select('id').where('monitor_id', '=', monitorId).orderBy('id', 'desc').limit(INCIDENTS_KEPT);
        await tx.deleteFrom('monitor_incidents').where('monitor_id', '=', monitorId).where('id', 'not in', kept).execute();
      });
    } else if (!isDown) {
      // Any change away from down ends an open incident, also one whose `from` was lost (the
      // monitor's state dropped while paused or moved between runners): it was down until now.
      const open = await openIncident(monitorId);
      if (!open) return;
      // PostgreSQL may answer a bigint as text.
      const started = Number(open.started_at);
      const ended = Math.max(at, started);
      const failed = await failedChecksBetween(monitorId, started, ended);
      await db.updateTable('monitor_incidents').set({ ended_at: ended, failed_checks: failed }).where('id', '=', open.id).execute();
    }
  }

  return {
    /** The check engine's state changes land here (server/main.ts): opens and closes incidents. */
    stateChanged(change: MonitorStateChange): Promise<void> {
      const done = queue.then(() => record(change));
      queue = done.catch((error: unknown) => options.log?.error({ err: error, monitorId: change.monitorId }, 'recording an incident failed'));
      return done;
    },

    /** Resolves once every state change announced so far is recorded (tests, and a clean stop). */
    settled(): Promise<void> {
      return queue;
    },

    /** The monitor's incidents, newest first (at most INCIDENTS_KEPT). */
    async list(actor: Actor, workspaceId: number, id: string): Promise<MonitorIncident[]> {
      await authorize(db, actor, workspaceId, 'read');
      // The state changes this process has heard are recorded first: a check just made shows.
      await queue;
      const monitorId = monitorIdOf(id);
      const monitor = await db.selectFrom('monitors').select('id').where('workspace_id', '=', workspaceId).where('id', '=', monitorId).executeTakeFirst();
      if (!monitor) throw notFound('monitor', id);
      const rows = await db
        .selectFrom('monitor_incidents')
        .selectAll()
        .where('monitor_id', '=', monitorId)
        .orderBy('id', 'desc')
        .limit(INCIDENTS_KEPT)
        .execute();
      const t = now();
      return Promise.all(
        rows.map(async (row) => {
          const startedAt = Number(row.started_at);
          const endedAt = row.ended_at === null ? null : Number(row.ended_at);
          return {
            id: String(row.id),
            monitorId: String(row.monitor_id),
            startedAt: new Date(startedAt).toISOString(),
            endedAt: endedAt === null ? null : new Date(endedAt).toISOString(),
            durationMs: Math.max(0, (endedAt ?? t) - startedAt),
            failedChecks: row.failed_checks === null ? await failedChecksBetween(monitorId, startedAt, t + 1) : Number(row.failed_checks),
            firstMessage: row.first_message,
          };
        }),
      );
    },
  };
}

export type MonitorIncidentService = ReturnType<typeof createMonitorIncidentService>;
