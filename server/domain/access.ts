import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { type Actor, requireWriteScope } from './actor.ts';
import { roleOf } from './workspaces/workspace-repository.ts';

/** What a call needs: to read, to change, or to manage the workspace itself (keys, members). */
export type Need = 'read' | 'write' | 'manage';

/**
 * The workspace check every domain service makes before touching a workspace's data. A workspace
 * the actor cannot see is reported as not found, so ids of other workspaces leak nothing.
 */
export async function authorize(db: Kysely<Database>, actor: Actor, workspaceId: number, need: Need): Promise<void> {
  switch (actor.type) {
    case 'system':
      return;
    case 'apiKey':
    case 'oauth':
      if (actor.workspaceId !== workspaceId) throw new AppError('NOT_FOUND', `workspace ${workspaceId} does not exist`);
      if (need !== 'read') requireWriteScope(actor);
      return;
    case 'user': {
      const role = await roleOf(db, workspaceId, actor.userId);
      if (!role) throw new AppError('NOT_FOUND', `workspace ${workspaceId} does not exist`);
      if (need === 'manage' && role === 'member') {
        throw new AppError('FORBIDDEN', 'only an owner or admin of the workspace can do this');
      }
      return;
    }
  }
}
