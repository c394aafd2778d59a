import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export async function insertUser(db: Kysely<Database>, name: string, at: string): Promise<number> {
  const { id } = await db.insertInto('users').values({ name, email: null, created_at: at }).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function findUserRow(db: Kysely<Database>, id: number) {
  return db.selectFrom('users').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
}

export async function userNames(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
}
