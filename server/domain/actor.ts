import { AppError } from '../errors.ts';

export type Scope = 'read' | 'write';
export const scopes = ['read', 'write'] as const satisfies readonly Scope[];

/** The surface a call came through. It decides nothing but how the call is audited. */
export type Surface = 'rest' | 'rpc' | 'mcp' | 'cli' | 'dashboard';

export type Role = 'owner' | 'admin' | 'member';

/** Who is acting: resolved once at the edge, checked by every domain service. */
export type Actor =
  | {
      type: 'apiKey';
      keyId: string;
      scopes: Scope[];
      workspaceId: number;
      /** Who created the key, if known. */
      userId: number | null;
      surface: Surface;
    }
  | {
      /** A person using the owner's local tools (the CLI on the data folder, or the signed-in dashboard). */
      type: 'user';
      userId: number;
      surface: Surface;
    }
  | {
      /** The service itself, for what happens at first start. */
      type: 'system';
      surface: Surface;
    };

/** The three audit columns that say who did it (SPEC 6.1). */
export function auditActor(actor: Actor): { actor_type: string; actor_id: string; actor_user_id: number | null } {
  const type = actor.surface === 'mcp' ? 'mcp' : actor.type;
  switch (actor.type) {
    case 'apiKey':
      return { actor_type: type, actor_id: actor.keyId, actor_user_id: actor.userId };
    case 'user':
      return { actor_type: type, actor_id: String(actor.userId), actor_user_id: actor.userId };
    case 'system':
      return { actor_type: type, actor_id: 'system', actor_user_id: null };
  }
}

/** Refuses a mutation by a read-only key. This check, not any surface's tool list, is the boundary. */
export function requireWriteScope(actor: Actor): void {
  if (actor.type === 'apiKey' && !actor.scopes.includes('write')) {
    throw new AppError('FORBIDDEN', 'this API key is read-only; create a read & write key to make changes');
  }
}
