import { userInfo } from 'node:os';
import type { Kysely } from 'kysely';
import { writeTransaction } from '../../db/transaction.ts';
import type { Database } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { recordAudit } from '../audit/audit.ts';
import { toWorkspace } from '../workspaces/workspaces.ts';

export const DEFAULT_WORKSPACE_SLUG = 'personal';

function localUserName(): string {
  try {
    return userInfo().username || 'owner';
  } catch {
    return 'owner';
  }
}

/**
 * First start: the machine's user becomes the owner of a default workspace on the plan with
 * every feature. Later starts find the owner and change nothing. Returns the owner's id.
 */
export async function ensureOwner(db: Kysely<Database>): Promise<number> {
  const findOwner = (q: Kysely<Database>) =>
    q.selectFrom('memberships').select('user_id').where('role', '=', 'owner').orderBy('created_at').executeTakeFirst();
  const existing = await findOwner(db);
  if (existing) return existing.user_id;
  return writeTransaction(db, async (trx) => {
    const raced = await findOwner(trx);
    if (raced) return raced.user_id;
    const now = new Date().toISOString();
    const name = localUserName();
    const user = await trx.insertInto('users').values({ name, email: null, created_at: now }).returning('id').executeTakeFirstOrThrow();
    const row = await trx
      .insertInto('workspaces')
      .values({ name: `${name}'s workspace`, slug: DEFAULT_WORKSPACE_SLUG, plan: 'scale', created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.insertInto('memberships').values({ workspace_id: row.id, user_id: user.id, role: 'owner', created_at: now }).execute();
    const system: Actor = { type: 'system', surface: 'cli' };
    await recordAudit(trx, {
      workspaceId: row.id,
      entityType: 'workspace',
      entityId: row.id,
      action: 'workspace.create',
      actor: system,
      before: null,
      after: { ...toWorkspace(row), ownerUserId: String(user.id), ownerName: name },
    });
    return user.id;
  });
}

/** A person as the dashboard shows them. */
export interface User {
  id: string;
  name: string;
}

export function createUserService(db: Kysely<Database>) {
  return {
    async get(userId: number): Promise<User | undefined> {
      const row = await db.selectFrom('users').select(['id', 'name']).where('id', '=', userId).executeTakeFirst();
      return row && { id: String(row.id), name: row.name };
    },
  };
}
