import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { createClientRegistry } from './clients.ts';
import { createConsentService } from './consent.ts';
import { DEFAULT_REDIRECT_DOMAINS, type RedirectPolicy } from './redirect-uris.ts';
import { createTokenService } from './tokens.ts';

export interface OAuthOptions {
  /** OAUTH_ISSUER: the `iss` of every answer, and the resource whose tokens work everywhere. */
  issuer: string;
  redirectPolicy?: Partial<RedirectPolicy>;
}

/**
 * The authorization server's rules: clients, consent requests, grants and tokens. The endpoints in
 * server/oauth/ and the consent screens only carry requests to these.
 */
export function createOAuthService(db: Kysely<Database>, options: OAuthOptions) {
  const policy: RedirectPolicy = {
    ownHosts: options.redirectPolicy?.ownHosts ?? [new URL(options.issuer).hostname],
    vendorDomains: options.redirectPolicy?.vendorDomains ?? DEFAULT_REDIRECT_DOMAINS,
  };
  const clients = createClientRegistry(db, policy);
  const tokens = createTokenService(db, { issuer: options.issuer });
  const consent = createConsentService(db, { issuer: options.issuer, tokens });
  return {
    ...consent,
    clients,
    tokens,
    issuer: options.issuer,
    /** Drops what has expired: consent requests, codes and tokens, clients never approved. */
    async prune(): Promise<void> {
      await consent.prune();
      await tokens.prune();
      await clients.prune();
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
