import type { Kysely } from 'kysely';
import type { Database, ReportStatus } from '../../db/schema.ts';

export interface StatusReportUpdate {
  id: string;
  status: ReportStatus;
  message: string;
  createdAt: string;
}

export interface StatusReport {
  id: string;
  pageId: string;
  title: string;
  status: ReportStatus;
  resolved: boolean;
  pageComponentIds: string[];
  /** The public timeline, newest first. */
  updates: StatusReportUpdate[];
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

/** Whole reports (components and updates included) for the given ids, in the order given. */
export async function loadReports(db: Kysely<Database>, ids: number[]): Promise<StatusReport[]> {
  if (ids.length === 0) return [];
  const [rows, components, updates] = await Promise.all([
    db.selectFrom('status_reports').selectAll().where('id', 'in', ids).execute(),
    db.selectFrom('status_report_components').selectAll().where('report_id', 'in', ids).orderBy('component_id').execute(),
    db.selectFrom('status_report_updates').selectAll().where('report_id', 'in', ids).orderBy('id', 'desc').execute(),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return {
      id: String(row.id),
      pageId: String(row.page_id),
      title: row.title,
      status: row.status,
      resolved: row.status === 'resolved',
      pageComponentIds: components.filter((c) => c.report_id === id).map((c) => String(c.component_id)),
      updates: updates
        .filter((u) => u.report_id === id)
        .map((u) => ({ id: String(u.id), status: u.status, message: u.message, createdAt: u.created_at })),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      resolvedAt: row.resolved_at,
    };
  });
}

export async function replaceReportComponents(db: Kysely<Database>, reportId: number, componentIds: number[]): Promise<void> {
  await db.deleteFrom('status_report_components').where('report_id', '=', reportId).execute();
  if (componentIds.length > 0) {
    await db.insertInto('status_report_components').values(componentIds.map((component_id) => ({ report_id: reportId, component_id }))).execute();
  }
}

export async function appendUpdate(db: Kysely<Database>, reportId: number, update: { status: ReportStatus; message: string; notify: boolean; at: string }): Promise<number> {
  const row = await db
    .insertInto('status_report_updates')
    .values({ report_id: reportId, status: update.status, message: update.message, notify: update.notify ? 1 : 0, created_at: update.at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
