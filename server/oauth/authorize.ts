import type { OAuthScope } from '../db/schema.ts';
import type { ClientMetadataFetcher, OAuthClient } from '../domain/oauth/clients.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';
import { redirectMatches } from '../domain/oauth/redirect-uris.ts';
import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { errorPage } from './error-page.ts';
import { NO_STORE } from './respond.ts';

/** RFC 7636: a S256 challenge is the base64url SHA-256 of the verifier, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MOST_STATE_CHARACTERS = 1024;

export interface AuthorizeOptions {
  services: Services;
  issuer: string;
  dashboardUrl: string;
  fetchMetadata: ClientMetadataFetcher;
}

/** A parameter of the query, refusing one sent twice (RFC 6749 section 3.1). */
function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} is sent more than once`);
  return values[0] === '' ? undefined : values[0];
}

/** The client and the redirect URI it may be sent back to; until both are known, errors are shown, not redirected. */
async function trustedClient(query: URLSearchParams, options: AuthorizeOptions): Promise<{ client: OAuthClient; redirectUri: string }> {
  const clientId = single(query, 'client_id');
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
  const client = await options.services.oauth.clients.resolve(clientId, options.fetchMetadata);
  const redirectUri = single(query, 'redirect_uri');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required');
  if (!client.redirectUris.some((registered) => redirectMatches(registered, redirectUri))) {
    throw new OAuthError('invalid_request', `redirect_uri ${redirectUri} is not one of the redirect URIs of ${client.name}`);
  }
  return { client, redirectUri };
}

function responseType(query: URLSearchParams): void {
  const type = single(query, 'response_type');
  if (type !== 'code')
    throw new OAuthError(
      type ? 'unsupported_response_type' : 'invalid_request',
      type ? `response_type ${type} is not supported: use code` : 'response_type is required: use code',
    );
}

function pkceChallenge(query: URLSearchParams): string {
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (!challenge) throw new OAuthError('invalid_request', 'code_challenge is required: PKCE with S256 is mandatory');
  if (method !== 'S256') throw new OAuthError('invalid_request', `code_challenge_method must be S256${method ? `, not ${method}` : ''}`);
  if (!S256_CHALLENGE.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters (the S256 of the verifier)');
  return challenge;
}

/** `read` or `write`; none asks for write (SPEC 4.4 rule 2); `read write` is write. */
export function requestedScope(scope: string | undefined): OAuthScope {
  if (scope === undefined) return 'write';
  const scopes = scope.split(' ').filter(Boolean);
  const unknown = scopes.find((s) => s !== 'read' && s !== 'write');
  if (unknown) throw new OAuthError('invalid_scope', `scope ${unknown} does not exist: use read or write`);
  return scopes.includes('write') || scopes.length === 0 ? 'write' : 'read';
}

/** The resource the tokens will be for (RFC 8707): /mcp, /rpc or the whole API; none means the whole API. */
export function requestedResource(resource: string | undefined, issuer: string): string {
  if (resource === undefined) return issuer;
  const normal = resource.replace(/\/+$/, '');
  if ([issuer, `${issuer}/mcp`, `${issuer}/rpc`].includes(normal)) return normal;
  throw new OAuthError('invalid_target', `resource ${resource} is not served here: use ${issuer}/mcp, ${issuer}/rpc or ${issuer}`);
}

function state(query: URLSearchParams): string | undefined {
  const value = single(query, 'state');
  if (value !== undefined && value.length > MOST_STATE_CHARACTERS)
    throw new OAuthError('invalid_request', `state must be at most ${MOST_STATE_CHARACTERS} characters`);
  return value;
}

/**
 * GET /oauth/authorize: a pipeline of checks, then a consent request. The browser goes to the
 * dashboard with a one-time ticket that binds it to the request.
 */
export function registerAuthorize(app: HonoApp, options: AuthorizeOptions): void {
  app.get('/oauth/authorize', async (c) => {
    const query = new URL(c.req.url).searchParams;
    let trusted: { client: OAuthClient; redirectUri: string };
    try {
      trusted = await trustedClient(query, options);
    } catch (error) {
      if (error instanceof OAuthError) return errorPage(error.error, error.message);
      throw error;
    }
    const back = (params: Record<string, string>) => {
      const url = new URL(trusted.redirectUri);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      url.searchParams.set('iss', options.issuer);
      return new Response(null, { status: 302, headers: { location: url.toString(), ...NO_STORE } });
    };
    let passedState: string | undefined;
    try {
      passedState = state(query);
      responseType(query);
      const codeChallenge = pkceChallenge(query);
      const scope = requestedScope(single(query, 'scope'));
      const resource = requestedResource(single(query, 'resource'), options.issuer);
      const { ticket } = await options.services.oauth.start({ ...trusted, codeChallenge, scope, resource, state: passedState });
      const consent = new URL('/oauth/consent', options.dashboardUrl);
      consent.searchParams.set('ticket', ticket);
      return new Response(null, { status: 303, headers: { location: consent.toString(), ...NO_STORE, 'referrer-policy': 'no-referrer' } });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return back({ error: error.error, error_description: error.message, ...(passedState !== undefined ? { state: passedState } : {}) });
    }
  });
}
