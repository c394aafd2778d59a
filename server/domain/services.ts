import type { Kysely } from 'kysely';
import pino from 'pino';
import { createCheckEngine } from '../checks/engine.ts';
import { VERSION } from '../package-root.ts';
import type { Database } from '../db/schema.ts';
import { createIdentityService } from './identity.ts';
import { createKeyService } from './keys/keys.ts';
import { createLocationService } from './locations/locations.ts';
import type { MonitorChecks } from './monitors/checks.ts';
import { createMonitorService } from './monitors/monitors.ts';
import { createSessionService } from './sessions/sessions.ts';
import { createWorkspaceService } from './workspaces/workspaces.ts';

/**
 * Every domain service over one database: the single boundary all surfaces call. `checks` is the
 * check engine; by default one that runs checks only when asked (the service passes its
 * scheduling engine).
 */
export function createServices(db: Kysely<Database>, checks: MonitorChecks = createCheckEngine(db, { log: pino({ enabled: false }), version: VERSION, schedule: false }).checks) {
  return {
    workspaces: createWorkspaceService(db),
    keys: createKeyService(db),
    identity: createIdentityService(db),
    sessions: createSessionService(db),
    monitors: createMonitorService(db, checks),
    locations: createLocationService(db),
  };
}

export type Services = ReturnType<typeof createServices>;
