import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { derivedSecret, hashSecret, newSecret, sameSecret } from '../secrets.ts';
import { deleteDashboardToken, deleteExpiredDashboardTokens, insertDashboardToken, liveTokenUser, takeDashboardToken } from './session-repository.ts';

/** A sign-in link works once, within this time. */
const SIGN_IN_TTL_MS = 15 * 60_000;
/**
 * A dashboard session lasts this long after sign-in. Kept short because browsers send cookies to
 * every port of a host: another local server visited in the same browser would see it.
 */
export const SESSION_TTL_MS = 12 * 3_600_000;

/**
 * The second half of a dashboard session, held by the page rather than the browser's cookie jar:
 * browsers send `localhost` cookies to every port, so any other local server the owner visits
 * receives the cookie, but not this token, which the page keeps in its own origin's storage.
 */
function sessionToken(sessionSecret: string): string {
  return derivedSecret(sessionSecret, 'statusdesk dashboard session');
}

/**
 * Dashboard sign-in for the owner of the machine: the service mints a one-time link at start,
 * redeeming it yields a session secret for a cookie. Both are stored only as hashes.
 */
export function createSessionService(db: Kysely<Database>) {
  async function mint(kind: 'signin' | 'session', userId: number, ttlMs: number): Promise<string> {
    const secret = newSecret('');
    const now = Date.now();
    await insertDashboardToken(db, {
      hash: hashSecret(secret),
      kind,
      userId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
    });
    return secret;
  }

  return {
    createSignInToken: (userId: number) => mint('signin', userId, SIGN_IN_TTL_MS),

    /**
     * Exchanges a sign-in token for a session: the secret for the cookie and the token for the page.
     * A used, expired or unknown sign-in token gives undefined.
     */
    async redeemSignIn(token: string): Promise<{ secret: string; token: string } | undefined> {
      const now = new Date().toISOString();
      const row = await takeDashboardToken(db, hashSecret(token), 'signin');
      if (!row || row.expires_at <= now) return undefined;
      const secret = await mint('session', row.user_id, SESSION_TTL_MS);
      return { secret, token: sessionToken(secret) };
    },

    /** The person of a live session; both halves are needed (the cookie's secret and the page's token). */
    async resolveSession(secret: string, token: string): Promise<Actor | undefined> {
      if (!sameSecret(token, sessionToken(secret))) return undefined;
      const userId = await liveTokenUser(db, hashSecret(secret), 'session', new Date().toISOString());
      return userId === undefined ? undefined : { type: 'user', userId, surface: 'dashboard' };
    },

    async endSession(secret: string): Promise<void> {
      await deleteDashboardToken(db, hashSecret(secret));
    },

    /** Drops expired links and sessions; run at start. */
    async prune(): Promise<void> {
      await deleteExpiredDashboardTokens(db, new Date().toISOString());
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
