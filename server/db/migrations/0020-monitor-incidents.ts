import type { Kysely } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// A monitor's incidents: each span in which it was down, opened by the check that found it down
// and closed by the first that found it no longer down. Times are epoch milliseconds, as the
// checks' own; `ended_at` and `failed_checks` are null while the incident is open (its failed
// checks are then counted from the checks themselves). `first_message` is the reason the first
// failed check gave. The service keeps the latest incidents of each monitor and deletes older
// ones as it opens new ones; deleting the monitor deletes them all.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .createTable('monitor_incidents')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('started_at', t.integer, (c) => c.notNull())
    .addColumn('ended_at', t.integer)
    .addColumn('failed_checks', t.integer)
    .addColumn('first_message', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitor_incidents_monitor').on('monitor_incidents').columns(['monitor_id', 'started_at']).execute();
}
