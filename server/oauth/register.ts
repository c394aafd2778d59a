import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';
import { answering, oauthJson } from './respond.ts';

/** POST /oauth/register: dynamic client registration (RFC 7591), public clients only. */
export function registerRegistration(app: HonoApp, services: Services): void {
  app.post('/oauth/register', (c) =>
    answering(async () => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw new OAuthError('invalid_client_metadata', 'the registration must be a JSON object sent as application/json');
      }
      return oauthJson(await services.oauth.clients.register(body), 201);
    }),
  );
}
