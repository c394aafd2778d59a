import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { type Actor, type Role, requireWriteScope } from './actor.ts';
import { roleOf } from './workspaces/workspace-repository.ts';

/**
 * What a call needs: to read; to change monitors, pages, reports and maintenance (every member);
 * to manage channels, keys, private locations, email and members (admins and owners); or to manage
 * the workspace itself and its plan (owners).
 */
export type Need = 'read' | 'write' | 'admin' | 'owner';

/** The roles from least to most: each may do what the ones before it may. */
const ROLES: readonly Role[] = ['member', 'admin', 'owner'];
/** The least role each need takes. */
const LEAST_ROLE: Record<Need, Role> = { read: 'member', write: 'member', admin: 'admin', owner: 'owner' };

const forbidden = (need: Need, role: Role) =>
  new AppError(
    'FORBIDDEN',
    `this needs the ${LEAST_ROLE[need]} role in this workspace${need === 'admin' ? ' (or owner)' : ''}; you are ${role === 'admin' ? 'an' : 'a'} ${role}`,
  );

/** Whether `role` may do what `need` takes. */
export function roleAllows(role: Role, need: Need): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(LEAST_ROLE[need]);
}

/**
 * The workspace check every domain service makes before touching a workspace's data, and the one
 * place roles are enforced. A workspace the actor cannot see is reported as not found, so ids of
 * other workspaces leak nothing. A credential acts for the person who made it (an API key) or
 * approved it (an OAuth connection): within its scope, and within that person's role.
 */
export async function authorize(db: Kysely<Database>, actor: Actor, workspaceId: number, need: Need): Promise<void> {
  switch (actor.type) {
    case 'system':
      return;
    case 'apiKey':
    case 'oauth': {
      if (actor.workspaceId !== workspaceId) throw new AppError('NOT_FOUND', `workspace ${workspaceId} does not exist`);
      if (need !== 'read') requireWriteScope(actor);
      // Every member reads and writes: only the needs above a member's ask for the person's role.
      // A key the owner's local tools made for nobody in particular acts as the owner.
      if (LEAST_ROLE[need] === 'member' || actor.userId === null) return;
      const role = await roleOf(db, workspaceId, actor.userId);
      if (!role) throw new AppError('UNAUTHORIZED', 'the person this credential acts for is no longer a member of the workspace');
      if (!roleAllows(role, need)) throw forbidden(need, role);
      return;
    }
    case 'user': {
      const role = await roleOf(db, workspaceId, actor.userId);
      if (!role) throw new AppError('NOT_FOUND', `workspace ${workspaceId} does not exist`);
      if (!roleAllows(role, need)) throw forbidden(need, role);
      return;
    }
  }
}
