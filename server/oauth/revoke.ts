import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { oauthJson, required, requestParams } from './respond.ts';

/** POST /oauth/revoke (RFC 7009): either token of a grant revokes the whole grant; unknown tokens too get 200. */
export function registerRevoke(app: HonoApp, services: Services): void {
  app.post('/oauth/revoke', async (c) => {
    const params = await requestParams(c);
    await services.oauth.tokens.revoke(required(params, 'token'));
    return oauthJson({});
  });
}
