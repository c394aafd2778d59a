import type { Insertable, Kysely } from 'kysely';
import type { Database, OAuthClientRow, OAuthClientTable } from '../../db/schema.ts';

export async function insertClient(db: Kysely<Database>, values: Insertable<OAuthClientTable>): Promise<void> {
  await db.insertInto('oauth_clients').values(values).execute();
}

export async function findRegisteredClient(db: Kysely<Database>, id: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).where('source', '=', 'registered').executeTakeFirst();
}

/**
 * Stores a client as approved at `at`: a client known by its metadata document is stored when
 * first approved, its name and redirect URIs following the document; the first approval is kept.
 */
export async function storeGrantedClient(
  db: Kysely<Database>,
  client: { id: string; source: 'registered' | 'metadata'; name: string; redirectUris: string[] },
  at: string,
): Promise<void> {
  const redirectUris = JSON.stringify(client.redirectUris);
  await db
    .insertInto('oauth_clients')
    .values({ id: client.id, source: client.source, name: client.name, redirect_uris: redirectUris, created_at: at, granted_at: at })
    .onConflict((oc) => oc.column('id').doUpdateSet({ name: client.name, redirect_uris: redirectUris }))
    .execute();
  await db.updateTable('oauth_clients').set({ granted_at: at }).where('id', '=', client.id).where('granted_at', 'is', null).execute();
}

/** Deletes registered clients created before `before` that were never approved. */
export async function deleteUnapprovedClients(db: Kysely<Database>, before: string): Promise<void> {
  await db.deleteFrom('oauth_clients').where('source', '=', 'registered').where('granted_at', 'is', null).where('created_at', '<', before).execute();
}

/** How many registered clients were never approved, and when the oldest of them registered. */
export async function unusedClientStats(db: Kysely<Database>): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('oauth_clients')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min<string>('created_at').as('oldest')])
    .where('source', '=', 'registered')
    .where('granted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest ?? null };
}

/** Deletes up to `count` of the oldest registered clients never approved that registered before `before`. */
export async function deleteOldestUnusedClients(db: Kysely<Database>, count: number, before: string): Promise<void> {
  const oldest = db
    .selectFrom('oauth_clients')
    .select('id')
    .where('source', '=', 'registered')
    .where('granted_at', 'is', null)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(count);
  await db.deleteFrom('oauth_clients').where('id', 'in', oldest).execute();
}
