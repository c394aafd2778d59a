import { AppError } from '../errors.ts';
import type { Actor, Surface } from '../domain/actor.ts';
import type { Services } from '../services.ts';
import { type RateLimiter, rateLimitKey } from './rate-limit.ts';

/**
 * Resolves the caller of an API request. `x-service-key` carries an API key; the
 * `Authorization: Bearer` slot carries OAuth access tokens. When both are sent the key wins (SPEC 5.2).
 */
async function resolveActor(services: Services, headers: Headers, surface: Surface): Promise<Actor> {
  const key = headers.get('x-service-key') ?? undefined;
  if (key !== undefined) {
    const actor = await services.keys.authenticate(key.trim(), surface);
    if (!actor) throw new AppError('UNAUTHORIZED', 'the x-service-key header does not hold a live API key (unknown or revoked)');
    return actor;
  }
  const authorization = headers.get('authorization') ?? undefined;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    const actor = match ? await services.oauth.tokens.authenticate(match[1]!, surface, resourceOf(services.oauth.issuer, surface)) : undefined;
    if (!actor)
      throw new AppError(
        'UNAUTHORIZED',
        'the bearer token is not a live access token for this resource (unknown, expired, revoked, or issued for another resource)',
      );
    return actor;
  }
  throw new AppError('UNAUTHORIZED', 'missing credentials: send an API key in the x-service-key header, or an OAuth access token as Authorization: Bearer');
}

/** The OAuth resource a surface serves (RFC 8707): tokens for it, or for the whole issuer, work there. */
function resourceOf(issuer: string, surface: Surface): string {
  if (surface === 'mcp') return `${issuer}/mcp`;
  if (surface === 'rpc') return `${issuer}/rpc`;
  return issuer;
}

/**
 * Resolves the caller and counts its `calls` against its rate limit. The two steps are also
 * there apart, for a surface that must know who calls before it reads the body that says how
 * many calls it makes (`/mcp`): a caller without a live credential is refused unread.
 */
export interface Admit {
  (headers: Headers, surface: Surface, calls?: number): Promise<Actor>;
  /** Who is calling, from the headers alone; counts nothing. Throws UNAUTHORIZED. */
  resolve(headers: Headers, surface: Surface): Promise<Actor>;
  /** Counts `calls` of a resolved caller against its rate limit. Throws LIMIT_EXCEEDED with `retryAfterSeconds` when it is spent. */
  count(actor: Actor, calls: number): void;
}

/** The one way into the APIs (REST, RPC, MCP): who is calling, and may they call again so soon. */
export function createAdmission(services: Services, limiter: RateLimiter): Admit {
  const resolve = (headers: Headers, surface: Surface) => resolveActor(services, headers, surface);
  const count = (actor: Actor, calls: number) => {
    const key = rateLimitKey(actor);
    if (key !== undefined && calls > 0) limiter.take(key, calls);
  };
  const admit = async (headers: Headers, surface: Surface, calls = 1) => {
    const actor = await resolve(headers, surface);
    count(actor, calls);
    return actor;
  };
  return Object.assign(admit, { resolve, count });
}
