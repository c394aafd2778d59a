import type { Kysely } from 'kysely';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// A maintenance window may repeat (weekly, monthly or by a cron expression, in a time zone, with
// an optional end date). `repeat_rule` holds the rule as JSON; null is a one-off window, as every
// window before this migration. For a repeating window `starts_at` is its first occurrence and
// `ends_at` the latest moment one can end (the end date plus the duration, or the last instant of
// year 9999 without an end date), so the index on ends_at still narrows the windows to look at.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('maintenances').addColumn('repeat_rule', 'text').execute();
}
