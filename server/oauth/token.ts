import { OAuthError } from '../domain/oauth/oauth-error.ts';
import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { requestedResource, requestedScope } from './authorize.ts';
import { oauthJson, required, requestParams } from './respond.ts';

/** POST /oauth/token: the authorization_code and refresh_token grants, for public clients. */
export function registerToken(app: HonoApp, services: Services, issuer: string): void {
  const { tokens } = services.oauth;
  app.post('/oauth/token', async (c) => {
    const params = await requestParams(c);
    const grantType = required(params, 'grant_type');
    if (params.has('client_secret')) throw new OAuthError('invalid_client', 'clients of this server are public: send client_id and no client_secret');
    const clientId = required(params, 'client_id');
    const given = params.get('resource');
    const resource = given === undefined ? undefined : requestedResource(given, issuer);
    if (grantType === 'authorization_code') {
      return oauthJson(
        await tokens.exchangeCode({
          code: required(params, 'code'),
          clientId,
          redirectUri: required(params, 'redirect_uri'),
          codeVerifier: required(params, 'code_verifier'),
          resource,
        }),
      );
    }
    if (grantType === 'refresh_token') {
      const scope = params.get('scope');
      return oauthJson(
        await tokens.refresh({
          refreshToken: required(params, 'refresh_token'),
          clientId,
          scope: scope === undefined ? undefined : requestedScope(scope),
          resource,
        }),
      );
    }
    throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported: use authorization_code or refresh_token`);
  });
}
