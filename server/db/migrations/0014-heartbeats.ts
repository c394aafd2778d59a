import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// Heartbeat (push) monitors. Each has one row in `heartbeats`: the SHA-256 of its secret ping
// token (the token itself is never stored), and its state as its pings left it, which the check
// engine reads to evaluate its deadline: the latest ping, the last success, a run started and not
// ended, a failure that stands until the next success, and the last run time measured. Times are
// epoch milliseconds, as check results' are. `heartbeat_pings` keeps the latest pings of each
// monitor (the service deletes older ones), with what the job posted.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .createTable('heartbeats')
    .addColumn('monitor_id', t.integer, (c) => c.primaryKey().references('monitors.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_issued_at', 'text', (c) => c.notNull())
    .addColumn('last_ping_at', t.integer)
    .addColumn('last_ping_kind', 'text')
    .addColumn('last_exit_status', t.integer)
    .addColumn('last_success_at', t.integer)
    .addColumn('started_at', t.integer)
    .addColumn('failed_at', t.integer)
    .addColumn('failure', 'text')
    .addColumn('last_run_ms', t.double)
    .execute();
  await db.schema
    .createTable('heartbeat_pings')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('success', 'start', 'fail')`))
    .addColumn('exit_status', t.integer)
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('received_at', t.integer, (c) => c.notNull())
    .addColumn('run_time_ms', t.double)
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('heartbeat_pings_monitor').on('heartbeat_pings').columns(['monitor_id', 'id']).execute();
}
