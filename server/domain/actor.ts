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
      /** An OAuth connection: a client acting, within one workspace, for the person who approved it. */
      type: 'oauth';
      grantId: number;
      clientId: string;
      scopes: Scope[];
      workspaceId: number;
      /** Who approved the connection. */
      userId: number;
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

/** A credential of the APIs: an API key or an OAuth connection, bound to one workspace. */
export type Credential = Extract<Actor, { type: 'apiKey' | 'oauth' }>;

export function isCredential(actor: Actor): actor is Credential {
  return actor.type === 'apiKey' || actor.type === 'oauth';
}

/** The stable id of a credential (SPEC 6.1): the key id, or `oat_<grant id>` for an OAuth connection. */
export function credentialId(actor: Credential): string {
  return actor.type === 'apiKey' ? actor.keyId : `oat_${actor.grantId}`;
}

/**
 * The audit columns that say who did it (SPEC 6.1), and through which surface: a person acts as
 * the same actor type in the dashboard and in the CLI, and only the surface tells them apart.
 */
export function auditActor(actor: Actor): { actor_type: string; actor_id: string; actor_user_id: number | null; actor_surface: Surface } {
  const type = actor.surface === 'mcp' ? 'mcp' : actor.type;
  const actor_surface = actor.surface;
  switch (actor.type) {
    case 'apiKey':
    case 'oauth':
      return { actor_type: type, actor_id: credentialId(actor), actor_user_id: actor.userId, actor_surface };
    case 'user':
      return { actor_type: type, actor_id: String(actor.userId), actor_user_id: actor.userId, actor_surface };
    case 'system':
      return { actor_type: type, actor_id: 'system', actor_user_id: null, actor_surface };
  }
}

/** Refuses a mutation by a read-only credential. This check, not any surface's tool list, is the boundary. */
export function requireWriteScope(actor: Actor): void {
  if (actor.type === 'apiKey' && !actor.scopes.includes('write')) {
    throw new AppError('FORBIDDEN', 'this API key is read-only; create a read & write key to make changes');
  }
  if (actor.type === 'oauth' && !actor.scopes.includes('write')) {
    throw new AppError('FORBIDDEN', 'this connection has read-only access; reconnect the app and choose Read & write to make changes');
  }
}
