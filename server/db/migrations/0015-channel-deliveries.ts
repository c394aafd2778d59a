import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// Channels for every monitor, and each channel's delivery log. A channel may receive the alerts
// of every monitor of its workspace, those created later included (`all_monitors`), and may be
// wired to each monitor created from now on (`default_for_new`); both 0 or 1. Each delivery to
// a channel leaves a row in `channel_deliveries`: when, which event and monitor, how it ended
// (`delivered`, `failed`, or `retrying` while attempts remain), the receiver's status code and
// the start of its answer (sanitized by the service), the error, and the attempts made. The
// service keeps the latest rows of each channel and deletes older ones as it writes.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .alterTable('notification_channels')
    .addColumn('all_monitors', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('notification_channels')
    .addColumn('default_for_new', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('channel_deliveries')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('channel_id', t.integer, (c) => c.notNull().references('notification_channels.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text')
    .addColumn('monitor_name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull().check(sql`result in ('delivered', 'failed', 'retrying')`))
    .addColumn('status_code', t.integer)
    .addColumn('response', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('channel_deliveries_channel').on('channel_deliveries').columns(['channel_id', 'id']).execute();
}
