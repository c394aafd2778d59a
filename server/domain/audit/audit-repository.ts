import { type Expression, type Insertable, type Kysely, type SqlBool, sql } from 'kysely';
import type { AuditLogRow, AuditLogTable, Database } from '../../db/schema.ts';
import type { AuditActorKind } from './audit-actors.ts';

export async function insertAuditEntry(db: Kysely<Database>, values: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(values).execute();
}

export async function findAuditRow(db: Kysely<Database>, workspaceId: number, id: number, since: string): Promise<AuditLogRow | undefined> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('created_at', '>=', since)
    .executeTakeFirst();
}

/** A page of the workspace's entries since `since`, newest first, of one entity type or entity when named, with the total. */
export async function listAuditRows(
  db: Kysely<Database>,
  workspaceId: number,
  filter: { since: string; entityType?: string; entityId?: string },
  limit: number,
  offset: number,
): Promise<{ rows: AuditLogRow[]; total: number }> {
  let base = db.selectFrom('audit_log').where('workspace_id', '=', workspaceId).where('created_at', '>=', filter.since);
  if (filter.entityType !== undefined) base = base.where('entity_type', '=', filter.entityType);
  if (filter.entityId !== undefined) base = base.where('entity_id', '=', filter.entityId);
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/**
 * Up to `limit` of the workspace's entries in [from, to], newest first, filtered by entity and
 * kind of actor, below `before` (the last entry of the previous page) when given.
 */
export async function auditRowsBelow(
  db: Kysely<Database>,
  workspaceId: number,
  filter: { from: string; to?: string; entityType?: string; entityId?: string; actor?: AuditActorKind; before?: { createdAt: string; id: number } },
  limit: number,
): Promise<AuditLogRow[]> {
  let rows = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId).where('created_at', '>=', filter.from);
  if (filter.to !== undefined) rows = rows.where('created_at', '<=', filter.to);
  if (filter.entityType !== undefined) rows = rows.where('entity_type', '=', filter.entityType);
  if (filter.entityId !== undefined) rows = rows.where('entity_id', '=', filter.entityId);
  if (filter.actor !== undefined) rows = rows.where(actorKindCondition(filter.actor));
  const before = filter.before;
  if (before)
    rows = rows.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]));
  return rows.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The latest entries one actor wrote in a workspace, newest first. */
export async function auditRowsOfActor(db: Kysely<Database>, workspaceId: number, actorId: string, limit: number) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'action', 'entity_type', 'entity_id', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('actor_id', '=', actorId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The condition on audit_log's columns that picks the entries of one kind of actor. */
function actorKindCondition(kind: AuditActorKind): Expression<SqlBool> {
  switch (kind) {
    case 'dashboard':
      return sql<SqlBool>`(actor_type = 'user' and actor_surface = 'dashboard')`;
    case 'cli':
      return sql<SqlBool>`(actor_type = 'user' and (actor_surface is null or actor_surface <> 'dashboard'))`;
    default:
      return sql<SqlBool>`actor_type = ${kind}`;
  }
}

/** Up to `limit` entries after `afterId` in every workspace, oldest first, each with its latest snapshot. */
export async function auditSnapshotsAfter(db: Kysely<Database>, afterId: number, limit: number) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'workspace_id', 'entity_type', 'entity_id', (eb) => eb.fn.coalesce(eb.ref('after'), eb.ref('before')).as('snapshot')])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The id of the latest entry, 0 when there is none. */
export async function lastAuditId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.max('id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/**
 * Which of these records the log saw end (`actions`: their deletions and revocations), as
 * `<entity type>:<entity id>`: the log itself says whether a record it names still exists.
 */
export async function endedRecords(
  db: Kysely<Database>,
  workspaceId: number,
  records: { entityType: string; entityId: string }[],
  actions: string[],
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const ids = [...new Set(records.map((record) => record.entityId))];
  const rows = await db
    .selectFrom('audit_log')
    .select(['entity_type', 'entity_id'])
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('action', 'in', actions)
    .where('entity_id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => `${row.entity_type}:${row.entity_id}`));
}
