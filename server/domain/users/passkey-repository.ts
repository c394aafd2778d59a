import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

const COLUMNS = ['id', 'user_id', 'public_key', 'counter', 'transports', 'name', 'created_at', 'last_used_at'] as const;

export async function insertPasskey(
  db: Kysely<Database>,
  row: { id: string; userId: number; publicKey: string; counter: number; transports: string; name: string; createdAt: string },
): Promise<void> {
  await db
    .insertInto('passkeys')
    .values({
      id: row.id,
      user_id: row.userId,
      public_key: row.publicKey,
      counter: row.counter,
      transports: row.transports,
      name: row.name,
      created_at: row.createdAt,
      last_used_at: null,
    })
    .execute();
}

/** A person's passkeys, oldest first. */
export async function passkeysOf(db: Kysely<Database>, userId: number) {
  return db.selectFrom('passkeys').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function findPasskey(db: Kysely<Database>, id: string) {
  return db.selectFrom('passkeys').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/**
 * Records a use of a passkey: its new counter and when. Only when the counter is still the one the
 * signature was checked against, so two sign-ins racing with one answer do not both pass.
 */
export async function recordPasskeyUse(db: Kysely<Database>, id: string, seenCounter: number, counter: number, at: string): Promise<boolean> {
  const updated = await db
    .updateTable('passkeys')
    .set({ counter, last_used_at: at })
    .where('id', '=', id)
    .where('counter', '=', seenCounter)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** Deletes one of a person's passkeys; what it was, or undefined when they have none of that id. */
export async function deletePasskey(db: Kysely<Database>, userId: number, id: string) {
  return db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).returning(['id', 'name']).executeTakeFirst();
}
