import type { Kysely } from 'kysely';
import { preparedOrQuery } from '../../db/open.ts';
import type { ApiKeyRow, Database, NewApiKey } from '../../db/schema.ts';

export async function findKeyRow(db: Kysely<Database>, id: number): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The workspace's keys, newest first, revoked ones included. */
export async function listKeyRows(db: Kysely<Database>, workspaceId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();
}

/**
 * Looks up the live keys whose secrets begin with a lookup prefix. Every call with a key passes
 * here: one prepared statement, not a query built each time.
 */
export function liveKeyLookup(db: Kysely<Database>): (prefix: string) => Promise<ApiKeyRow[]> {
  return preparedOrQuery(
    db,
    (sqlite) => {
      const lookup = sqlite.prepare<[string], ApiKeyRow>('select * from api_keys where prefix = ? and revoked_at is null');
      return (prefix: string) => lookup.all(prefix);
    },
    (prefix) => db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).where('revoked_at', 'is', null).execute(),
  );
}

export async function insertKey(db: Kysely<Database>, values: NewApiKey): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function markKeyRevoked(db: Kysely<Database>, id: number, at: string): Promise<ApiKeyRow> {
  return db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function markKeyUsed(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** The names of these keys, revoked ones included. */
export async function keyNames(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', ids).execute();
}
