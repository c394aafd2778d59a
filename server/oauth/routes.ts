import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { registerAuthorize } from './authorize.ts';
import { createMetadataFetcher, type MetadataNetwork } from './client-metadata.ts';
import { registerMetadata } from './metadata.ts';
import { registerRegistration } from './register.ts';
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

/** The authorization server's endpoints on the API port (SPEC 4.4). */
export function registerOAuth(app: HonoApp, options: OAuthRoutesOptions): void {
  const { services, issuer } = options;
  registerMetadata(app, issuer, options.docsBase);
  registerRegistration(app, services);
  registerAuthorize(app, { services, issuer, dashboardUrl: options.dashboardUrl, fetchMetadata: createMetadataFetcher(options.metadataNetwork) });
  registerToken(app, services, issuer);
  registerRevoke(app, services);
}
