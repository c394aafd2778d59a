import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { deleteOldestUnusedClients, deleteUnapprovedClients, findRegisteredClient, insertClient, unusedClientStats } from './client-repository.ts';
import { OAuthError } from './oauth-error.ts';
import { metadataRedirectProblem, type RedirectPolicy, registrationProblem } from './redirect-uris.ts';

/** A registered client that never completed a grant is deleted after this long. */
const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000;
/** Registered clients that never completed a grant, kept at most (each holds up to 10 URIs of 2,000 characters). */
export const MOST_UNUSED_CLIENTS = 500;
/**
 * A client that registered this recently is not dropped to make room for another: an app in the
 * middle of its first connection keeps its registration for as long as a consent request waits.
 */
const UNUSED_CLIENT_KEPT_MS = 10 * 60_000;
const MOST_REDIRECT_URIS = 10;
const MOST_REDIRECT_URI_CHARACTERS = 2000;
const MOST_NAME_CHARACTERS = 100;

/**
 * Characters a name must not hold: controls (C0, DEL, C1), line and paragraph separators, and the
 * format characters (Unicode category Cf), which show nothing yet change what is shown or how it
 * reads: zero-width space, joiner and non-joiner, word joiner, byte order mark, the bidirectional
 * marks, embeddings, overrides and isolates (U+200E, U+200F, U+061C, U+202A to U+202E, U+2066 to
 * U+2069), soft hyphen, tag characters. A name is what a person approves: it must read as it is.
 */
const HIDDEN_OR_BIDI = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** A client as an authorization request knows it. */
export interface OAuthClient {
  id: string;
  source: 'registered' | 'metadata';
  name: string;
  redirectUris: string[];
}

/** Reads a Client ID Metadata Document (the edge does the network part, refusing private addresses). */
export type ClientMetadataFetcher = (url: string) => Promise<unknown>;

/** The RFC 7591 answer to a registration. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** Whether a client id names a metadata document: an https URL with a path (SPEC 4.4 rule 5). */
function isMetadataClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** `U+200D` */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function clientName(value: unknown, fallback: string, error: 'invalid_client_metadata' | 'invalid_client'): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MOST_NAME_CHARACTERS) {
    throw new OAuthError(error, `client_name must be a string of 1 to ${MOST_NAME_CHARACTERS} characters`);
  }
  const hidden = HIDDEN_OR_BIDI.exec(value);
  if (hidden) {
    const at = [...value.slice(0, hidden.index)].length + 1;
    throw new OAuthError(
      error,
      `client_name must be one line of visible text, without control, invisible or bidirectional control characters: it holds ${codePoint(hidden[0])} at character ${at}`,
    );
  }
  return value.trim();
}

/** Checks the URL a client uses as its id before anything is fetched from it. */
function metadataUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new OAuthError('invalid_client', 'client_id is neither a registered client nor a valid https URL');
  }
  if (url.protocol !== 'https:' || url.pathname === '/' || url.hash || url.username || url.password || clientId.includes('#')) {
    throw new OAuthError('invalid_client', 'a client_id URL must be https, with a path, and without a fragment or user information');
  }
  return url;
}

export function createClientRegistry(db: Kysely<Database>, policy: RedirectPolicy, mostUnused = MOST_UNUSED_CLIENTS) {
  /**
   * Keeps the registrations never used to a grant under `mostUnused`: the oldest of them past
   * their first ten minutes make room for a new one; when all are newer, registration waits.
   */
  async function makeRoom(trx: Kysely<Database>, now: number): Promise<void> {
    const { count } = await unusedClientStats(trx);
    if (count < mostUnused) return;
    await deleteOldestUnusedClients(trx, count - mostUnused + 1, new Date(now - UNUSED_CLIENT_KEPT_MS).toISOString());
    const left = await unusedClientStats(trx);
    if (left.count < mostUnused) return;
    // Every one left is in its first ten minutes: the oldest is the first that may make room.
    const oldest = left.oldest === null ? now : Date.parse(left.oldest);
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + UNUSED_CLIENT_KEPT_MS - now) / 1000));
    throw new OAuthError(
      'temporarily_unavailable',
      `${mostUnused} registered clients have not connected yet, the most this server keeps; retry after ${retryAfterSeconds} s`,
      { status: 429, retryAfterSeconds },
    );
  }

  return {
    /** Dynamic registration (RFC 7591): public clients, redirect URIs only of the allowed kinds. */
    async register(input: unknown): Promise<RegisteredClient> {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new OAuthError('invalid_client_metadata', 'the registration must be a JSON object');
      }
      const body = input as Record<string, unknown>;
      const uris = body.redirect_uris;
      if (!stringList(uris) || uris.length === 0 || uris.length > MOST_REDIRECT_URIS) {
        throw new OAuthError('invalid_redirect_uri', `redirect_uris must be a list of 1 to ${MOST_REDIRECT_URIS} URIs`);
      }
      for (const uri of uris) {
        if (uri.length > MOST_REDIRECT_URI_CHARACTERS) {
          throw new OAuthError(
            'invalid_redirect_uri',
            `redirect_uris: each URI must be at most ${MOST_REDIRECT_URI_CHARACTERS} characters; one has ${uri.length}`,
          );
        }
        const problem = registrationProblem(uri, policy);
        if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${uri}: ${problem}`);
      }
      if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== 'none') {
        throw new OAuthError('invalid_client_metadata', 'token_endpoint_auth_method must be none: clients of this server are public and have no secret');
      }
      if (body.grant_types !== undefined && (!stringList(body.grant_types) || body.grant_types.some((g) => !GRANT_TYPES.includes(g)))) {
        throw new OAuthError('invalid_client_metadata', `grant_types may hold only ${GRANT_TYPES.join(' and ')}`);
      }
      if (body.response_types !== undefined && (!stringList(body.response_types) || body.response_types.some((r) => r !== 'code'))) {
        throw new OAuthError('invalid_client_metadata', 'response_types may hold only code');
      }
      const name = clientName(body.client_name, new URL(uris[0]!).hostname || 'Unnamed app', 'invalid_client_metadata');
      const id = `sdc_${randomBytes(24).toString('base64url')}`;
      const now = new Date();
      await writeTransaction(db, async (trx) => {
        await makeRoom(trx, now.getTime());
        await insertClient(trx, {
          id,
          source: 'registered',
          name,
          redirect_uris: JSON.stringify([...new Set(uris)]),
          created_at: now.toISOString(),
          granted_at: null,
        });
      });
      return {
        client_id: id,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        client_name: name,
        redirect_uris: [...new Set(uris)],
        grant_types: GRANT_TYPES,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },

    /**
     * The client an authorization request names: a registered one (not expired), or the one its
     * metadata document describes, read afresh each time. Refusals are `invalid_client`: the
     * redirect URI is not trusted yet, so the edge shows them as a page.
     */
    async resolve(clientId: string, fetchMetadata: ClientMetadataFetcher): Promise<OAuthClient> {
      if (isMetadataClientId(clientId)) {
        const url = metadataUrl(clientId);
        let document: unknown;
        try {
          document = await fetchMetadata(clientId);
        } catch (error) {
          throw new OAuthError('invalid_client', `the client metadata document at ${clientId} could not be used: ${(error as Error).message}`);
        }
        if (typeof document !== 'object' || document === null) throw new OAuthError('invalid_client', 'the client metadata document is not a JSON object');
        const doc = document as Record<string, unknown>;
        if (doc.client_id !== clientId) {
          throw new OAuthError(
            'invalid_client',
            `the client metadata document must name its own URL as client_id; it names ${JSON.stringify(doc.client_id ?? null)}`,
          );
        }
        if (!stringList(doc.redirect_uris) || doc.redirect_uris.length === 0) {
          throw new OAuthError('invalid_client', 'the client metadata document has no redirect_uris');
        }
        for (const uri of doc.redirect_uris) {
          const problem = metadataRedirectProblem(uri);
          if (problem) throw new OAuthError('invalid_client', `the client metadata document's redirect URI ${uri} ${problem}`);
        }
        if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none') {
          throw new OAuthError('invalid_client', 'the client metadata document must use token_endpoint_auth_method none');
        }
        return { id: clientId, source: 'metadata', name: clientName(doc.client_name, url.hostname, 'invalid_client'), redirectUris: doc.redirect_uris };
      }
      // Ids this service gives are printable ASCII; anything else (a NUL byte, say) names no client.
      const row = /^[\x21-\x7e]{1,200}$/.test(clientId) ? await findRegisteredClient(db, clientId) : undefined;
      if (!row || (row.granted_at === null && Date.parse(row.created_at) + UNUSED_CLIENT_TTL_MS < Date.now())) {
        throw new OAuthError('invalid_client', 'client_id is not a registered client; register at /oauth/register first');
      }
      return { id: row.id, source: 'registered', name: row.name, redirectUris: JSON.parse(row.redirect_uris) as string[] };
    },

    /** Drops registered clients that never completed a grant within a day. */
    async prune(): Promise<void> {
      await deleteUnapprovedClients(db, new Date(Date.now() - UNUSED_CLIENT_TTL_MS).toISOString());
    },
  };
}

export type ClientRegistry = ReturnType<typeof createClientRegistry>;
