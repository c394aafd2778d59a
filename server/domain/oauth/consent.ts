import { randomBytes, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OAuthRequestRow, OAuthScope } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { hashSecret, newSecret, sameSecret } from '../secrets.ts';
import { invalid } from '../validation.ts';
import { listWorkspaceRows } from '../workspaces/workspace-repository.ts';
import type { OAuthClient } from './clients.ts';
import {
  bindBrowser,
  completeRequest,
  countPendingRequests,
  deleteExpiredRequests,
  findPendingRequestByCode,
  findRequestById,
  insertRequest,
  isMatchCodePending,
  listPendingRequests,
  updateRequest,
} from './consent-repository.ts';
import { findGrantRow } from './grant-repository.ts';
import { createGrant } from './grants.ts';
import { OAuthError } from './oauth-error.ts';
import { isLoopbackRedirect } from './redirect-uris.ts';
import type { TokenService } from './tokens.ts';

/** A consent request waits this long for a decision, and a decision this long for its browser. */
export const CONSENT_TTL_MS = 10 * 60_000;
/**
 * Consent requests that may wait for a decision at once, of one client and of all: a person
 * decides a few at a time, and an app that opens requests in a loop must not fill the table or
 * the lists where they are decided.
 */
export const MOST_PENDING = { perClient: 10, total: 100 };
/** Letters and digits that cannot be mistaken for one another when read aloud or retyped. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export type ConsentStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'completed';

/** A consent request as the consent page, Connected apps and `statusdesk oauth pending` show it. */
export interface ConsentRequestView {
  id: string;
  /** Shown by the waiting page and by every place that can decide, so the person approves the request they made. */
  matchCode: string;
  status: ConsentStatus;
  client: { id: string; name: string; source: 'registered' | 'metadata'; host: string | null };
  redirectUri: string;
  redirectHost: string;
  /** A loopback redirect: any program on this machine could be listening there. */
  loopbackRedirect: boolean;
  /** What the client asked for. */
  access: OAuthScope;
  resource: string;
  expiresAt: string;
  /** The viewer may approve or deny (a signed-in person). */
  canDecide: boolean;
  /** For the browser that made the request, once decided: where it goes next. Given once. */
  redirectTo?: string;
}

/** Names a consent request: by id (pages) or by its matching code (the command line). */
export type ConsentRef = { id: string } | { matchCode: string };

/** Who looks at a consent request: the browser that made it (its cookie secret), and/or a signed-in person. */
export interface ConsentViewer {
  browserSecret?: string;
  person?: Actor;
}

export interface ConsentOptions {
  issuer: string;
  tokens: TokenService;
  mostPending?: { perClient: number; total: number };
}

function newMatchCode(): string {
  const pick = () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${Array.from({ length: 4 }, pick).join('')}-${Array.from({ length: 4 }, pick).join('')}`;
}

/** `kxrd7qpm`, `KXRD 7QPM` and `kxrd-7qpm` all name `KXRD-7QPM`. */
export function normalizeMatchCode(code: string): string {
  const plain = code.toUpperCase().replace(/[\s-]/g, '');
  return plain.length === 8 ? `${plain.slice(0, 4)}-${plain.slice(4)}` : plain;
}

const isHashOf = (stored: string | null, secret: string | undefined) => stored !== null && secret !== undefined && sameSecret(stored, hashSecret(secret));

const isExpired = (row: OAuthRequestRow) => Date.parse(row.expires_at) <= Date.now();

function statusOf(row: OAuthRequestRow): ConsentStatus {
  return row.status !== 'completed' && isExpired(row) ? 'expired' : row.status;
}

function requirePerson(actor: Actor): Extract<Actor, { type: 'user' }> {
  if (actor.type !== 'user')
    throw new AppError('FORBIDDEN', 'only a signed-in person decides on connecting an app: use the dashboard, the desktop app or statusdesk oauth');
  return actor;
}

/**
 * Consent requests: an authorization request waiting for the owner's decision in a trusted place
 * (signed-in dashboard, desktop app, command line), bound to the browser that made it.
 */
export function createConsentService(db: Kysely<Database>, options: ConsentOptions) {
  const listeners = new Set<(request: ConsentRequestView) => void>();
  const mostPending = options.mostPending ?? MOST_PENDING;

  /** Refuses a new request while its client, or all clients together, have as many pending as they may. */
  async function roomForRequest(trx: Kysely<Database>, client: OAuthClient, now: number): Promise<void> {
    const { ofClient, total } = await countPendingRequests(trx, client.id, new Date(now).toISOString());
    const minutes = CONSENT_TTL_MS / 60_000;
    if (ofClient >= mostPending.perClient) {
      throw new OAuthError(
        'temporarily_unavailable',
        `${client.name} already has ${ofClient} consent requests waiting for a decision, the most one app may have: decide them, or start again once they expire (${minutes} minutes)`,
      );
    }
    if (total >= mostPending.total) {
      throw new OAuthError(
        'temporarily_unavailable',
        `${total} consent requests are waiting for a decision, the most this server keeps: decide them, or start again once they expire (${minutes} minutes)`,
      );
    }
  }

  function view(row: OAuthRequestRow, canDecide: boolean, redirectTo?: string): ConsentRequestView {
    const redirect = new URL(row.redirect_uri);
    return {
      id: row.id,
      matchCode: row.match_code,
      status: redirectTo ? 'completed' : statusOf(row),
      client: {
        id: row.client_id,
        name: row.client_name,
        source: row.client_source,
        host: row.client_source === 'metadata' ? new URL(row.client_id).hostname : null,
      },
      redirectUri: row.redirect_uri,
      redirectHost: redirect.host || redirect.protocol,
      loopbackRedirect: isLoopbackRedirect(row.redirect_uri),
      access: row.scope,
      resource: row.resource,
      expiresAt: row.expires_at,
      canDecide,
      ...(redirectTo ? { redirectTo } : {}),
    };
  }

  async function find(q: Kysely<Database>, ref: ConsentRef): Promise<OAuthRequestRow> {
    const row = 'id' in ref ? await findRequestById(q, ref.id) : await findPendingRequestByCode(q, normalizeMatchCode(ref.matchCode));
    if (!row)
      throw new AppError(
        'NOT_FOUND',
        'id' in ref ? `consent request ${ref.id} does not exist` : `no pending consent request has the code ${normalizeMatchCode(ref.matchCode)}`,
      );
    return row;
  }

  async function findPending(q: Kysely<Database>, ref: ConsentRef): Promise<OAuthRequestRow> {
    const row = await find(q, ref);
    const status = statusOf(row);
    if (status !== 'pending') throw new AppError('CONFLICT', `this consent request is ${status}; the app must start again`);
    return row;
  }

  /** Where the browser goes after a decision: the client's redirect URI with the RFC 9207 `iss`. */
  function redirectWith(row: OAuthRequestRow, params: Record<string, string>): string {
    const url = new URL(row.redirect_uri);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    if (row.state !== null) url.searchParams.set('state', row.state);
    url.searchParams.set('iss', options.issuer);
    return url.toString();
  }

  async function decide(
    actor: Actor,
    ref: ConsentRef,
    work: (
      trx: Kysely<Database>,
      row: OAuthRequestRow,
      person: Extract<Actor, { type: 'user' }>,
    ) => Promise<{ status: 'approved' | 'denied'; grant_id?: number }>,
  ): Promise<ConsentRequestView> {
    const person = requirePerson(actor);
    return writeTransaction(db, async (trx) => {
      const row = await findPending(trx, ref);
      const changes = await work(trx, row, person);
      const decided = await updateRequest(trx, row.id, { ...changes, expires_at: new Date(Date.now() + CONSENT_TTL_MS).toISOString() });
      return view(decided, true);
    });
  }

  return {
    /** Called for each new consent request (the desktop app raises its native prompt from it). */
    onRequested(listener: (request: ConsentRequestView) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Records a valid authorization request; the returned ticket binds the browser that follows it. */
    async start(input: {
      client: OAuthClient;
      redirectUri: string;
      codeChallenge: string;
      scope: OAuthScope;
      resource: string;
      state?: string;
    }): Promise<{ id: string; ticket: string }> {
      const id = randomBytes(16).toString('base64url');
      const ticket = newSecret('');
      const now = Date.now();
      const row = await writeTransaction(db, async (trx) => {
        await roomForRequest(trx, input.client, now);
        let matchCode = newMatchCode();
        // Codes name pending requests: a new one never repeats one still pending.
        while (await isMatchCodePending(trx, matchCode)) matchCode = newMatchCode();
        return insertRequest(trx, {
          id,
          match_code: matchCode,
          client_id: input.client.id,
          client_source: input.client.source,
          client_name: input.client.name,
          client_redirect_uris: JSON.stringify(input.client.redirectUris),
          redirect_uri: input.redirectUri,
          code_challenge: input.codeChallenge,
          scope: input.scope,
          resource: input.resource,
          state: input.state ?? null,
          ticket_hash: hashSecret(ticket),
          browser_hash: null,
          status: 'pending',
          grant_id: null,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + CONSENT_TTL_MS).toISOString(),
        });
      });
      const shown = view(row, true);
      for (const listener of listeners) listener(shown);
      return { id, ticket };
    },

    /** Trades the one-time ticket for the secret of the browser's cookie; undefined when used, unknown or expired. */
    async redeemTicket(ticket: string): Promise<{ id: string; browserSecret: string } | undefined> {
      const browserSecret = newSecret('');
      const id = await bindBrowser(db, hashSecret(ticket), hashSecret(browserSecret), new Date().toISOString());
      return id === undefined ? undefined : { id, browserSecret };
    },

    /**
     * A consent request for the browser that made it or a signed-in person; anyone else is
     * refused. The browser that made it gets `redirectTo` once the request is decided, once.
     */
    async view(id: string, viewer: ConsentViewer): Promise<ConsentRequestView> {
      const row = await find(db, { id });
      const isBrowser = isHashOf(row.browser_hash, viewer.browserSecret);
      const canDecide = viewer.person?.type === 'user';
      if (!isBrowser && !canDecide) throw new AppError('FORBIDDEN', 'this consent request belongs to another browser');
      if (!isBrowser || (row.status !== 'approved' && row.status !== 'denied') || isExpired(row)) return view(row, canDecide);
      return writeTransaction(db, async (trx) => {
        const claimed = await completeRequest(trx, row.id, row.status);
        if (!claimed) return view({ ...row, status: 'completed' }, canDecide);
        if (row.status === 'denied')
          return view(claimed, canDecide, redirectWith(row, { error: 'access_denied', error_description: 'the owner denied the request' }));
        const grant = await findGrantRow(trx, row.grant_id ?? 0);
        if (!grant || grant.revoked_at)
          return view(
            claimed,
            canDecide,
            redirectWith(row, { error: 'access_denied', error_description: 'the connection was revoked before it was completed' }),
          );
        const code = await options.tokens.issueCode(trx, grant.id, { redirectUri: row.redirect_uri, codeChallenge: row.code_challenge, scope: grant.scope });
        return view(claimed, canDecide, redirectWith(row, { code }));
      });
    },

    /** Pending requests, for a signed-in person. */
    async pending(actor: Actor): Promise<ConsentRequestView[]> {
      requirePerson(actor);
      return (await listPendingRequests(db, new Date().toISOString())).map((row) => view(row, true));
    },

    /**
     * Approves a pending request for one of the person's workspaces (their only one when not
     * named) with the access asked for, or read when write was asked.
     */
    async approve(actor: Actor, ref: ConsentRef, choice: { workspaceId?: number; access?: OAuthScope }): Promise<ConsentRequestView> {
      return decide(actor, ref, async (trx, row, person) => {
        let workspaceId = choice.workspaceId;
        if (workspaceId === undefined) {
          const mine = await listWorkspaceRows(trx, { memberId: person.userId });
          if (mine.length !== 1) throw invalid('workspace', `must be chosen: one of ${mine.map((w) => w.slug).join(', ')}`);
          workspaceId = mine[0]!.id;
        }
        await authorize(trx, person, workspaceId, 'read');
        const access = choice.access ?? row.scope;
        if (access !== 'read' && access !== 'write') throw invalid('access', 'must be read or write');
        if (access === 'write' && row.scope === 'read') throw invalid('access', 'the app asked for read only access; it cannot be given read & write');
        const client: OAuthClient = {
          id: row.client_id,
          source: row.client_source,
          name: row.client_name,
          redirectUris: JSON.parse(row.client_redirect_uris) as string[],
        };
        const grant = await createGrant(trx, person, client, { workspaceId, scope: access, resource: row.resource });
        return { status: 'approved', grant_id: grant.id };
      });
    },

    async deny(actor: Actor, ref: ConsentRef): Promise<ConsentRequestView> {
      return decide(actor, ref, async () => ({ status: 'denied' }));
    },

    /** Drops requests whose time is over. */
    async prune(): Promise<void> {
      await deleteExpiredRequests(db, new Date().toISOString());
    },
  };
}

export type ConsentService = ReturnType<typeof createConsentService>;
