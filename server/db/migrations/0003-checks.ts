import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // Runners, stored as private locations. The embedded runner is the first and serves every region.
  await db.schema
    .createTable('private_locations')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'error')`))
    .addColumn('metadata', 'text', (c) => c.notNull())
    // JSON array of the regions the runner serves; NULL serves every region.
    .addColumn('regions', 'text')
    // SHA-256 of the agent token of a remote runner; the embedded runner has none.
    .addColumn('token_hash', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into private_locations (name, status, metadata, created_at)
    values ('local', 'active', ${JSON.stringify({ kind: 'embedded' })}, ${new Date().toISOString()})`.execute(db);

  // One row per check. Times are epoch milliseconds: these rows are many, and integers are small.
  await db.schema
    .createTable('check_results')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('runner', 'text', (c) => c.notNull())
    // JSON array: the regions this check stands for (those its runner served).
    .addColumn('regions', 'text', (c) => c.notNull())
    .addColumn('started_at', t.integer, (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull().check(sql`result in ('up', 'degraded', 'down')`))
    .addColumn('latency_ms', t.double, (c) => c.notNull())
    .addColumn('dns_ms', t.double)
    .addColumn('connect_ms', t.double)
    .addColumn('tls_ms', t.double)
    .addColumn('ttfb_ms', t.double)
    .addColumn('transfer_ms', t.double)
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('grpc_status', 'text')
    .addColumn('status_code', t.integer)
    // HTTP checks: JSON {url, responseHeaders, assertionResults}.
    .addColumn('details', 'text')
    .execute();
  await db.schema.createIndex('check_results_monitor').on('check_results').columns(['monitor_id', 'started_at']).execute();
  await db.schema.createIndex('check_results_started').on('check_results').column('started_at').execute();

  // Hourly rollups: counts and a latency histogram per monitor and hour, so summaries never
  // scan raw results.
  await sql`create table check_rollups (
    monitor_id ${t.integer} not null references monitors(id) on delete cascade,
    hour ${t.integer} not null,
    success_count ${t.integer} not null,
    degraded_count ${t.integer} not null,
    error_count ${t.integer} not null,
    latency ${t.blob} not null,
    last_ping_at ${t.integer} not null,
    primary key (monitor_id, hour)
  )${t.withoutRowid}`.execute(db);

  // The latest check of each monitor by each runner: current health without a search.
  await sql`create table check_state (
    monitor_id ${t.integer} not null references monitors(id) on delete cascade,
    runner text not null,
    result text not null,
    regions text not null,
    checked_at ${t.integer} not null,
    primary key (monitor_id, runner)
  )${t.withoutRowid}`.execute(db);

  // Spans of time in which a runner checked nothing (machine asleep, service stopped, clock jump).
  await db.schema
    .createTable('check_gaps')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('runner', 'text', (c) => c.notNull())
    .addColumn('started_at', t.integer, (c) => c.notNull())
    .addColumn('ended_at', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('check_gaps_ended').on('check_gaps').column('ended_at').execute();
}
