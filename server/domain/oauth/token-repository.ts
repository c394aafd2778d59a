import type { Insertable, Kysely } from 'kysely';
import { preparedOrQuery } from '../../db/open.ts';
import type { Database, OAuthGrantRow, OAuthTokenRow, OAuthTokenTable } from '../../db/schema.ts';

export async function insertTokens(db: Kysely<Database>, values: Insertable<OAuthTokenTable> | Insertable<OAuthTokenTable>[]): Promise<void> {
  await db.insertInto('oauth_tokens').values(values).execute();
}

/** A code or refresh token with what its grant says about it. */
export async function findTokenWithGrant(db: Kysely<Database>, kind: 'code' | 'refresh', hash: string) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([
      't.token_hash',
      't.grant_id',
      't.redirect_uri',
      't.code_challenge',
      't.scope',
      't.expires_at',
      't.used_at',
      'g.client_id',
      'g.resource',
      'g.scope as grant_scope',
      'g.revoked_at',
    ])
    .where('t.token_hash', '=', hash)
    .where('t.kind', '=', kind)
    .executeTakeFirst();
}

/** The grant of a token of any kind. */
export async function findGrantOfToken(db: Kysely<Database>, hash: string) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select(['g.id', 'g.client_id', 'g.user_id', 'g.workspace_id', 'g.scope'])
    .where('t.token_hash', '=', hash)
    .executeTakeFirst();
}

/** The tokens of a grant among these hashes. */
export async function findGrantTokens(db: Kysely<Database>, grantId: number, hashes: string[]) {
  return db
    .selectFrom('oauth_tokens')
    .select(['token_hash', 'kind', 'scope', 'expires_at'])
    .where('grant_id', '=', grantId)
    .where('token_hash', 'in', hashes)
    .execute();
}

/** Marks a token used at `at`; false when it was used already. */
export async function markTokenUsed(db: Kysely<Database>, hash: string, at: string): Promise<boolean> {
  const result = await db.updateTable('oauth_tokens').set({ used_at: at }).where('token_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes a grant's access and refresh tokens; its codes stay until they expire, so a replay is recognised. */
export async function deleteGrantTokens(db: Kysely<Database>, grantId: number): Promise<void> {
  await db.deleteFrom('oauth_tokens').where('grant_id', '=', grantId).where('kind', '!=', 'code').execute();
}

export async function deleteExpiredTokens(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('oauth_tokens').where('expires_at', '<=', now).execute();
}

export type AccessTokenGrant = Pick<OAuthGrantRow, 'id' | 'client_id' | 'user_id' | 'workspace_id' | 'resource'> & Pick<OAuthTokenRow, 'scope' | 'expires_at'>;

/**
 * Looks up an access token's live grant by the token's hash. Every bearer call passes here: on
 * SQLite, prepared statements, one table each (a join costs several times as much there).
 */
export function accessTokenLookup(db: Kysely<Database>): (hash: string) => Promise<AccessTokenGrant | undefined> {
  return preparedOrQuery(
    db,
    (sqlite) => {
      const token = sqlite.prepare<[string], Pick<OAuthTokenRow, 'grant_id' | 'scope' | 'expires_at'>>(
        `select grant_id, scope, expires_at from oauth_tokens where token_hash = ? and kind = 'access'`,
      );
      const grant = sqlite.prepare<[number], Pick<OAuthGrantRow, 'id' | 'client_id' | 'user_id' | 'workspace_id' | 'resource'>>(
        `select id, client_id, user_id, workspace_id, resource from oauth_grants where id = ? and revoked_at is null`,
      );
      return (hash: string) => {
        const t = token.get(hash);
        const g = t && grant.get(t.grant_id);
        return g && { ...g, scope: t.scope, expires_at: t.expires_at };
      };
    },
    (hash) =>
      db
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['g.id', 'g.client_id', 'g.user_id', 'g.workspace_id', 'g.resource', 't.scope', 't.expires_at'])
        .where('t.token_hash', '=', hash)
        .where('t.kind', '=', 'access')
        .where('g.revoked_at', 'is', null)
        .executeTakeFirst(),
  );
}
