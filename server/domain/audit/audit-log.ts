import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AuditLogRow, Database } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { planOfWorkspace } from '../plans.ts';
import { type Pagination, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';

/** Entries older than this are not shown (SPEC 8): the log answers for the last two weeks. */
const AUDIT_READ_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;
const MAX_PER_PAGE = 50;

export interface AuditEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  actorType: string;
  actorId: string;
  actorUserId: number | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changedFields: string[];
  createdAt: string;
}

const listInput = z.strictObject({
  entityType: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
  entityId: z.union([z.string(), z.number()]).transform(String).optional(),
  ...pageQuery(MAX_PER_PAGE),
});

function toEntry(row: AuditLogRow): AuditEntry {
  return {
    id: String(row.id),
    entityType: row.entity_type,
    entityId: row.entity_id,
    action: row.action,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorUserId: row.actor_user_id,
    before: row.before === null ? null : JSON.parse(row.before),
    after: row.after === null ? null : JSON.parse(row.after),
    changedFields: JSON.parse(row.changed_fields),
    createdAt: row.created_at,
  };
}

/**
 * Reading the audit log. Entries are written on every plan by the services that make changes
 * (audit.ts); reading them is a feature of the plans that have it.
 */
export function createAuditLogService(db: Kysely<Database>, now: () => number = Date.now) {
  async function readable(actor: Actor, workspaceId: number): Promise<string> {
    await authorize(db, actor, workspaceId, 'read');
    const plan = await planOfWorkspace(db, workspaceId);
    if (!plan.auditLog) {
      throw new AppError('PRECONDITION_FAILED', `the audit log is not part of the ${plan.name} plan; it comes with the pro and scale plans`);
    }
    return new Date(now() - AUDIT_READ_WINDOW_MS).toISOString();
  }

  return {
    /** Entries of the last 14 days, newest first, optionally of one entity type or entity. */
    async list(actor: Actor, workspaceId: number, query: unknown = {}): Promise<{ auditLogs: AuditEntry[]; pagination: Pagination }> {
      const since = await readable(actor, workspaceId);
      const input = parseInput(listInput, query);
      let base = db.selectFrom('audit_log').where('workspace_id', '=', workspaceId).where('created_at', '>=', since);
      if (input.entityType !== undefined) base = base.where('entity_type', '=', input.entityType);
      if (input.entityId !== undefined) base = base.where('entity_id', '=', input.entityId);
      const [rows, total] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(input.perPage)
          .offset((input.page - 1) * input.perPage)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { auditLogs: rows.map(toEntry), pagination: paginationOf(input.page, input.perPage, Number(total.n)) };
    },

    /** One entry with its before and after snapshots; entries past the 14 days are not found. */
    async get(actor: Actor, workspaceId: number, id: string): Promise<AuditEntry> {
      const since = await readable(actor, workspaceId);
      const row = await db
        .selectFrom('audit_log')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', parseId('auditLogId', 'audit log entry', id))
        .where('created_at', '>=', since)
        .executeTakeFirst();
      if (!row) throw notFound('audit log entry', id);
      return toEntry(row);
    },
  };
}
