import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.ts';
import type { Actor, Surface } from '../domain/actor.ts';
import type { Services } from '../domain/services.ts';

function header(headers: IncomingHttpHeaders | Headers, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Resolves the caller of an API request. `x-service-key` carries an API key; the
 * `Authorization: Bearer` slot carries OAuth access tokens. When both are sent the key wins.
 */
export async function resolveActor(services: Services, headers: IncomingHttpHeaders | Headers, surface: Surface): Promise<Actor> {
  const key = header(headers, 'x-service-key');
  if (key !== undefined) {
    const actor = await services.keys.authenticate(key.trim(), surface);
    if (!actor) throw new AppError('UNAUTHORIZED', 'the x-service-key header does not hold a live API key (unknown or revoked)');
    return actor;
  }
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) {
    // No OAuth grant can exist yet, so no bearer token is live.
    throw new AppError('UNAUTHORIZED', 'the bearer token is not a live access token');
  }
  throw new AppError('UNAUTHORIZED', 'missing credentials: send an API key in the x-service-key header');
}
