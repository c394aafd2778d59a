import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { createIdentityService } from './identity.ts';
import { createKeyService } from './keys/keys.ts';
import { createSessionService } from './sessions/sessions.ts';
import { createWorkspaceService } from './workspaces/workspaces.ts';

/** Every domain service over one database: the single boundary all surfaces call. */
export function createServices(db: Kysely<Database>) {
  return {
    workspaces: createWorkspaceService(db),
    keys: createKeyService(db),
    identity: createIdentityService(db),
    sessions: createSessionService(db),
  };
}

export type Services = ReturnType<typeof createServices>;
