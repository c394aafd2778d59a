import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// A monitor's public status badges (SVG images for READMEs): off unless its owner turns them on.
// `badge_id` is the unguessable part of the badges' address (never the monitor's numeric id); the
// row stays when badges are turned off, so turning them on again keeps the address unless the
// owner asks for a new one. Deleting the monitor deletes its row, and the address names nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .createTable('monitor_badges')
    .addColumn('monitor_id', t.integer, (c) => c.primaryKey().references('monitors.id').onDelete('cascade'))
    .addColumn('badge_id', 'text', (c) => c.notNull().unique())
    .addColumn('enabled', t.integer, (c) => c.notNull().check(sql`enabled in (0, 1)`))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
