import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { hashSecret, newSecret } from '../secrets.ts';
import { deleteDashboardToken, deleteExpiredDashboardTokens, insertDashboardToken, liveTokenUser, takeDashboardToken } from './session-repository.ts';

/** A sign-in link works once, within this time. */
const SIGN_IN_TTL_MS = 15 * 60_000;
/**
 * A dashboard session lasts this long after sign-in. Kept short because browsers send cookies to
 * every port of a host: another local server visited in the same browser would see it.
 */
export const SESSION_TTL_MS = 12 * 3_600_000;

/**
 * A session is two random secrets: one for the browser's cookie jar, one for the page's own
 * storage. Browsers send `localhost` cookies to every port, so any other local server the owner
 * visits receives the cookie; the page token is kept in the dashboard origin's session storage,
 * which no other origin can read, and nothing in it is derived from the cookie. Only the hash of
 * the pair is stored: neither half alone finds the session.
 */
function sessionHash(cookieSecret: string, pageToken: string): string {
  return hashSecret(`${cookieSecret}.${pageToken}`);
}

/**
 * Dashboard sign-in for the owner of the machine: the service mints a one-time link at start;
 * redeeming it yields a session, a secret for the cookie and a token for the page. Links and
 * sessions are stored only as hashes.
 */
export function createSessionService(db: Kysely<Database>) {
  async function store(hash: string, kind: 'signin' | 'session', userId: number, ttlMs: number): Promise<void> {
    const now = Date.now();
    await insertDashboardToken(db, {
      hash,
      kind,
      userId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
    });
  }

  return {
    async createSignInToken(userId: number): Promise<string> {
      const token = newSecret('');
      await store(hashSecret(token), 'signin', userId, SIGN_IN_TTL_MS);
      return token;
    },

    /**
     * Exchanges a sign-in token for a session: the secret for the cookie and the token for the page.
     * A used, expired or unknown sign-in token gives undefined.
     */
    async redeemSignIn(token: string): Promise<{ secret: string; token: string } | undefined> {
      const now = new Date().toISOString();
      const row = await takeDashboardToken(db, hashSecret(token), 'signin');
      if (!row || row.expires_at <= now) return undefined;
      const secret = newSecret('');
      const pageToken = newSecret('');
      await store(sessionHash(secret, pageToken), 'session', row.user_id, SESSION_TTL_MS);
      return { secret, token: pageToken };
    },

    /** The person of a live session; both halves are needed (the cookie's secret and the page's token). */
    async resolveSession(secret: string, token: string): Promise<Actor | undefined> {
      const userId = await liveTokenUser(db, sessionHash(secret, token), 'session', new Date().toISOString());
      return userId === undefined ? undefined : { type: 'user', userId, surface: 'dashboard' };
    },

    async endSession(secret: string, token: string): Promise<void> {
      await deleteDashboardToken(db, sessionHash(secret, token));
    },

    /** Drops expired links and sessions; run at start. */
    async prune(): Promise<void> {
      await deleteExpiredDashboardTokens(db, new Date().toISOString());
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
