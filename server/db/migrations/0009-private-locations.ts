import type { Kysely } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // Remote runners belong to a workspace; the embedded runner (workspace NULL) serves them all.
  await db.schema
    .alterTable('private_locations')
    .addColumn('workspace_id', t.integer, (c) => c.references('workspaces.id').onDelete('cascade'))
    .execute();
  // The first characters of the agent token, to find its row; the token itself is only hashed.
  await db.schema.alterTable('private_locations').addColumn('token_prefix', 'text').execute();
  // What the runner said of itself when it last connected.
  await db.schema.alterTable('private_locations').addColumn('runner_version', 'text').execute();
  await db.schema.alterTable('private_locations').addColumn('runner_hostname', 'text').execute();
  // The runner instance (its buffer) whose results were last stored, and the highest sequence of
  // that instance stored: a batch sent again after a lost answer is stored once.
  await db.schema.alterTable('private_locations').addColumn('runner_instance', 'text').execute();
  await db.schema
    .alterTable('private_locations')
    .addColumn('last_sequence', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  // Results the runner dropped because its buffer was full: its running total, as last reported.
  await db.schema
    .alterTable('private_locations')
    .addColumn('dropped_results', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('private_locations_token_prefix').on('private_locations').column('token_prefix').execute();
  await db.schema.createIndex('private_locations_workspace').on('private_locations').column('workspace_id').execute();

  // The private locations a monitor is checked from, besides its regions.
  await db.schema
    .createTable('monitor_private_locations')
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('location_id', t.integer, (c) => c.notNull().references('private_locations.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('monitor_private_locations_pk', ['monitor_id', 'location_id'])
    .execute();
  await db.schema.createIndex('monitor_private_locations_location').on('monitor_private_locations').column('location_id').execute();
}
