import type { Kysely } from 'kysely';
import type { Database, OAuthGrantRow, OAuthScope } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { type Actor, isCredential } from '../actor.ts';
import { authorize, roleAllows } from '../access.ts';
import { roleOf } from '../workspaces/workspace-repository.ts';
import { recordAudit } from '../audit/audit.ts';
import { auditRowsOfActor } from '../audit/audit-repository.ts';
import { parseId } from '../validation.ts';
import type { OAuthClient } from './clients.ts';
import { storeGrantedClient } from './client-repository.ts';
import { findGrantRow, findGrantWithClientName, insertGrant, listLiveGrantsWithNames, liveGrantIdsOfClient, markGrantRevoked } from './grant-repository.ts';
import { deleteGrantTokens } from './token-repository.ts';

/** Why a grant ended: shown in its `oauth_grant.delete` audit entry. */
export type RevokeReason = 'revoked' | 'replaced' | 'code_replayed' | 'refresh_token_reused' | 'member_removed';

/** A live grant as Connected apps shows it. */
export interface Connection {
  id: string;
  clientId: string;
  clientName: string;
  clientSource: 'registered' | 'metadata';
  /** The host of the metadata document, or null for a registered client. */
  clientHost: string | null;
  access: OAuthScope;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  userName: string;
  connectedAt: string;
  lastUsedAt: string | null;
  /** Audit entries the connection wrote. */
  changes: number;
}

export interface ConnectionActivity {
  id: string;
  action: string;
  entityType: string;
  entityId: string;
  createdAt: string;
}

/** The audit actor id of a grant's tokens (SPEC 6.1). */
const grantActorId = (grantId: number) => `oat_${grantId}`;

const hostOf = (clientId: string, source: string) => (source === 'metadata' ? new URL(clientId).hostname : null);

function snapshot(grant: OAuthGrantRow, clientName: string, reason?: RevokeReason): Record<string, unknown> {
  return {
    id: String(grant.id),
    clientId: grant.client_id,
    clientName,
    userId: String(grant.user_id),
    workspaceId: String(grant.workspace_id),
    access: grant.scope,
    resource: grant.resource,
    createdAt: grant.created_at,
    revokedAt: grant.revoked_at,
    ...(reason ? { reason } : {}),
  };
}

/** Revokes a live grant inside `trx` and writes its `oauth_grant.delete` entry; a revoked one is left as it is. */
export async function revokeGrant(trx: Kysely<Database>, grantId: number, actor: Actor, reason: RevokeReason): Promise<OAuthGrantRow | undefined> {
  const before = await findGrantWithClientName(trx, grantId);
  if (!before || before.revoked_at) return undefined;
  const { client_name, ...grant } = before;
  const after = await markGrantRevoked(trx, grantId, new Date().toISOString());
  await deleteGrantTokens(trx, grantId);
  await recordAudit(trx, {
    workspaceId: grant.workspace_id,
    entityType: 'oauth_grant',
    entityId: grant.id,
    action: 'oauth_grant.delete',
    actor,
    before: snapshot(grant, client_name),
    after: snapshot(after, client_name, reason),
  });
  return after;
}

/**
 * Creates the grant a person approved, replacing any live grant of the same client and person
 * (SPEC 3.4: one live grant per client and user), in one transaction with its audit entries.
 */
export async function createGrant(
  trx: Kysely<Database>,
  actor: Extract<Actor, { type: 'user' }>,
  client: OAuthClient,
  values: { workspaceId: number; scope: OAuthScope; resource: string },
): Promise<OAuthGrantRow> {
  const now = new Date().toISOString();
  // A metadata-document client is stored when first approved, so grants can name it; its name follows the document.
  await storeGrantedClient(trx, client, now);
  for (const id of await liveGrantIdsOfClient(trx, client.id, actor.userId)) await revokeGrant(trx, id, actor, 'replaced');
  const grant = await insertGrant(trx, {
    client_id: client.id,
    user_id: actor.userId,
    workspace_id: values.workspaceId,
    scope: values.scope,
    resource: values.resource,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  });
  await recordAudit(trx, {
    workspaceId: values.workspaceId,
    entityType: 'oauth_grant',
    entityId: grant.id,
    action: 'oauth_grant.create',
    actor,
    before: null,
    after: snapshot(grant, client.name),
  });
  return grant;
}

/** Connected apps: the live grants of a workspace, who may see and revoke them. */
export function createConnectionService(db: Kysely<Database>) {
  async function findGrant(q: Kysely<Database>, actor: Actor, connectionId: string): Promise<OAuthGrantRow> {
    const id = parseId('connectionId', 'connection', connectionId);
    const row = await findGrantRow(q, id);
    if (!row) throw new AppError('NOT_FOUND', `connection ${connectionId} does not exist`);
    await authorize(q, actor, row.workspace_id, 'read');
    return row;
  }

  return {
    /** The workspace's connections; a member sees their own only, owners and admins every one (SPEC 3.4). */
    async list(actor: Actor, workspaceId: number): Promise<Connection[]> {
      await authorize(db, actor, workspaceId, 'read');
      const onlyOwn = actor.type === 'user' && !roleAllows((await roleOf(db, workspaceId, actor.userId))!, 'admin');
      const rows = await listLiveGrantsWithNames(db, workspaceId);
      return rows
        .filter((r) => !onlyOwn || (actor.type === 'user' && r.user_id === actor.userId))
        .map((r) => ({
          id: String(r.id),
          clientId: r.client_id,
          clientName: r.client_name,
          clientSource: r.client_source,
          clientHost: hostOf(r.client_id, r.client_source),
          access: r.scope,
          workspaceId: String(r.workspace_id),
          workspaceName: r.workspace_name,
          userId: String(r.user_id),
          userName: r.user_name,
          connectedAt: r.created_at,
          lastUsedAt: r.last_used_at,
          changes: Number(r.changes ?? 0),
        }));
    },

    /** The changes a connection made (its audit entries), newest first. */
    async activity(actor: Actor, connectionId: string): Promise<ConnectionActivity[]> {
      const grant = await findGrant(db, actor, connectionId);
      return (await auditRowsOfActor(db, grant.workspace_id, grantActorId(grant.id), 50)).map((r) => ({
        id: String(r.id),
        action: r.action,
        entityType: r.entity_type,
        entityId: r.entity_id,
        createdAt: r.created_at,
      }));
    },

    /** Members revoke their own connections; owners and admins any (SPEC 3.4). */
    async revoke(actor: Actor, connectionId: string): Promise<{ id: string; revokedAt: string | null }> {
      if (isCredential(actor)) throw new AppError('FORBIDDEN', 'connections are revoked in the dashboard, or by the app itself at /oauth/revoke');
      return writeTransaction(db, async (trx) => {
        const grant = await findGrant(trx, actor, connectionId);
        if (actor.type === 'user' && grant.user_id !== actor.userId) await authorize(trx, actor, grant.workspace_id, 'admin');
        const revoked = (await revokeGrant(trx, grant.id, actor, 'revoked')) ?? grant;
        return { id: String(revoked.id), revokedAt: revoked.revoked_at };
      });
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
