import { type Kysely, sql } from 'kysely';
import { isPostgres, schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// MCP server monitors. The monitor types, the alert kinds and the channel kinds are the domain's
// registries (server/domain/monitors/monitor-types.ts, domain/notifications/events.ts,
// delivery/channels/registry.ts), their one home: the columns stop listing them, so a new type or
// kind needs no migration. SQLite cannot drop a
// constraint: the table is made again without it, with foreign keys off for the migration
// (server/db/open.ts), so that dropping the old table deletes nothing that refers to it.
/** A column whose check lists what the domain's registries now decide, and the column without it. */
const LISTED: [table: string, column: string, index: string, indexed: string[]][] = [
  ['monitors', `"type" text not null check (type in ('tcp', 'grpc', 'http'))`, 'monitors_workspace', ['workspace_id', 'id']],
  ['alerts', `"kind" text not null check (kind in ('down', 'recovered', 'degraded'))`, 'alerts_monitor', ['monitor_id', 'id']],
  [
    'notification_channels',
    `"kind" text not null check (kind in ('webhook', 'slack', 'discord', 'email', 'ntfy', 'desktop'))`,
    'notification_channels_workspace',
    ['workspace_id', 'id'],
  ],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  for (const [table, column, index, indexed] of LISTED) {
    const name = column.slice(1, column.indexOf('"', 1));
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.raw(`${table}_${name}_check`)}`.execute(db);
      continue;
    }
    const { rows: keys } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    if (keys[0]?.foreign_keys !== 0) throw new Error('runs only with foreign keys off: dropping the old table would delete what refers to it');
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
    const create = rows[0]!.sql;
    if (!create.includes(column)) throw new Error(`the ${table} table is not as expected: ${create}`);
    const { rows: sequence } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db);
    const without = create.replace(`CREATE TABLE "${table}"`, `CREATE TABLE "${table}_new"`).replace(column, `"${name}" text not null`);
    await sql.raw(without).execute(db);
    await sql`insert into ${sql.table(`${table}_new`)} select * from ${sql.table(table)}`.execute(db);
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(`${table}_new`)} rename to ${sql.table(table)}`.execute(db);
    // Ids of deleted rows are never given again: the counter goes on from where it was.
    if (sequence[0]) await sql`update sqlite_sequence set seq = ${sequence[0].seq} where name = ${table}`.execute(db);
    else await sql`delete from sqlite_sequence where name = ${table}`.execute(db);
    await db.schema.createIndex(index).on(table).columns(indexed).execute();
  }

  // The tools of an MCP server as the monitor's owner accepted them: the first successful check
  // pins them (trust on first use), and accepting a drift pins the new set. JSON
  // [{name, fingerprint, text}], by name.
  await db.schema
    .createTable('mcp_tool_pins')
    .addColumn('monitor_id', t.integer, (c) => c.primaryKey().references('monitors.id').onDelete('cascade'))
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('pinned_at', 'text', (c) => c.notNull())
    .addColumn('pinned_by', 'text', (c) => c.notNull())
    .execute();
  // A check found tools other than the pinned ones. Open (accepted_at NULL) until the owner
  // accepts the new set; a monitor has at most one open drift, which later checks update.
  await db.schema
    .createTable('mcp_tool_drifts')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by', 'text')
    .execute();
  await db.schema.createIndex('mcp_tool_drifts_monitor').on('mcp_tool_drifts').columns(['monitor_id', 'id']).execute();
}
