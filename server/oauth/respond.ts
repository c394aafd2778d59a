import type { Context } from 'hono';
import type { AppEnv } from '../http/hono-app.ts';
import { NO_STORE } from '../http/errors.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';

export { NO_STORE };

/**
 * An answer of the authorization server. Its refusals are thrown as OAuthError: the router answers
 * them, and every other error on these paths, in the RFC 6749 shape (http/errors.ts).
 */
export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...headers } });
}

/**
 * The parameters of a token or revocation request: form-encoded (RFC 6749) or JSON (SPEC 4.4).
 * A parameter sent twice is refused (RFC 6749 section 3.2).
 */
export async function requestParams(c: Context<AppEnv>): Promise<Map<string, string>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await c.req.text();
  const params = new Map<string, string>();
  if (type === 'application/x-www-form-urlencoded') {
    for (const [name, value] of new URLSearchParams(text)) {
      if (params.has(name)) throw new OAuthError('invalid_request', `${name} is sent more than once`);
      params.set(name, value);
    }
    return params;
  }
  if (type === 'application/json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError('invalid_request', 'the body is not valid JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_request', 'the body must be a JSON object');
    for (const [name, value] of Object.entries(body)) {
      if (typeof value === 'string') params.set(name, value);
      else if (value !== null && value !== undefined) throw new OAuthError('invalid_request', `${name} must be a string`);
    }
    return params;
  }
  throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded or application/json');
}

/** A required parameter, or invalid_request naming it. */
export function required(params: Map<string, string>, name: string): string {
  const value = params.get(name);
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}
