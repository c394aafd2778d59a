import { userInfo } from 'node:os';
import type { Kysely } from 'kysely';
import { writeTransaction } from '../../db/transaction.ts';
import type { Database } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { recordAudit } from '../audit/audit.ts';
import { toWorkspace } from '../workspaces/workspaces.ts';
import { firstOwnerId, insertMembership, insertWorkspace } from '../workspaces/workspace-repository.ts';
import { findUserRow, insertUser } from './user-repository.ts';

const DEFAULT_WORKSPACE_SLUG = 'personal';

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
  const existing = await firstOwnerId(db);
  if (existing !== undefined) return existing;
  return writeTransaction(db, async (trx) => {
    const raced = await firstOwnerId(trx);
    if (raced !== undefined) return raced;
    const now = new Date().toISOString();
    const name = localUserName();
    const userId = await insertUser(trx, name, now);
    const row = await insertWorkspace(trx, { name: `${name}'s workspace`, slug: DEFAULT_WORKSPACE_SLUG, plan: 'scale', createdAt: now });
    await insertMembership(trx, row.id, userId, 'owner', now);
    const system: Actor = { type: 'system', surface: 'cli' };
    await recordAudit(trx, {
      workspaceId: row.id,
      entityType: 'workspace',
      entityId: row.id,
      action: 'workspace.create',
      actor: system,
      before: null,
      after: { ...toWorkspace(row), ownerUserId: String(userId), ownerName: name },
    });
    return userId;
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
      const row = await findUserRow(db, userId);
      return row && { id: String(row.id), name: row.name };
    },
  };
}
