import type { Kysely } from 'kysely';
import type { AuditLogRow, Database } from '../../db/schema.ts';
import { type Actor, auditActor } from '../actor.ts';

type Snapshot = Record<string, unknown>;

export interface AuditChange {
  workspaceId: number;
  entityType: string;
  entityId: string | number;
  /** `<entity>.<verb>`, e.g. `api_key.create`. */
  action: string;
  actor: Actor;
  before: Snapshot | null;
  after: Snapshot | null;
}

/** Top-level fields whose values differ between the two snapshots. */
export function changedFields(before: Snapshot | null, after: Snapshot | null): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...keys].filter((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k])).sort();
}

/**
 * Writes the audit entry of a mutation. Call it inside the mutation's own transaction, so the
 * change and its entry commit together or not at all. An update that changed nothing writes none.
 */
export async function recordAudit(trx: Kysely<Database>, change: AuditChange): Promise<boolean> {
  const fields = changedFields(change.before, change.after);
  if (fields.length === 0) return false;
  await trx
    .insertInto('audit_log')
    .values({
      workspace_id: change.workspaceId,
      entity_type: change.entityType,
      entity_id: String(change.entityId),
      action: change.action,
      ...auditActor(change.actor),
      before: change.before && JSON.stringify(change.before),
      after: change.after && JSON.stringify(change.after),
      changed_fields: JSON.stringify(fields),
      created_at: new Date().toISOString(),
    })
    .execute();
  return true;
}

/** An audit entry as the API shows it (SPEC 2.10). */
export interface AuditEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_user_id: string | null;
  before: Snapshot | null;
  after: Snapshot | null;
  changedFields: string[];
  createdAt: string;
}

export function toAuditEntry(row: AuditLogRow): AuditEntry {
  return {
    id: String(row.id),
    entityType: row.entity_type,
    entityId: row.entity_id,
    action: row.action,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    actor_user_id: row.actor_user_id === null ? null : String(row.actor_user_id),
    before: row.before === null ? null : JSON.parse(row.before),
    after: row.after === null ? null : JSON.parse(row.after),
    changedFields: JSON.parse(row.changed_fields),
    createdAt: row.created_at,
  };
}

/** Entries of one workspace, newest first, optionally of one entity. */
export async function listAuditEntries(
  db: Kysely<Database>,
  workspaceId: number,
  filter: { entityType?: string; entityId?: string; since?: string; limit?: number } = {},
): Promise<AuditEntry[]> {
  let query = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.entityType) query = query.where('entity_type', '=', filter.entityType);
  if (filter.entityId) query = query.where('entity_id', '=', filter.entityId);
  if (filter.since) query = query.where('created_at', '>=', filter.since);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit ?? 50).execute();
  return rows.map(toAuditEntry);
}
