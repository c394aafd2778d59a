import type { Kysely } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// Where alerts go and how channels fare. A channel chooses the events it receives (`events`: a
// JSON array of event names; NULL receives every event). Each channel keeps how its deliveries
// go: failures in a row, the last error and when, the last success, and until when a channel
// that keeps failing is backed off. A monitor may remind its channels while it stays down
// (`remind_every_ms`; NULL: never).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema.alterTable('notification_channels').addColumn('events', 'text').execute();
  await db.schema
    .alterTable('notification_channels')
    .addColumn('failures', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('notification_channels').addColumn('last_error', 'text').execute();
  await db.schema.alterTable('notification_channels').addColumn('last_failed_at', 'text').execute();
  await db.schema.alterTable('notification_channels').addColumn('last_sent_at', 'text').execute();
  await db.schema.alterTable('notification_channels').addColumn('backoff_until', 'text').execute();
  await db.schema.alterTable('monitors').addColumn('remind_every_ms', t.integer).execute();
}
