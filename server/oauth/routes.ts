import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';
import { MCP_PATH } from '../mcp/mcp-route.ts';
import { registerAuthorize } from './authorize.ts';
import { createMetadataFetcher, type MetadataNetwork } from './client-metadata.ts';
import { registerMetadata } from './metadata.ts';
import { registerRegistration } from './register.ts';
import { oauthJson } from './respond.ts';
import { registerRevoke } from './revoke.ts';
import { registerToken } from './token.ts';

export interface OAuthRoutesOptions {
  services: Services;
  issuer: string;
  dashboardUrl: string;
  docsBase: string;
  /** How Client ID Metadata Documents are fetched; the system's DNS and TLS unless replaced. */
  metadataNetwork?: MetadataNetwork;
}

/** Each endpoint and the methods it answers (a GET answers HEAD too); any other method gets 405. */
const METHODS: [path: string, methods: string[]][] = [
  ['/oauth/register', ['POST']],
  ['/oauth/authorize', ['GET', 'HEAD']],
  ['/oauth/token', ['POST']],
  ['/oauth/revoke', ['POST']],
  ['/.well-known/oauth-authorization-server', ['GET', 'HEAD']],
  [`/.well-known/oauth-protected-resource${MCP_PATH}`, ['GET', 'HEAD']],
  ['/.well-known/oauth-protected-resource', ['GET', 'HEAD']],
];

/** The authorization server's endpoints on the API port (SPEC 4.4). */
export function registerOAuth(app: HonoApp, options: OAuthRoutesOptions): void {
  const { services, issuer } = options;
  registerMetadata(app, issuer, options.docsBase);
  registerRegistration(app, services);
  registerAuthorize(app, { services, issuer, dashboardUrl: options.dashboardUrl, fetchMetadata: createMetadataFetcher(options.metadataNetwork) });
  registerToken(app, services, issuer);
  registerRevoke(app, services);
  // Registered after the endpoints, so only the methods they do not answer reach these; the
  // answers keep RFC 6749's shape (SPEC 7 rule 5), as every error on these paths does.
  for (const [path, methods] of METHODS) {
    app.all(path, (c) =>
      oauthJson({ error: 'invalid_request', error_description: `${c.req.method} is not allowed on ${path}: use ${methods.join(' or ')}` }, 405, {
        allow: methods.join(', '),
      }),
    );
  }
  app.all('/oauth/*', (c) => {
    throw new OAuthError(
      'invalid_request',
      `${c.req.path} is not an endpoint of this authorization server: see ${issuer}/.well-known/oauth-authorization-server`,
      { status: 404 },
    );
  });
}
