import type { Kysely } from 'kysely';
import type { AuditLogRow, Database } from '../../db/schema.ts';
import { keyNames as findKeyNames } from '../keys/key-repository.ts';
import { clientNamesOfGrants } from '../oauth/grant-repository.ts';
import { userNames as findUserNames } from '../users/user-repository.ts';
import { idOf } from '../validation.ts';

/**
 * Who made an audited change, as people tell them apart: through an API key, an OAuth
 * connection, MCP (whatever the credential), the dashboard, the CLI, or the service itself.
 */
export const auditActorKinds = ['apiKey', 'oauth', 'mcp', 'dashboard', 'cli', 'system'] as const;
export type AuditActorKind = (typeof auditActorKinds)[number];

export interface AuditActorView {
  kind: AuditActorKind;
  /** As stored: the key id, `oat_<grant id>`, the person's id, or `system`. */
  id: string;
  /** The key's name, the connected app's name, the person's name, or Statusdesk. */
  label: string;
}

type ActorColumns = Pick<AuditLogRow, 'actor_type' | 'actor_id' | 'actor_user_id' | 'actor_surface'>;

/** A person acts through the dashboard or the CLI; entries written before the surface was kept are the CLI's. */
function kindOf(row: ActorColumns): AuditActorKind {
  switch (row.actor_type) {
    case 'apiKey':
    case 'oauth':
    case 'mcp':
    case 'system':
      return row.actor_type;
    default:
      return row.actor_surface === 'dashboard' ? 'dashboard' : 'cli';
  }
}

/** The grant of an OAuth connection's actor id (`oat_<grant id>`). */
const grantIdOf = (actorId: string) => (actorId.startsWith('oat_') ? idOf(actorId.slice('oat_'.length)) : undefined);

/**
 * The actors of these entries as people read them. Names are looked up once per page; a key,
 * connection or person that is gone keeps its id in the label.
 */
export async function describeActors(db: Kysely<Database>, rows: ActorColumns[]): Promise<(row: ActorColumns) => AuditActorView> {
  const keyIds = new Set<number>();
  const grantIds = new Set<number>();
  const userIds = new Set<number>();
  for (const row of rows) {
    const kind = kindOf(row);
    if (kind === 'dashboard' || kind === 'cli') {
      if (row.actor_user_id !== null) userIds.add(row.actor_user_id);
    } else if (kind !== 'system') {
      const grant = grantIdOf(row.actor_id);
      const key = idOf(row.actor_id);
      if (grant !== undefined) grantIds.add(grant);
      else if (key !== undefined) keyIds.add(key);
    }
  }
  const [keys, grants, users] = await Promise.all([findKeyNames(db, [...keyIds]), clientNamesOfGrants(db, [...grantIds]), findUserNames(db, [...userIds])]);
  const keyNames = new Map(keys.map((k) => [String(k.id), k.name]));
  const appNames = new Map(grants.map((g) => [`oat_${g.id}`, g.name]));
  const userNames = new Map(users.map((u) => [u.id, u.name]));
  return (row) => {
    const kind = kindOf(row);
    const id = row.actor_id;
    switch (kind) {
      case 'system':
        return { kind, id, label: 'Statusdesk' };
      case 'dashboard':
      case 'cli':
        return { kind, id, label: (row.actor_user_id !== null && userNames.get(row.actor_user_id)) || `user ${id}` };
      default:
        return { kind, id, label: keyNames.get(id) ?? appNames.get(id) ?? (grantIdOf(id) !== undefined ? `connection ${id}` : `API key ${id}`) };
    }
  };
}
