import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { createIdentityService } from './identity.ts';
import { createKeyService } from './keys/keys.ts';
import { type MonitorChecks, noCheckEngine } from './monitors/checks.ts';
import { createMonitorService } from './monitors/monitors.ts';
import { createSessionService } from './sessions/sessions.ts';
import { createWorkspaceService } from './workspaces/workspaces.ts';

/** Every domain service over one database: the single boundary all surfaces call. */
export function createServices(db: Kysely<Database>, checks: MonitorChecks = noCheckEngine) {
  return {
    workspaces: createWorkspaceService(db),
    keys: createKeyService(db),
    identity: createIdentityService(db),
    sessions: createSessionService(db),
    monitors: createMonitorService(db, checks),
  };
}

export type Services = ReturnType<typeof createServices>;
