import { isIP } from 'node:net';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { recordAudit } from '../audit/audit.ts';
import { createSessionService } from '../sessions/sessions.ts';
import { workspaceIdsOf } from '../sessions/session-repository.ts';
import { isOneLine } from '../validation.ts';
import { deletePasskey, findPasskey, insertPasskey, passkeysOf, recordPasskeyUse } from './passkey-repository.ts';
import { findUserRow } from './user-repository.ts';

/** A passkey as its person lists it: never its key. */
export interface PasskeyInfo {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The name of the service, as authenticators show it beside the person's name. */
const RP_NAME = 'Statusdesk';
/** A challenge is answered within this time, once. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** At most this many challenges wait for their answer; past it, the oldest are forgotten. */
const MAX_CHALLENGES = 1_000;
export const PASSKEY_NAME_LENGTH = 60;
const DEFAULT_NAME = 'Passkey';
/**
 * The signature algorithms a passkey may use (COSE ids): EdDSA, ES256, RS256. Named here rather
 * than left to the library, whose default probes the runtime for post-quantum ones and makes Node
 * print an experimental-feature warning.
 */
const ALGORITHMS = [-8, -7, -257];

/** What a person is told when a passkey sign-in fails, whatever part of it failed. */
const SIGN_IN_FAILED = 'the passkey sign-in did not succeed: start it again, or sign in another way';

/** The WebAuthn code, loaded with the first passkey request rather than at start. */
const webAuthn = () => import('@simplewebauthn/server');

interface Challenge {
  purpose: 'register' | 'signin';
  /** The person registering; none for a sign-in, which names no one until it is answered. */
  userId?: number;
  /** The page that asked: only an answer made for it, on it, counts. */
  origin: string;
  expiresAt: number;
}

/** The person a passkey is made for, as the authenticator stores it (their id, not their name). */
const userHandleOf = (userId: number) => Buffer.from(String(userId), 'utf8');

function requirePerson(actor: Actor): number {
  if (actor.type !== 'user') throw new AppError('FORBIDDEN', 'passkeys belong to people signed in to the dashboard');
  return actor.userId;
}

/**
 * The relying party of a page's origin: its host name. A passkey belongs to a name, never to an IP
 * address, which browsers refuse.
 */
function rpIdOf(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new AppError('VALIDATION', `origin: not an address (${origin})`, [{ field: 'origin', rule: 'must be the dashboard page’s origin' }]);
  }
  const host = url.hostname;
  if (isIP(host) !== 0 || host.startsWith('[')) {
    throw new AppError(
      'PRECONDITION_FAILED',
      `passkeys work on a named address, not an IP address: open the dashboard at http://localhost:${url.port || '80'} (or its own name) and try again`,
    );
  }
  return host;
}

/** A passkey's name: one line of 1 to 60 characters; "Passkey" when none is given. */
function passkeyName(value: unknown): string {
  if (value === undefined || value === null) return DEFAULT_NAME;
  if (typeof value !== 'string') throw new AppError('VALIDATION', 'name: must be text', [{ field: 'name', rule: 'must be text' }]);
  const name = value.trim();
  if (name === '') return DEFAULT_NAME;
  if (!isOneLine(name)) {
    const rule = 'must be one line, without control characters or bidirectional overrides';
    throw new AppError('VALIDATION', `name: ${rule}`, [{ field: 'name', rule }]);
  }
  if ([...name].length > PASSKEY_NAME_LENGTH) {
    const rule = `must be at most ${PASSKEY_NAME_LENGTH} characters`;
    throw new AppError('VALIDATION', `name: ${rule}`, [{ field: 'name', rule }]);
  }
  return name;
}

/** The authenticator's answer as the browser library gives it: an object with an id. */
function answerOf<T>(value: unknown): T & { id: string } {
  if (value === null || typeof value !== 'object' || typeof (value as { id?: unknown }).id !== 'string') {
    throw new AppError('VALIDATION', "response: must be the authenticator's answer", [{ field: 'response', rule: "must be the authenticator's answer" }]);
  }
  return value as T & { id: string };
}

const toInfo = (row: { id: string; name: string; created_at: string; last_used_at: string | null }): PasskeyInfo => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

function transportsOf(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * People's passkeys (WebAuthn credentials, checked by SimpleWebAuthn): adding one while signed in,
 * listing and removing one's own, and signing in with one without naming anyone first (the
 * authenticator offers the passkeys it holds for this address). Each challenge is kept here, in
 * memory, bound to its purpose, its person and the page's origin, for five minutes and one answer;
 * a restart forgets them, which only means asking again.
 */
export function createPasskeyService(db: Kysely<Database>) {
  const sessions = createSessionService(db);
  const challenges = new Map<string, Challenge>();

  function keep(challenge: string, held: Omit<Challenge, 'expiresAt'>): void {
    const now = Date.now();
    if (challenges.size >= MAX_CHALLENGES) {
      for (const [key, value] of challenges) if (value.expiresAt <= now) challenges.delete(key);
      // Still full: the oldest go first (a Map keeps the order they were made in).
      for (const key of challenges.keys()) {
        if (challenges.size < MAX_CHALLENGES) break;
        challenges.delete(key);
      }
    }
    challenges.set(challenge, { ...held, expiresAt: now + CHALLENGE_TTL_MS });
  }

  /** Takes a challenge for one answer: whether it was made for this purpose, person and page, and is still live. */
  function take(challenge: string, purpose: Challenge['purpose'], origin: string, userId?: number): boolean {
    const held = challenges.get(challenge);
    if (!held) return false;
    challenges.delete(challenge);
    return held.purpose === purpose && held.origin === origin && held.userId === userId && held.expiresAt > Date.now();
  }

  async function audit(
    trx: Kysely<Database>,
    actor: Actor,
    userId: number,
    change: { action: string; id: string; before: object | null; after: object | null },
  ) {
    for (const workspaceId of await workspaceIdsOf(trx, userId)) {
      await recordAudit(trx, {
        workspaceId,
        entityType: 'passkey',
        entityId: change.id,
        action: change.action,
        actor,
        before: change.before as Record<string, unknown> | null,
        after: change.after as Record<string, unknown> | null,
      });
    }
  }

  return {
    /** The signed-in person's passkeys, oldest first. */
    async list(actor: Actor): Promise<PasskeyInfo[]> {
      return (await passkeysOf(db, requirePerson(actor))).map(toInfo);
    },

    /** The options for adding a passkey on the page at `origin` (one of the dashboard's own, as the edge checked). */
    async registrationOptions(actor: Actor, origin: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const userId = requirePerson(actor);
      const rpID = rpIdOf(origin);
      const user = await findUserRow(db, userId);
      if (!user) throw new AppError('UNAUTHORIZED', 'this person no longer exists: sign in again');
      const { generateRegistrationOptions } = await webAuthn();
      const options = await generateRegistrationOptions({
        rpName: RP_NAME,
        rpID,
        userName: user.name,
        userDisplayName: user.name,
        userID: userHandleOf(userId),
        timeout: CHALLENGE_TTL_MS,
        attestationType: 'none',
        // An authenticator that already holds one of the person's passkeys is not asked for another.
        excludeCredentials: (await passkeysOf(db, userId)).map((row) => ({ id: row.id, transports: transportsOf(row.transports) })),
        // Signing in names no one first, so the authenticator keeps the passkey (a discoverable credential).
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      keep(options.challenge, { purpose: 'register', userId, origin });
      return options;
    },

    /** Adds the passkey the authenticator made for `registrationOptions`' challenge, on the same page; audited. */
    async register(actor: Actor, origin: string, input: { name?: unknown; response?: unknown }): Promise<PasskeyInfo> {
      const userId = requirePerson(actor);
      const name = passkeyName(input.name);
      const response = answerOf<RegistrationResponseJSON>(input.response);
      const rpID = rpIdOf(origin);
      const { verifyRegistrationResponse } = await webAuthn();
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: (challenge) => take(challenge, 'register', origin, userId),
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
          supportedAlgorithmIDs: ALGORITHMS,
        });
      } catch {
        verified = { verified: false };
      }
      if (!verified.verified) {
        throw new AppError('VALIDATION', 'the passkey was not added: its answer did not match this request (it may have expired); add it again', [
          { field: 'response', rule: 'must answer this page’s latest request' },
        ]);
      }
      const { credential } = verified.registrationInfo;
      const createdAt = new Date().toISOString();
      await writeTransaction(db, async (trx) => {
        if (await findPasskey(trx, credential.id)) throw new AppError('CONFLICT', 'this passkey is already added');
        await insertPasskey(trx, {
          id: credential.id,
          userId,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: JSON.stringify(credential.transports ?? []),
          name,
          createdAt,
        });
        await audit(trx, actor, userId, { action: 'passkey.create', id: credential.id, before: null, after: { name } });
      });
      return { id: credential.id, name, createdAt, lastUsedAt: null };
    },

    /** Removes one of the person's own passkeys: it no longer signs anyone in. Audited. */
    async remove(actor: Actor, id: string): Promise<void> {
      const userId = requirePerson(actor);
      await writeTransaction(db, async (trx) => {
        const gone = await deletePasskey(trx, userId, id);
        if (!gone) throw notFound('passkey', id);
        await audit(trx, actor, userId, { action: 'passkey.delete', id, before: { name: gone.name }, after: null });
      });
    },

    /** The options for signing in on the page at `origin`: no one is named, the authenticator offers its passkeys. */
    async signInOptions(origin: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const rpID = rpIdOf(origin);
      const { generateAuthenticationOptions } = await webAuthn();
      const options = await generateAuthenticationOptions({ rpID, allowCredentials: [], userVerification: 'preferred', timeout: CHALLENGE_TTL_MS });
      keep(options.challenge, { purpose: 'signin', origin });
      return options;
    },

    /**
     * Signs in with a passkey's answer to `signInOptions`' challenge, on the same page: a new
     * session of the passkey's person (the cookie's secret and the page's token), audited as a sign-in.
     */
    async signIn(origin: string, input: { response?: unknown }, userAgent?: string): Promise<{ secret: string; token: string }> {
      const response = answerOf<AuthenticationResponseJSON>(input.response);
      const rpID = rpIdOf(origin);
      const passkey = await findPasskey(db, response.id);
      if (!passkey) {
        throw new AppError('UNAUTHORIZED', 'this passkey is not known here (it may have been removed): sign in another way, then add it again on Your account');
      }
      // The person the authenticator says the passkey is for must be the one it was added for.
      const handle = response.response?.userHandle;
      if (handle !== undefined && handle !== userHandleOf(passkey.user_id).toString('base64url')) throw new AppError('UNAUTHORIZED', SIGN_IN_FAILED);
      const { verifyAuthenticationResponse } = await webAuthn();
      let newCounter: number;
      try {
        const verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: (challenge) => take(challenge, 'signin', origin),
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: passkey.id,
            publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
            counter: passkey.counter,
            transports: transportsOf(passkey.transports),
          },
          requireUserVerification: false,
        });
        if (!verified.verified) throw new Error('not verified');
        newCounter = verified.authenticationInfo.newCounter;
      } catch {
        throw new AppError('UNAUTHORIZED', SIGN_IN_FAILED);
      }
      if (!(await recordPasskeyUse(db, passkey.id, passkey.counter, newCounter, new Date().toISOString()))) {
        throw new AppError('UNAUTHORIZED', SIGN_IN_FAILED);
      }
      return sessions.open(passkey.user_id, 'passkey', userAgent);
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
