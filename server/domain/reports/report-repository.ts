import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, ReportStatus, StatusReportTable } from '../../db/schema.ts';

/** The rows of these reports with their components (in component order) and updates (newest first). */
export async function findReportRows(db: Kysely<Database>, ids: number[]) {
  const [rows, components, updates] = await Promise.all([
    db.selectFrom('status_reports').selectAll().where('id', 'in', ids).execute(),
    db.selectFrom('status_report_components').selectAll().where('report_id', 'in', ids).orderBy('component_id').execute(),
    db.selectFrom('status_report_updates').selectAll().where('report_id', 'in', ids).orderBy('id', 'desc').execute(),
  ]);
  return { rows, components, updates };
}

/** The page of a report of the workspace. */
export async function findReportPageId(db: Kysely<Database>, workspaceId: number, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('status_reports').select('page_id').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return row?.page_id;
}

/** The ids of a page of the workspace's reports (of one status page, or of all; unresolved only, or all), newest first, with the total. */
export async function listReportIds(
  db: Kysely<Database>,
  workspaceId: number,
  only: { pageId?: number; unresolved: boolean },
  limit: number,
  offset: number,
): Promise<{ ids: number[]; total: number }> {
  let select = db.selectFrom('status_reports').where('workspace_id', '=', workspaceId);
  if (only.pageId !== undefined) select = select.where('page_id', '=', only.pageId);
  if (only.unresolved) select = select.where('status', '!=', 'resolved');
  const [{ total }, rows] = await Promise.all([
    select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    select.select('id').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return { ids: rows.map((r) => r.id), total };
}

/** The ids of a status page's reports that are unresolved or were resolved since `resolvedSince`, newest first. */
export async function recentReportIdsOfPage(db: Kysely<Database>, pageId: number, resolvedSince: string): Promise<number[]> {
  const rows = await db
    .selectFrom('status_reports')
    .select('id')
    .where('page_id', '=', pageId)
    .where((eb) => eb.or([eb('status', '!=', 'resolved'), eb('resolved_at', '>=', resolvedSince)]))
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertReport(db: Kysely<Database>, values: Insertable<StatusReportTable>): Promise<number> {
  const row = await db.insertInto('status_reports').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateReport(db: Kysely<Database>, id: number, values: Updateable<StatusReportTable>): Promise<void> {
  await db.updateTable('status_reports').set(values).where('id', '=', id).execute();
}

export async function deleteReport(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('status_reports').where('id', '=', id).execute();
}

export async function replaceReportComponents(db: Kysely<Database>, reportId: number, componentIds: number[]): Promise<void> {
  await db.deleteFrom('status_report_components').where('report_id', '=', reportId).execute();
  if (componentIds.length > 0) {
    await db
      .insertInto('status_report_components')
      .values(componentIds.map((component_id) => ({ report_id: reportId, component_id })))
      .execute();
  }
}

export async function appendUpdate(
  db: Kysely<Database>,
  reportId: number,
  update: { status: ReportStatus; message: string; notify: boolean; at: string },
): Promise<number> {
  const row = await db
    .insertInto('status_report_updates')
    .values({ report_id: reportId, status: update.status, message: update.message, notify: update.notify ? 1 : 0, created_at: update.at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** For each of these monitors, how many unresolved reports name a page component linked to it; monitors with none are absent. */
export async function unresolvedReportCounts(db: Kysely<Database>, monitorIds: number[]) {
  return db
    .selectFrom('status_report_components as rc')
    .innerJoin('status_reports as r', 'r.id', 'rc.report_id')
    .innerJoin('page_components as c', 'c.id', 'rc.component_id')
    .select(['c.monitor_id', (eb) => eb.fn.count<number>('r.id').distinct().as('open')])
    .where('r.resolved_at', 'is', null)
    .where('c.monitor_id', 'in', monitorIds)
    .groupBy('c.monitor_id')
    .execute();
}
