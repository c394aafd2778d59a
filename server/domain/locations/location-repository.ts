import type { Kysely } from 'kysely';
import type { Database, PrivateLocationRow } from '../../db/schema.ts';

/** The runner inside the service itself: the first private location, serving every region. */
export const EMBEDDED_RUNNER = 'local';

export async function runnerByName(db: Kysely<Database>, name: string): Promise<PrivateLocationRow | undefined> {
  return db.selectFrom('private_locations').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function markRunnerSeen(db: Kysely<Database>, name: string, at: string): Promise<void> {
  await db.updateTable('private_locations').set({ status: 'active', last_seen_at: at }).where('name', '=', name).execute();
}

/** A page of runners, oldest first (the embedded runner leads), with the total. */
export async function listLocationRows(db: Kysely<Database>, limit: number, offset: number) {
  const [rows, { total }] = await Promise.all([
    db.selectFrom('private_locations').selectAll().orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('private_locations').select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total };
}
