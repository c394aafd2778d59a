import type { Kysely } from 'kysely';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// The group a monitor is in on the overview: a name of up to 60 characters, '' for none. The
// overview orders and counts by it, within a workspace.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('monitors')
    .addColumn('group_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('monitors_workspace_group').on('monitors').columns(['workspace_id', 'group_name']).execute();
}
