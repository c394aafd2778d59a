import type { Kysely } from 'kysely';
import type { Database, InvitationTable } from '../../db/schema.ts';
import type { Role } from '../actor.ts';

/** The members of a workspace with their names, owners first, then by when they joined. */
export async function memberRows(db: Kysely<Database>, workspaceId: number) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('memberships.created_at')
    .orderBy('users.id')
    .execute();
}

export async function updateMembershipRole(db: Kysely<Database>, workspaceId: number, userId: number, role: Role): Promise<void> {
  await db.updateTable('memberships').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export async function insertInvitation(
  db: Kysely<Database>,
  values: Pick<InvitationTable, 'workspace_id' | 'role' | 'token_hash' | 'note' | 'created_by'> & { created_at: string; expires_at: string },
) {
  return db.insertInto('invitations').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A workspace's invitations, newest first, with the names of who made and who accepted each. */
export async function invitationRows(db: Kysely<Database>, workspaceId: number, limit: number) {
  return db
    .selectFrom('invitations as i')
    .leftJoin('users as maker', 'maker.id', 'i.created_by')
    .leftJoin('users as joiner', 'joiner.id', 'i.accepted_by')
    .selectAll('i')
    .select(['maker.name as created_by_name', 'joiner.name as accepted_by_name'])
    .where('i.workspace_id', '=', workspaceId)
    .orderBy('i.id', 'desc')
    .limit(limit)
    .execute();
}

export async function findInvitation(db: Kysely<Database>, workspaceId: number, id: number) {
  return db.selectFrom('invitations').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** An invitation by its secret's hash, with the name of its workspace and of who made it. */
export async function invitationByHash(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .leftJoin('users as maker', 'maker.id', 'i.created_by')
    .selectAll('i')
    .select(['w.name as workspace_name', 'maker.name as created_by_name'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Marks an invitation accepted by `userId` if it still can be (neither accepted, revoked nor
 * expired at `now`): one statement, so two people opening the same link cannot both join.
 */
export async function takeInvitation(db: Kysely<Database>, id: number, userId: number, now: string): Promise<boolean> {
  const taken = await db
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return taken !== undefined;
}

export async function markInvitationRevoked(db: Kysely<Database>, id: number, now: string): Promise<void> {
  await db.updateTable('invitations').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** The live API keys a person made in a workspace. */
export async function liveKeyIdsOf(db: Kysely<Database>, workspaceId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('created_by_user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}
