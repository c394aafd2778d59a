import { createHash, createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OAuthScope } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { lastUsedRecorder } from '../last-used.ts';
import type { Actor, Surface } from '../actor.ts';
import { sealerOf } from '../sealing.ts';
import { ACCESS_TOKEN_PREFIX, hashSecret, newSecret, REFRESH_TOKEN_PREFIX, sameSecret } from '../secrets.ts';
import { markGrantUsed } from './grant-repository.ts';
import { revokeGrant, type RevokeReason } from './grants.ts';
import { OAuthError } from './oauth-error.ts';
import {
  accessTokenLookup,
  deleteExpiredTokens,
  findGrantOfToken,
  findGrantTokens,
  findTokenWithGrant,
  insertTokens,
  markTokenUsed,
} from './token-repository.ts';

/** An authorization code works once, within this time. */
const CODE_TTL_MS = 10 * 60_000;
/** Access tokens: 1 hour (SPEC 5.2). */
const ACCESS_TOKEN_TTL_MS = 3_600_000;
/** Refresh tokens: 90 days from their last use, rotated on every use (SPEC 5.2). */
const REFRESH_TOKEN_TTL_MS = 90 * 86_400_000;
/**
 * A refresh repeated this soon by the same client with the same refresh token gets the answer the
 * first one got, rather than counting as reuse: a client that refreshes from several requests at
 * once (or retries one whose answer it lost) keeps its grant. Later, reuse revokes the grant.
 */
export const REFRESH_REPEAT_MS = 10_000;
/** RFC 7636: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The RFC 6749 token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: OAuthScope;
}

/** The PKCE S256 transform of a verifier (RFC 7636). */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export interface TokenOptions {
  /** The resource a token works for at each surface; a grant for the issuer itself works at all of them. */
  issuer: string;
}

/** Codes, access and refresh tokens: issued, exchanged, rotated, recognised when replayed, and resolved to an actor. */
export function createTokenService(db: Kysely<Database>, options: TokenOptions) {
  const { issuer } = options;
  const lookUpAccessToken = accessTokenLookup(db);
  const touch = lastUsedRecorder((id, at) => markGrantUsed(db, id, at));
  const system = (surface: Surface): Actor => ({ type: 'system', surface });

  let successorKey: string | undefined;
  /**
   * The pair a refresh token is exchanged for: HMAC-SHA256 of the retired token under a key derived
   * from the service's sealing key, so that a repeat within the window is given the same pair again
   * while the database keeps only their hashes. Without the retired token (never stored) and the
   * key (outside the database) nobody can compute it.
   */
  function successorOf(refreshToken: string): { access: string; refresh: string } {
    successorKey ??= sealerOf(db).token('oauth:refresh-successor');
    const derive = (kind: string) => createHmac('sha256', successorKey!).update(`${kind}\0${refreshToken}`).digest('base64url');
    return { access: ACCESS_TOKEN_PREFIX + derive('access'), refresh: REFRESH_TOKEN_PREFIX + derive('refresh') };
  }

  async function issuePair(
    trx: Kysely<Database>,
    grantId: number,
    scope: OAuthScope,
    refreshScope: OAuthScope,
    secrets = { access: newSecret(ACCESS_TOKEN_PREFIX), refresh: newSecret(REFRESH_TOKEN_PREFIX) },
  ): Promise<TokenResponse> {
    const now = Date.now();
    const { access, refresh } = secrets;
    const common = { grant_id: grantId, redirect_uri: null, code_challenge: null, created_at: new Date(now).toISOString(), used_at: null };
    await insertTokens(trx, [
      { ...common, token_hash: hashSecret(access), kind: 'access', scope, expires_at: new Date(now + ACCESS_TOKEN_TTL_MS).toISOString() },
      { ...common, token_hash: hashSecret(refresh), kind: 'refresh', scope: refreshScope, expires_at: new Date(now + REFRESH_TOKEN_TTL_MS).toISOString() },
    ]);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refresh, scope };
  }

  /** A reused code or refresh token: the grant it belongs to is revoked, in its own transaction, before refusing. */
  async function refuseReuse(grantId: number, reason: RevokeReason, description: string): Promise<never> {
    await writeTransaction(db, (trx) => revokeGrant(trx, grantId, system('rest'), reason));
    throw new OAuthError('invalid_grant', description);
  }

  const findToken = (kind: 'code' | 'refresh', secret: string) => findTokenWithGrant(db, kind, hashSecret(secret));
  type RefreshRow = NonNullable<Awaited<ReturnType<typeof findToken>>>;
  type RefreshInput = { refreshToken: string; clientId: string; scope?: OAuthScope; resource?: string };

  /** What a refresh may not ask of its grant: more than read when it holds read, another resource. */
  function checkRefreshRequest(row: RefreshRow, input: RefreshInput): void {
    if (input.scope === 'write' && row.scope !== 'write')
      throw new OAuthError('invalid_scope', 'this connection was approved for read only; write cannot be added by a refresh');
    if (input.resource !== undefined && input.resource !== row.resource) {
      throw new OAuthError('invalid_target', `resource must be ${row.resource}, the resource that was authorized`);
    }
  }

  /**
   * The answer a refresh with this used token got, when this one repeats it within the window, by
   * the same client, and the pair it got is still live; otherwise undefined (reuse).
   */
  async function repeatedRefresh(q: Kysely<Database>, row: RefreshRow, input: RefreshInput): Promise<TokenResponse | undefined> {
    const now = Date.now();
    if (row.used_at === null || now - Date.parse(row.used_at) > REFRESH_REPEAT_MS) return undefined;
    if (row.revoked_at || !sameSecret(row.client_id, input.clientId)) return undefined;
    checkRefreshRequest(row, input);
    const next = successorOf(input.refreshToken);
    const issued = await findGrantTokens(q, row.grant_id, [hashSecret(next.access), hashSecret(next.refresh)]);
    const access = issued.find((t) => t.kind === 'access');
    if (!access || !issued.some((t) => t.kind === 'refresh')) return undefined;
    const expiresIn = Math.max(0, Math.floor((Date.parse(access.expires_at) - now) / 1000));
    return { access_token: next.access, token_type: 'Bearer', expires_in: expiresIn, refresh_token: next.refresh, scope: access.scope };
  }

  /** Marks a code or refresh token used; false when another request used it first. */
  const claim = (trx: Kysely<Database>, tokenHash: string) => markTokenUsed(trx, tokenHash, new Date().toISOString());

  return {
    /** Mints the code a person's approval is collected as; only its hash is kept. */
    async issueCode(trx: Kysely<Database>, grantId: number, values: { redirectUri: string; codeChallenge: string; scope: OAuthScope }): Promise<string> {
      const code = newSecret('');
      const now = Date.now();
      await insertTokens(trx, {
        token_hash: hashSecret(code),
        kind: 'code',
        grant_id: grantId,
        redirect_uri: values.redirectUri,
        code_challenge: values.codeChallenge,
        scope: values.scope,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + CODE_TTL_MS).toISOString(),
        used_at: null,
      });
      return code;
    },

    /** The authorization_code grant: the code once, for its client, redirect URI, verifier and resource. */
    async exchangeCode(input: { code: string; clientId: string; redirectUri: string; codeVerifier: string; resource?: string }): Promise<TokenResponse> {
      const row = await findToken('code', input.code);
      if (!row) throw new OAuthError('invalid_grant', 'the code is not valid: unknown, or from another server');
      if (row.used_at) return refuseReuse(row.grant_id, 'code_replayed', 'the code was already used; the grant it produced is revoked');
      if (row.revoked_at) throw new OAuthError('invalid_grant', 'the grant of this code was revoked');
      if (Date.parse(row.expires_at) <= Date.now()) throw new OAuthError('invalid_grant', 'the code has expired: codes work for 10 minutes; authorize again');
      if (!sameSecret(row.client_id, input.clientId)) throw new OAuthError('invalid_grant', 'the code was issued to another client');
      // RFC 6749 section 4.1.3: identical to the authorization request's; the loopback port leeway is for matching registrations only.
      if (row.redirect_uri !== input.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
      if (!VERIFIER.test(input.codeVerifier) || !sameSecret(s256(input.codeVerifier), row.code_challenge ?? '')) {
        throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge of the authorization request');
      }
      if (input.resource !== undefined && input.resource !== row.resource) {
        throw new OAuthError('invalid_target', `resource must be ${row.resource}, the resource that was authorized`);
      }
      return writeTransaction(db, async (trx) => {
        if (!(await claim(trx, row.token_hash)))
          return refuseReuse(row.grant_id, 'code_replayed', 'the code was already used; the grant it produced is revoked');
        return issuePair(trx, row.grant_id, row.scope, row.scope);
      });
    },

    /**
     * The refresh_token grant: rotates the refresh token. A retired one presented again revokes the
     * grant, unless it repeats a refresh of the last REFRESH_REPEAT_MS by the same client: that
     * gets the same answer.
     */
    async refresh(input: RefreshInput): Promise<TokenResponse> {
      const reused = 'the refresh token was already used; the grant is revoked, connect the app again';
      const row = await findToken('refresh', input.refreshToken);
      if (!row) throw new OAuthError('invalid_grant', 'the refresh token is not valid: unknown, revoked, or from another server');
      if (row.used_at) return (await repeatedRefresh(db, row, input)) ?? refuseReuse(row.grant_id, 'refresh_token_reused', reused);
      if (row.revoked_at) throw new OAuthError('invalid_grant', 'the grant of this refresh token was revoked');
      if (Date.parse(row.expires_at) <= Date.now()) throw new OAuthError('invalid_grant', 'the refresh token has expired: connect the app again');
      if (!sameSecret(row.client_id, input.clientId)) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
      checkRefreshRequest(row, input);
      const answer = await writeTransaction(db, async (trx) => {
        if (await claim(trx, row.token_hash)) return issuePair(trx, row.grant_id, input.scope ?? row.scope, row.scope, successorOf(input.refreshToken));
        // A refresh with the same token committed first (write transactions take turns): a repeat gets its answer.
        const claimed = await findTokenWithGrant(trx, 'refresh', row.token_hash);
        return claimed && repeatedRefresh(trx, claimed, input);
      });
      return answer ?? refuseReuse(row.grant_id, 'refresh_token_reused', reused);
    },

    /** RFC 7009: any token of a grant revokes the whole grant; an unknown token changes nothing. */
    async revoke(token: string): Promise<void> {
      const row = await findGrantOfToken(db, hashSecret(token));
      if (!row) return;
      const actor: Actor = {
        type: 'oauth',
        grantId: row.id,
        clientId: row.client_id,
        scopes: [row.scope],
        workspaceId: row.workspace_id,
        userId: row.user_id,
        surface: 'rest',
      };
      await writeTransaction(db, (trx) => revokeGrant(trx, row.id, actor, 'revoked'));
    },

    /**
     * Resolves a bearer access token used at `resource` to its actor, or undefined when it is not
     * live there (unknown, expired, revoked, or for another resource): the edge answers 401.
     */
    async authenticate(secret: string, surface: Surface, resource: string): Promise<Extract<Actor, { type: 'oauth' }> | undefined> {
      if (!secret.startsWith(ACCESS_TOKEN_PREFIX) || secret.length > 200) return undefined;
      const row = await lookUpAccessToken(hashSecret(secret));
      if (!row || Date.parse(row.expires_at) <= Date.now()) return undefined;
      if (row.resource !== issuer && row.resource !== resource) return undefined;
      await touch(row.id);
      return { type: 'oauth', grantId: row.id, clientId: row.client_id, scopes: [row.scope], workspaceId: row.workspace_id, userId: row.user_id, surface };
    },

    /** Drops expired codes and tokens. Used codes are kept until they expire, so a replay is recognised. */
    async prune(): Promise<void> {
      await deleteExpiredTokens(db, new Date().toISOString());
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
