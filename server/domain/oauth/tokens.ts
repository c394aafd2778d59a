import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OAuthScope } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { lastUsedRecorder } from '../last-used.ts';
import type { Actor, Surface } from '../actor.ts';
import { ACCESS_TOKEN_PREFIX, hashSecret, newSecret, REFRESH_TOKEN_PREFIX, sameSecret } from '../secrets.ts';
import { markGrantUsed } from './grant-repository.ts';
import { revokeGrant, type RevokeReason } from './grants.ts';
import { OAuthError } from './oauth-error.ts';
import { accessTokenLookup, deleteExpiredTokens, findGrantOfToken, findTokenWithGrant, insertTokens, markTokenUsed } from './token-repository.ts';

/** An authorization code works once, within this time. */
const CODE_TTL_MS = 10 * 60_000;
/** Access tokens: 1 hour (SPEC 5.2). */
const ACCESS_TOKEN_TTL_MS = 3_600_000;
/** Refresh tokens: 90 days from their last use, rotated on every use (SPEC 5.2). */
const REFRESH_TOKEN_TTL_MS = 90 * 86_400_000;
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

  async function issuePair(trx: Kysely<Database>, grantId: number, scope: OAuthScope, refreshScope: OAuthScope): Promise<TokenResponse> {
    const now = Date.now();
    const access = newSecret(ACCESS_TOKEN_PREFIX);
    const refresh = newSecret(REFRESH_TOKEN_PREFIX);
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
        if (!(await claim(trx, row.token_hash))) return refuseReuse(row.grant_id, 'code_replayed', 'the code was already used; the grant it produced is revoked');
        return issuePair(trx, row.grant_id, row.scope, row.scope);
      });
    },

    /** The refresh_token grant: rotates the refresh token; a retired one presented again revokes the grant. */
    async refresh(input: { refreshToken: string; clientId: string; scope?: OAuthScope; resource?: string }): Promise<TokenResponse> {
      const row = await findToken('refresh', input.refreshToken);
      if (!row) throw new OAuthError('invalid_grant', 'the refresh token is not valid: unknown, revoked, or from another server');
      if (row.used_at) return refuseReuse(row.grant_id, 'refresh_token_reused', 'the refresh token was already used; the grant is revoked, connect the app again');
      if (row.revoked_at) throw new OAuthError('invalid_grant', 'the grant of this refresh token was revoked');
      if (Date.parse(row.expires_at) <= Date.now()) throw new OAuthError('invalid_grant', 'the refresh token has expired: connect the app again');
      if (!sameSecret(row.client_id, input.clientId)) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
      if (input.scope === 'write' && row.scope !== 'write') throw new OAuthError('invalid_scope', 'this connection was approved for read only; write cannot be added by a refresh');
      if (input.resource !== undefined && input.resource !== row.resource) {
        throw new OAuthError('invalid_target', `resource must be ${row.resource}, the resource that was authorized`);
      }
      return writeTransaction(db, async (trx) => {
        if (!(await claim(trx, row.token_hash))) return refuseReuse(row.grant_id, 'refresh_token_reused', 'the refresh token was already used; the grant is revoked, connect the app again');
        return issuePair(trx, row.grant_id, input.scope ?? row.scope, row.scope);
      });
    },

    /** RFC 7009: any token of a grant revokes the whole grant; an unknown token changes nothing. */
    async revoke(token: string): Promise<void> {
      const row = await findGrantOfToken(db, hashSecret(token));
      if (!row) return;
      const actor: Actor = { type: 'oauth', grantId: row.id, clientId: row.client_id, scopes: [row.scope], workspaceId: row.workspace_id, userId: row.user_id, surface: 'rest' };
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
