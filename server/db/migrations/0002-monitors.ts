import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // AUTOINCREMENT: the id of a deleted monitor is never handed to a new one, so an old id in a
  // script or an audit entry can never point at a different monitor.
  await db.schema
    .createTable('monitors')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('tcp', 'grpc', 'http')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('active', t.integer, (c) => c.notNull())
    .addColumn('periodicity', 'text', (c) => c.notNull())
    .addColumn('regions', 'text', (c) => c.notNull())
    .addColumn('timeout_ms', t.integer, (c) => c.notNull())
    .addColumn('degraded_ms', t.integer)
    .addColumn('retry', t.integer, (c) => c.notNull())
    .addColumn('open_telemetry', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('revision', t.integer, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitors_workspace').on('monitors').columns(['workspace_id', 'id']).execute();
}
