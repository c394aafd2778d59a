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
