import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AuditLogRow, Database } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { planOfWorkspace } from '../plans.ts';
import { type Pagination, builtOnFirstUse, invalid, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import { type AuditActorView, auditActorKinds, describeActors } from './audit-actors.ts';
import { auditRowsBelow, endedRecords, findAuditRow, listAuditRows } from './audit-repository.ts';
import { actionWords, ENDING_ACTIONS, nameAtTheTime, pageOf, recordPath } from './audit-words.ts';

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

const listInput = builtOnFirstUse(() =>
  z.strictObject({
    entityType: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    entityId: z.union([z.string(), z.number()]).transform(String).optional(),
    ...pageQuery(MAX_PER_PAGE),
  }),
);

/** An entry with its actor described for people (see audit-actors.ts). */
export interface AttributedAuditEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  actor: AuditActorView;
  changedFields: string[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
  /** The action in words, between the actor's name and the record's (audit-words.ts). */
  words: string;
  /** The record as it was named then, and where it is in the dashboard (null: gone, or no screen). */
  record: { name: string; path: string | null };
}

/**
 * The words and records of a page of entries. A record's name is the one its entry's snapshots
 * hold, else another entry's of the page (an MCP monitor's tool entries name no monitor), else
 * its id; whether it still exists is asked of the log once for the page.
 */
async function wordsOf(
  db: Kysely<Database>,
  workspaceId: number,
  entries: AuditEntry[],
): Promise<(entry: AuditEntry) => Pick<AttributedAuditEntry, 'words' | 'record'>> {
  const names = new Map<string, string>();
  for (const entry of entries) {
    const name = nameAtTheTime(entry);
    const key = `${entry.entityType}:${entry.entityId}`;
    if (name !== undefined && !names.has(key)) names.set(key, name);
  }
  const records = entries.flatMap((entry) => {
    const page = pageOf(entry);
    return page === undefined ? [entry] : [entry, { entityType: 'status_page', entityId: page }];
  });
  const ended = await endedRecords(db, workspaceId, records, ENDING_ACTIONS);
  const gone = (entityType: string, id: string) => ended.has(`${entityType}:${id}`);
  return (entry) => ({
    words: actionWords(entry),
    record: {
      name: nameAtTheTime(entry) ?? names.get(`${entry.entityType}:${entry.entityId}`) ?? `#${entry.entityId}`,
      path: recordPath(entry, gone),
    },
  });
}

const MAX_ENTRIES = 100;
const DEFAULT_ENTRIES = 50;
const entriesRule = `must be a whole number from 1 to ${MAX_ENTRIES}`;
const timeRule = 'must be an ISO 8601 date and time, e.g. 2026-01-31T09:00:00Z';
/** A time of a query, as the stored times are written (so they compare as text). */
const queryTime = builtOnFirstUse(() =>
  z
    .string()
    .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), timeRule)
    .transform((v) => new Date(v).toISOString())
    .optional(),
);

const entriesInput = builtOnFirstUse(() =>
  z.object({
    entityType: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    entityId: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    actor: z.enum(auditActorKinds, { error: `must be one of ${auditActorKinds.join(', ')}` }).optional(),
    from: queryTime(),
    to: queryTime(),
    limit: z
      .string()
      .regex(/^\d{1,9}$/, entriesRule)
      .transform(Number)
      .pipe(z.number().min(1, entriesRule).max(MAX_ENTRIES, entriesRule))
      .optional(),
    cursor: z.string().max(200, 'must be the next of an earlier page').optional(),
  }),
);

/** Where a page ends: the last entry's time and id, which the next page continues below. */
interface Cursor {
  createdAt: string;
  id: number;
}

/** Opaque to callers: they only hand back what a page gave them. */
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.createdAt, c.id])).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isSafeInteger(value[1]) && value[1] > 0) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // answered below
  }
  throw invalid('cursor', 'must be the next of an earlier page');
}

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
      const input = parseInput(listInput(), query);
      const filter = { since, entityType: input.entityType, entityId: input.entityId };
      const { rows, total } = await listAuditRows(db, workspaceId, filter, input.perPage, (input.page - 1) * input.perPage);
      return { auditLogs: rows.map(toEntry), pagination: paginationOf(input.page, input.perPage, total) };
    },

    /**
     * A page of the entries of the last 14 days, newest first, with who made each change as
     * people name them; filtered by entity, kind of actor and time (`from` and `to` inclusive).
     * `next` continues below the page's last entry, so entries written meanwhile do not shift it.
     */
    async entries(actor: Actor, workspaceId: number, query: unknown = {}): Promise<{ entries: AttributedAuditEntry[]; next: string | null }> {
      const since = await readable(actor, workspaceId);
      const input = parseInput(entriesInput(), query);
      const limit = input.limit ?? DEFAULT_ENTRIES;
      const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
      const from = input.from !== undefined && input.from > since ? input.from : since;
      const filter = { from, to: input.to, entityType: input.entityType, entityId: input.entityId, actor: input.actor, before: cursor };
      // One more than the page: whether there is a next page, without counting.
      const found = await auditRowsBelow(db, workspaceId, filter, limit + 1);
      const page = found.slice(0, limit);
      const actorOf = await describeActors(db, page);
      const shown = page.map(toEntry);
      const wordsFor = await wordsOf(db, workspaceId, shown);
      const lastOfPage = page.at(-1);
      return {
        entries: page.map((row, i) => {
          const entry = shown[i]!;
          return {
            id: entry.id,
            entityType: entry.entityType,
            entityId: entry.entityId,
            action: entry.action,
            actor: actorOf(row),
            changedFields: entry.changedFields,
            before: entry.before,
            after: entry.after,
            createdAt: entry.createdAt,
            ...wordsFor(entry),
          };
        }),
        next: found.length > limit && lastOfPage ? encodeCursor({ createdAt: lastOfPage.created_at, id: lastOfPage.id }) : null,
      };
    },

    /** One entry with its before and after snapshots; entries past the 14 days are not found. */
    async get(actor: Actor, workspaceId: number, id: string): Promise<AuditEntry> {
      const since = await readable(actor, workspaceId);
      const row = await findAuditRow(db, workspaceId, parseId('auditLogId', 'audit log entry', id), since);
      if (!row) throw notFound('audit log entry', id);
      return toEntry(row);
    },
  };
}
