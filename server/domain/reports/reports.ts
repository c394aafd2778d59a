import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { REPORT_LIMITS } from '../../../contract/limits.ts';
import type { Database, ReportStatus } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { type PageEvent, reportStatuses } from '../notifications/events.ts';
import { dispatchAfterCommit, type NotifySubscribers, notifyRule } from '../notifications/publish.ts';
import { componentNames, type PageRow, pageRowOf } from '../pages/page-repository.ts';
import { componentsOnPage, resolvePage, toPage } from '../pages/pages.ts';
import { builtOnFirstUse, expected, invalid, oneLine, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import {
  appendUpdate,
  deleteReport,
  findReportPageId,
  findReportRows,
  insertReport,
  listReportIds,
  replaceReportComponents,
  updateReport,
} from './report-repository.ts';

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
  const { rows, components, updates } = await findReportRows(db, ids);
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
      updates: updates.filter((u) => u.report_id === id).map((u) => ({ id: String(u.id), status: u.status, message: u.message, createdAt: u.created_at })),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      resolvedAt: row.resolved_at,
    };
  });
}

const MAX_PER_PAGE = 200;
const status = builtOnFirstUse(() => z.enum(reportStatuses, expected(`one of ${reportStatuses.join(', ')}`)));
const { titleLength, messageLength, components: maxComponents } = REPORT_LIMITS;
const title = builtOnFirstUse(() =>
  oneLine(z.string(expected('a title')).trim().min(1, 'is required').max(titleLength, `must be at most ${titleLength} characters`)),
);
const message = builtOnFirstUse(() =>
  z
    .string(expected('the text of the public update'))
    .trim()
    .min(1, 'is required: the text subscribers and the page show')
    .max(messageLength, `must be at most ${messageLength} characters`),
);
const notify = builtOnFirstUse(() => z.boolean({ error: (issue) => (issue.input === undefined ? notifyRule : 'must be true or false') }));
const componentIds = builtOnFirstUse(() =>
  z.array(z.union([z.string(), z.number()]), expected('a list of page component ids')).max(maxComponents, `must name at most ${maxComponents} components`),
);

const createInput = builtOnFirstUse(() =>
  z.strictObject({
    pageId: z.union([z.string(), z.number()], expected('a status page id')),
    title: title(),
    status: status().default('investigating'),
    message: message(),
    pageComponentIds: componentIds().default([]),
    notify: notify(),
  }),
);
const updateInput = builtOnFirstUse(() => z.strictObject({ status: status(), message: message(), notify: notify() }));
const resolveInput = builtOnFirstUse(() => z.strictObject({ message: message(), notify: notify() }));
const patchInput = builtOnFirstUse(() =>
  z.strictObject({ title: title().optional(), status: status().optional(), pageComponentIds: componentIds().optional() }),
);
const listInput = builtOnFirstUse(() =>
  z.strictObject({
    filter: z.enum(['active', 'all'], expected('active (unresolved reports only) or all')).default('active'),
    pageId: z.union([z.string(), z.number()]).optional(),
    ...pageQuery(MAX_PER_PAGE),
  }),
);

function snapshot(report: StatusReport): Record<string, unknown> {
  const { updatedAt: _u, updates, ...rest } = report;
  return { ...rest, updateCount: updates.length };
}

export interface ReportServiceOptions {
  publicUrl: string;
  notifySubscribers: NotifySubscribers;
  changed(pageId: number): void;
  log: Logger;
}

/**
 * Status reports (SPEC 2.4, 3.3): incident communication on a page. Creating, adding an update
 * and resolving append to the public timeline and may notify subscribers; editing the title,
 * status or components does neither.
 */
export function createReportService(db: Kysely<Database>, options: ReportServiceOptions) {
  /** The components of `pageId` with these ids, or NOT_FOUND naming the first that is not one of them. */
  async function loadOne(q: Kysely<Database>, workspaceId: number, id: string): Promise<{ report: StatusReport; page: PageRow }> {
    const reportId = parseId('id', 'status report', id);
    const pageId = await findReportPageId(q, workspaceId, reportId);
    if (pageId === undefined) throw notFound('status report', id);
    const [report] = await loadReports(q, [reportId]);
    return { report: report!, page: await pageRowOf(q, pageId) };
  }

  function event(kind: 'report.created' | 'report.updated' | 'report.resolved', page: PageRow, report: StatusReport, components: string[]): PageEvent {
    const update = report.updates[0]!;
    return {
      kind,
      page: { id: String(page.id), slug: page.slug, title: page.title, url: toPage(page, options.publicUrl).url },
      report: { id: report.id, title: report.title, status: report.status, components },
      update: { id: update.id, status: update.status, message: update.message, at: update.createdAt },
    };
  }

  /** Commits an appended update, then dispatches it when asked. */
  async function publish(
    actor: Actor,
    workspaceId: number,
    notify: boolean,
    work: (
      trx: Kysely<Database>,
    ) => Promise<{ before: StatusReport | null; reportId: number; page: PageRow; kind: 'report.created' | 'report.updated' | 'report.resolved' }>,
  ): Promise<{ report: StatusReport; notified: boolean }> {
    const { report, page, kind, components } = await writeTransaction(db, async (trx) => {
      const { before, reportId, page, kind } = await work(trx);
      const [report] = await loadReports(trx, [reportId]);
      const action = kind === 'report.created' ? 'status_report.create' : kind === 'report.resolved' ? 'status_report.resolve' : 'status_report.add_update';
      await recordAudit(trx, {
        workspaceId,
        entityType: 'status_report',
        entityId: reportId,
        action,
        actor,
        before: before && snapshot(before),
        after: snapshot(report!),
      });
      return { report: report!, page, kind, components: await componentNames(trx, report!.pageComponentIds.map(Number)) };
    });
    options.changed(page.id);
    const notified = await dispatchAfterCommit(
      notify,
      () => options.notifySubscribers(workspaceId, page.id, event(kind, page, report, components)),
      options.log,
    );
    return { report, notified };
  }

  return {
    /** Reports newest first; `filter` active (default) leaves out resolved ones. */
    async list(actor: Actor, workspaceId: number, query: unknown = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { filter, pageId, page, perPage } = parseInput(listInput(), query);
      const onPage = pageId === undefined ? undefined : (await resolvePage(db, workspaceId, pageId)).id;
      const { ids, total } = await listReportIds(db, workspaceId, { pageId: onPage, unresolved: filter === 'active' }, perPage, (page - 1) * perPage);
      return { reports: await loadReports(db, ids), pagination: paginationOf(page, perPage, total) };
    },

    async get(actor: Actor, workspaceId: number, id: string): Promise<StatusReport> {
      await authorize(db, actor, workspaceId, 'read');
      return (await loadOne(db, workspaceId, id)).report;
    },

    /** Creates a report with its first public update. */
    async create(actor: Actor, workspaceId: number, input: unknown) {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(createInput(), input);
      return publish(actor, workspaceId, values.notify, async (trx) => {
        const page = await resolvePage(trx, workspaceId, values.pageId);
        const components = await componentsOnPage(trx, page.id, values.pageComponentIds);
        const now = new Date().toISOString();
        const reportId = await insertReport(trx, {
          workspace_id: workspaceId,
          page_id: page.id,
          title: values.title,
          status: values.status,
          resolved_at: values.status === 'resolved' ? now : null,
          created_at: now,
          updated_at: now,
        });
        await replaceReportComponents(trx, reportId, components.ids);
        await appendUpdate(trx, reportId, { status: values.status, message: values.message, notify: values.notify, at: now });
        return { before: null, reportId, page, kind: 'report.created' };
      });
    },

    /** Appends a public update and sets the report's status to the update's. */
    async addUpdate(actor: Actor, workspaceId: number, id: string, input: unknown) {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(updateInput(), input);
      return publish(actor, workspaceId, values.notify, async (trx) => {
        const { report: before, page } = await loadOne(trx, workspaceId, id);
        const now = new Date().toISOString();
        await updateReport(trx, Number(before.id), {
          status: values.status,
          resolved_at: values.status === 'resolved' ? (before.resolvedAt ?? now) : null,
          updated_at: now,
        });
        await appendUpdate(trx, Number(before.id), { status: values.status, message: values.message, notify: values.notify, at: now });
        return { before, reportId: Number(before.id), page, kind: values.status === 'resolved' ? 'report.resolved' : 'report.updated' };
      });
    },

    /** Resolves the report with a final public update. A report already resolved keeps the time it was first resolved. */
    async resolve(actor: Actor, workspaceId: number, id: string, input: unknown) {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(resolveInput(), input);
      return publish(actor, workspaceId, values.notify, async (trx) => {
        const { report: before, page } = await loadOne(trx, workspaceId, id);
        const now = new Date().toISOString();
        await updateReport(trx, Number(before.id), { status: 'resolved', resolved_at: before.resolvedAt ?? now, updated_at: now });
        await appendUpdate(trx, Number(before.id), { status: 'resolved', message: values.message, notify: values.notify, at: now });
        return { before, reportId: Number(before.id), page, kind: 'report.resolved' };
      });
    },

    /** Edits title, status or components: no public update, no notification. */
    async update(actor: Actor, workspaceId: number, id: string, patch: unknown): Promise<StatusReport> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(patchInput(), patch);
      if (Object.values(values).every((v) => v === undefined)) throw invalid('report', 'names no field to change: set title, status or pageComponentIds');
      const { report, pageId } = await updateTransaction(db, async (trx) => {
        const { report: before, page } = await loadOne(trx, workspaceId, id);
        const reportId = Number(before.id);
        if (values.pageComponentIds !== undefined)
          await replaceReportComponents(trx, reportId, (await componentsOnPage(trx, page.id, values.pageComponentIds)).ids);
        const now = new Date().toISOString();
        const resolvedAt = values.status === undefined ? before.resolvedAt : values.status === 'resolved' ? (before.resolvedAt ?? now) : null;
        await updateReport(trx, reportId, {
          title: values.title ?? before.title,
          status: values.status ?? before.status,
          resolved_at: resolvedAt,
          updated_at: now,
        });
        const [after] = await loadReports(trx, [reportId]);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'status_report',
            entityId: reportId,
            action: 'status_report.update',
            actor,
            before: snapshot(before),
            after: snapshot(after!),
          },
          { report: before, pageId: page.id },
        );
        return { report: after!, pageId: page.id };
      });
      options.changed(pageId);
      return report;
    },

    async delete(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      const pageId = await writeTransaction(db, async (trx) => {
        const { report: before, page } = await loadOne(trx, workspaceId, id);
        await deleteReport(trx, Number(before.id));
        await recordAudit(trx, {
          workspaceId,
          entityType: 'status_report',
          entityId: before.id,
          action: 'status_report.delete',
          actor,
          before: snapshot(before),
          after: null,
        });
        return page.id;
      });
      options.changed(pageId);
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;
