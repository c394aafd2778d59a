import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type TokenKind = 'signin' | 'session';

export async function insertDashboardToken(
  db: Kysely<Database>,
  token: { hash: string; kind: TokenKind; userId: number; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('dashboard_tokens')
    .values({ token_hash: token.hash, kind: token.kind, user_id: token.userId, created_at: token.createdAt, expires_at: token.expiresAt })
    .execute();
}

/** Deletes a token of this kind and returns what it held: a sign-in link is used once. */
export async function takeDashboardToken(db: Kysely<Database>, hash: string, kind: TokenKind) {
  return db.deleteFrom('dashboard_tokens').where('token_hash', '=', hash).where('kind', '=', kind).returning(['user_id', 'expires_at']).executeTakeFirst();
}

/** The user of a token of this kind that expires after `now`. */
export async function liveTokenUser(db: Kysely<Database>, hash: string, kind: TokenKind, now: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('dashboard_tokens')
    .select('user_id')
    .where('token_hash', '=', hash)
    .where('kind', '=', kind)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

export async function deleteDashboardToken(db: Kysely<Database>, hash: string): Promise<void> {
  await db.deleteFrom('dashboard_tokens').where('token_hash', '=', hash).execute();
}

export async function deleteExpiredDashboardTokens(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('dashboard_tokens').where('expires_at', '<=', now).execute();
}
