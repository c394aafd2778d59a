import type { Kysely } from 'kysely';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  // What became of the latest page event sent to each subscriber: when its delivery ended, and
  // why it failed (NULL when it was delivered). A publishing call may answer before every
  // delivery is over; the rest complete in the background and record their outcome here. NULL
  // at both for a subscriber never sent anything.
  await db.schema.alterTable('page_subscribers').addColumn('last_delivery_at', 'text').execute();
  await db.schema.alterTable('page_subscribers').addColumn('last_delivery_error', 'text').execute();
}
