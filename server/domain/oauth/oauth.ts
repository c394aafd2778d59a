import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { createClientRegistry, MOST_UNUSED_CLIENTS } from './clients.ts';
import { createConsentService, MOST_PENDING } from './consent.ts';
import { DEFAULT_REDIRECT_DOMAINS, type RedirectPolicy } from './redirect-uris.ts';
import { createTokenService } from './tokens.ts';

export interface OAuthOptions {
  /** OAUTH_ISSUER: the `iss` of every answer, and the resource whose tokens work everywhere. */
  issuer: string;
  redirectPolicy?: Partial<RedirectPolicy>;
  /** What is kept at most; the defaults unless told (tests give small ones). */
  limits?: { unusedClients?: number; pendingPerClient?: number; pendingTotal?: number };
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
  const limits = options.limits ?? {};
  const clients = createClientRegistry(db, policy, limits.unusedClients ?? MOST_UNUSED_CLIENTS);
  const tokens = createTokenService(db, { issuer: options.issuer });
  const mostPending = { perClient: limits.pendingPerClient ?? MOST_PENDING.perClient, total: limits.pendingTotal ?? MOST_PENDING.total };
  const consent = createConsentService(db, { issuer: options.issuer, tokens, mostPending });
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
