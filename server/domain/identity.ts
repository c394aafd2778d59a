import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { type Actor, credentialId, isCredential, type Scope } from './actor.ts';
import type { PlanName } from './plans.ts';
import { findWorkspaceRow } from './workspaces/workspace-repository.ts';

/** The identity object of GET /v1/whoami (SPEC 2.1), exactly those fields. */
export interface Identity {
  name: string;
  slug: string;
  plan: PlanName;
  actor: { type: 'apiKey'; keyId: string; scopes: Scope[] } | { type: 'oauth'; grantId: string; clientId: string; scopes: Scope[] };
}

export function createIdentityService(db: Kysely<Database>) {
  return {
    async whoami(actor: Actor): Promise<Identity> {
      if (!isCredential(actor)) throw new AppError('UNAUTHORIZED', 'whoami answers for an API key or an OAuth access token');
      const { name, slug, plan } = await findWorkspaceRow(db, actor.workspaceId);
      const holder: Identity['actor'] =
        actor.type === 'apiKey'
          ? { type: 'apiKey', keyId: actor.keyId, scopes: actor.scopes }
          : { type: 'oauth', grantId: credentialId(actor), clientId: actor.clientId, scopes: actor.scopes };
      return { name, slug, plan: plan as PlanName, actor: holder };
    },
  };
}
