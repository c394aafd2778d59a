import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { type Actor, auditActor } from '../actor.ts';
import { insertAuditEntry } from './audit-repository.ts';

export type Snapshot = Record<string, unknown>;

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
 * Told each time an entry is written, with nothing about it: a nudge to read the log again. The
 * entry is still inside its transaction then, and a read through the same database waits for that
 * transaction to end, so a reader sees the entry only once it is committed (and never if it is
 * rolled back). Entries of every database in the process nudge every listener; each reads its own.
 */
const recorded = new Set<() => void>();

/** Subscribes to the nudge of recordAudit; returns the unsubscribe. */
export function onAuditRecorded(listener: () => void): () => void {
  recorded.add(listener);
  return () => recorded.delete(listener);
}

/**
 * Writes the audit entry of a mutation. Call it inside the mutation's own transaction, so the
 * change and its entry commit together or not at all. An update that changed nothing writes none.
 */
export async function recordAudit(trx: Kysely<Database>, change: AuditChange): Promise<boolean> {
  const fields = changedFields(change.before, change.after);
  if (fields.length === 0) return false;
  await insertAuditEntry(trx, {
    workspace_id: change.workspaceId,
    entity_type: change.entityType,
    entity_id: String(change.entityId),
    action: change.action,
    ...auditActor(change.actor),
    before: change.before && JSON.stringify(change.before),
    after: change.after && JSON.stringify(change.after),
    changed_fields: JSON.stringify(fields),
    created_at: new Date().toISOString(),
  });
  for (const listener of recorded) listener();
  return true;
}

/** Thrown by `recordUpdate` inside `updateTransaction` to undo an update that changed nothing. */
class NothingChanged {
  readonly unchanged: unknown;
  constructor(unchanged: unknown) {
    this.unchanged = unchanged;
  }
}

/**
 * An update's write transaction, undone whole when its `recordUpdate` finds that nothing changed:
 * a save whose values equal the stored ones leaves the rows (their `updated_at`, a monitor's
 * revision, links rewritten to the same) and the audit log as they were, and answers `unchanged`.
 */
export async function updateTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  try {
    return await writeTransaction(db, work);
  } catch (error) {
    if (error instanceof NothingChanged) return error.unchanged as T;
    throw error;
  }
}

/**
 * The audit entry of an update run by `updateTransaction`. When the snapshots are equal (the
 * same rule as `recordAudit`'s), it undoes the transaction, which then answers `unchanged`: what
 * the record was, and still is.
 */
export async function recordUpdate(trx: Kysely<Database>, change: AuditChange, unchanged: unknown): Promise<void> {
  if (!(await recordAudit(trx, change))) throw new NothingChanged(unchanged);
}
