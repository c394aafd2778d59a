import type { Kysely } from 'kysely';
import type { AlertTable, Database } from '../../db/schema.ts';

/** Records an alert with what became of it; rejects when its monitor is gone. */
export async function insertAlert(
  db: Kysely<Database>,
  values: { monitorId: number; kind: AlertTable['kind']; message: string; at: string; suppressedBy: number | null; deliveries: unknown[] },
): Promise<number> {
  const row = await db
    .insertInto('alerts')
    .values({
      monitor_id: values.monitorId,
      kind: values.kind,
      message: values.message,
      occurred_at: values.at,
      suppressed_by: values.suppressedBy,
      deliveries: JSON.stringify(values.deliveries),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The latest alert of each monitor, where a maintenance window held it back and it said down or degraded. */
export async function latestHeldFailures(db: Kysely<Database>) {
  return db
    .selectFrom('alerts as a')
    .innerJoin(
      db
        .selectFrom('alerts')
        .select((eb) => ['monitor_id', eb.fn.max('id').as('latest')])
        .groupBy('monitor_id')
        .as('l'),
      'l.latest',
      'a.id',
    )
    .innerJoin('monitors as m', 'm.id', 'a.monitor_id')
    .select(['a.monitor_id', 'a.kind', 'a.message', 'm.workspace_id'])
    .where('a.suppressed_by', 'is not', null)
    .where('a.kind', 'in', ['down', 'degraded'])
    .execute();
}

/**
 * When the monitor's current failure began: its first down or degraded alert since it last
 * recovered (held alerts count: they are recorded too); undefined when there is none.
 */
export async function failingSince(db: Kysely<Database>, monitorId: number): Promise<string | undefined> {
  const recovered = db
    .selectFrom('alerts')
    .select((eb) => eb.fn.coalesce(eb.fn.max('id'), eb.lit(0)).as('id'))
    .where('monitor_id', '=', monitorId)
    .where('kind', '=', 'recovered');
  const row = await db
    .selectFrom('alerts')
    .select((eb) => eb.fn.min('occurred_at').as('since'))
    .where('monitor_id', '=', monitorId)
    .where('kind', 'in', ['down', 'degraded'])
    .where('id', '>', recovered)
    .executeTakeFirst();
  return row?.since ?? undefined;
}

/**
 * Active monitors that remind their channels, down or degraded now, with when their state began
 * and when they last alerted: the reminder sweep picks those due.
 */
export async function monitorsToRemind(db: Kysely<Database>) {
  return db
    .selectFrom('monitors as m')
    .innerJoin('monitor_state as s', 's.monitor_id', 'm.id')
    .select((eb) => [
      'm.id',
      'm.workspace_id',
      'm.remind_every_ms',
      's.state',
      's.changed_at',
      eb
        .selectFrom('alerts as a')
        .select((a) => a.fn.max('a.occurred_at').as('at'))
        .whereRef('a.monitor_id', '=', 'm.id')
        .as('last_alert_at'),
    ])
    .where('m.remind_every_ms', 'is not', null)
    .where('m.active', '=', 1)
    .where('s.state', 'in', ['down', 'degraded'])
    .execute();
}

/** Of these monitors, those down or degraded now, with the message of their latest alert. */
export async function stillFailing(db: Kysely<Database>, monitorIds: number[]) {
  if (monitorIds.length === 0) return [];
  return db
    .selectFrom('monitors as m')
    .innerJoin('monitor_state as s', 's.monitor_id', 'm.id')
    .select((eb) => [
      'm.id',
      'm.workspace_id',
      's.state',
      eb.fn
        .coalesce(eb.selectFrom('alerts as a').select('a.message').whereRef('a.monitor_id', '=', 'm.id').orderBy('a.id', 'desc').limit(1), eb.val('failing'))
        .as('message'),
    ])
    .where('m.id', 'in', monitorIds)
    .where('s.state', 'in', ['down', 'degraded'])
    .execute();
}
