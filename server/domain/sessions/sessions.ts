import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { recordAudit } from '../audit/audit.ts';
import { hashSecret, newSecret } from '../secrets.ts';
import {
  deleteDashboardToken,
  deleteExpiredDashboardTokens,
  deleteSessionByPublicId,
  insertDashboardToken,
  liveSessionRows,
  liveTokenUser,
  takeDashboardToken,
  workspaceIdsOf,
} from './session-repository.ts';

/** How a session was opened: the owner's one-time link, an invitation, a passkey, or an OpenID Connect provider. */
export type SignInMethod = 'link' | 'invitation' | 'passkey' | 'oidc';

/** A session as its person lists it: never its secrets. */
export interface SessionInfo {
  id: string;
  method: SignInMethod;
  /** The browser that opened it, as it named itself. */
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  /** The session this list was asked from. */
  current: boolean;
}

/** A browser's User-Agent is kept to this length: enough to tell browsers apart. */
const USER_AGENT_LENGTH = 200;

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
  async function storeSignIn(hash: string, userId: number): Promise<void> {
    const now = Date.now();
    await insertDashboardToken(db, {
      hash,
      kind: 'signin',
      userId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + SIGN_IN_TTL_MS).toISOString(),
    });
  }

  /**
   * A new session of `userId`, opened by `method`: the secret for the cookie and the token for the
   * page. Audited as a sign-in in each workspace the person belongs to.
   */
  async function open(userId: number, method: SignInMethod, userAgent?: string): Promise<{ secret: string; token: string }> {
    const secret = newSecret('');
    const pageToken = newSecret('');
    const publicId = randomBytes(12).toString('base64url');
    const agent = userAgent ? userAgent.slice(0, USER_AGENT_LENGTH) : null;
    await writeTransaction(db, async (trx) => {
      const now = Date.now();
      await insertDashboardToken(trx, {
        hash: sessionHash(secret, pageToken),
        kind: 'session',
        userId,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + SESSION_TTL_MS).toISOString(),
        session: { publicId, method, userAgent: agent },
      });
      const person: Actor = { type: 'user', userId, surface: 'dashboard' };
      for (const workspaceId of await workspaceIdsOf(trx, userId)) {
        await recordAudit(trx, {
          workspaceId,
          entityType: 'session',
          entityId: publicId,
          action: 'session.create',
          actor: person,
          before: null,
          after: { method, userAgent: agent },
        });
      }
    });
    return { secret, token: pageToken };
  }

  return {
    async createSignInToken(userId: number): Promise<string> {
      const token = newSecret('');
      await storeSignIn(hashSecret(token), userId);
      return token;
    },

    /**
     * Exchanges a sign-in token for a session: the secret for the cookie and the token for the page.
     * A used, expired or unknown sign-in token gives undefined.
     */
    async redeemSignIn(token: string, userAgent?: string): Promise<{ secret: string; token: string } | undefined> {
      const now = new Date().toISOString();
      const row = await takeDashboardToken(db, hashSecret(token), 'signin');
      if (!row || row.expires_at <= now) return undefined;
      return open(row.user_id, 'link', userAgent);
    },

    open,

    /** The person of a live session; both halves are needed (the cookie's secret and the page's token). */
    async resolveSession(secret: string, token: string): Promise<Actor | undefined> {
      const userId = await liveTokenUser(db, sessionHash(secret, token), 'session', new Date().toISOString());
      return userId === undefined ? undefined : { type: 'user', userId, surface: 'dashboard' };
    },

    async endSession(secret: string, token: string): Promise<void> {
      await deleteDashboardToken(db, sessionHash(secret, token));
    },

    /** The person's live sessions, the one asking (its cookie's secret and page token) marked current. */
    async list(actor: Actor, current: { secret: string; token: string }): Promise<SessionInfo[]> {
      if (actor.type !== 'user') throw new AppError('FORBIDDEN', 'sessions belong to people signed in to the dashboard');
      const mine = sessionHash(current.secret, current.token);
      return (await liveSessionRows(db, actor.userId, new Date().toISOString())).flatMap((row) =>
        row.public_id === null
          ? []
          : [
              {
                id: row.public_id,
                method: (row.method ?? 'link') as SignInMethod,
                userAgent: row.user_agent,
                createdAt: row.created_at,
                expiresAt: row.expires_at,
                current: row.token_hash === mine,
              },
            ],
      );
    },

    /** Ends one of the person's own sessions by its id (signing out elsewhere), audited. */
    async end(actor: Actor, id: string): Promise<void> {
      if (actor.type !== 'user') throw new AppError('FORBIDDEN', 'sessions belong to people signed in to the dashboard');
      await writeTransaction(db, async (trx) => {
        if (!(await deleteSessionByPublicId(trx, actor.userId, id))) throw notFound('session', id);
        for (const workspaceId of await workspaceIdsOf(trx, actor.userId)) {
          await recordAudit(trx, { workspaceId, entityType: 'session', entityId: id, action: 'session.delete', actor, before: { id }, after: null });
        }
      });
    },

    /** Drops expired links and sessions; run at start. */
    async prune(): Promise<void> {
      await deleteExpiredDashboardTokens(db, new Date().toISOString());
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
