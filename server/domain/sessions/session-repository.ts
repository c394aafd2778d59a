import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type TokenKind = 'signin' | 'session';

export async function insertDashboardToken(
  db: Kysely<Database>,
  token: {
    hash: string;
    kind: TokenKind;
    userId: number;
    createdAt: string;
    expiresAt: string;
    /** A session's: its public id, how it was opened, and the browser's User-Agent. */
    session?: { publicId: string; method: string; userAgent: string | null };
  },
): Promise<void> {
  await db
    .insertInto('dashboard_tokens')
    .values({
      token_hash: token.hash,
      kind: token.kind,
      user_id: token.userId,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
      public_id: token.session?.publicId ?? null,
      method: token.session?.method ?? null,
      user_agent: token.session?.userAgent ?? null,
    })
    .execute();
}

/** A person's live sessions, newest first. */
export async function liveSessionRows(db: Kysely<Database>, userId: number, now: string) {
  return db
    .selectFrom('dashboard_tokens')
    .select(['token_hash', 'public_id', 'method', 'user_agent', 'created_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'session')
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Ends a person's session by its public id; whether there was one. */
export async function deleteSessionByPublicId(db: Kysely<Database>, userId: number, publicId: string): Promise<boolean> {
  const gone = await db
    .deleteFrom('dashboard_tokens')
    .where('user_id', '=', userId)
    .where('kind', '=', 'session')
    .where('public_id', '=', publicId)
    .returning('token_hash')
    .executeTakeFirst();
  return gone !== undefined;
}

/** The workspaces a person is a member of (a sign-in is audited in each). */
export async function workspaceIdsOf(db: Kysely<Database>, userId: number): Promise<number[]> {
  return (await db.selectFrom('memberships').select('workspace_id').where('user_id', '=', userId).execute()).map((r) => r.workspace_id);
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
