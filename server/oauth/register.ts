import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { AppError } from '../errors.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';
import { oauthJson } from './respond.ts';

/**
 * Registrations each client address may make a minute, all at once or spread out: an editor
 * registers once per connection, and a flood stops here before it reaches the database.
 */
export const REGISTRATIONS_PER_MINUTE = 60;

/** The address a request came from: each has its own registration budget. */
function clientAddress(incoming: { socket?: { remoteAddress?: string } }): string {
  return incoming.socket?.remoteAddress ?? 'unknown';
}

/** POST /oauth/register: dynamic client registration (RFC 7591), public clients only. */
export function registerRegistration(app: HonoApp, services: Services): void {
  const limiter = createRateLimiter(REGISTRATIONS_PER_MINUTE);
  app.post('/oauth/register', async (c) => {
    try {
      limiter.take(clientAddress(c.env.incoming));
    } catch (error) {
      if (!(error instanceof AppError) || error.retryAfterSeconds === undefined) throw error;
      throw new OAuthError(
        'temporarily_unavailable',
        `too many registrations from this address: at most ${REGISTRATIONS_PER_MINUTE} a minute; retry after ${error.retryAfterSeconds} s`,
        { status: 429, retryAfterSeconds: error.retryAfterSeconds },
      );
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new OAuthError('invalid_client_metadata', 'the registration must be a JSON object sent as application/json');
    }
    return oauthJson(await services.oauth.clients.register(body), 201);
  });
}
