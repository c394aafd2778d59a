import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { dispatchAfterCommit, type NotifySubscribers, notifyRule } from '../notifications/publish.ts';
import { componentsOnPage, resolvePage, toPage } from '../pages/pages.ts';
import { builtOnFirstUse, expected, invalid, oneLine, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import {
  componentLinksOf,
  deleteMaintenance,
  findMaintenanceRow,
  insertMaintenance,
  listMaintenanceRows,
  type MaintenanceRow,
  replaceMaintenanceComponents,
  updateMaintenance,
} from './maintenance-repository.ts';

export interface Maintenance {
  id: string;
  pageId: string;
  title: string;
  message: string;
  /** RFC 3339, UTC. */
  from: string;
  to: string;
  /** Empty: the window covers the whole page. */
  pageComponentIds: string[];
  status: 'scheduled' | 'active' | 'completed';
  createdAt: string;
  updatedAt: string;
}

const MAX_PER_PAGE = 200;
/** A date and time with a zone: without one, the same text means different moments on different machines. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/i;

/** Four-digit years only: beyond, the UTC form of an instant no longer sorts as text. */
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** A well-formed ISO 8601 instant on a day that exists (Date.parse rolls 30 February over to March). */
function isInstant(value: string): boolean {
  const match = ISO_8601.exec(value);
  if (!match || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return month >= 1 && month <= 12 && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && Date.parse(value) <= LAST_INSTANT;
}
const instantRule = 'must be an ISO 8601 date and time with a zone, e.g. 2026-11-21T22:00:00Z';
const instant = builtOnFirstUse(() =>
  z
    .string(expected(`an ISO 8601 date and time, e.g. 2026-11-21T22:00:00Z`))
    .trim()
    .refine(isInstant, instantRule)
    .transform((value) => new Date(value).toISOString()),
);
const { titleLength, messageLength, components: maxComponents } = MAINTENANCE_LIMITS;
const title = builtOnFirstUse(() =>
  oneLine(z.string(expected('a title')).trim().min(1, 'is required').max(titleLength, `must be at most ${titleLength} characters`)),
);
const message = builtOnFirstUse(() => z.string(expected('text')).max(messageLength, `must be at most ${messageLength} characters`));
const componentIds = builtOnFirstUse(() =>
  z.array(z.union([z.string(), z.number()]), expected('a list of page component ids')).max(maxComponents, `must name at most ${maxComponents} components`),
);

const createInput = builtOnFirstUse(() =>
  z.strictObject({
    pageId: z.union([z.string(), z.number()], expected('a status page id')),
    title: title(),
    message: message().default(''),
    from: instant(),
    to: instant(),
    pageComponentIds: componentIds().default([]),
    notify: z.boolean({ error: (issue) => (issue.input === undefined ? notifyRule : 'must be true or false') }),
  }),
);
const patchInput = builtOnFirstUse(() =>
  z.strictObject({
    title: title().optional(),
    message: message().optional(),
    from: instant().optional(),
    to: instant().optional(),
    pageComponentIds: componentIds().optional(),
  }),
);
const listInput = builtOnFirstUse(() => z.strictObject({ pageId: z.union([z.string(), z.number()]).optional(), ...pageQuery(MAX_PER_PAGE) }));

function checkOrder(from: string, to: string): void {
  if (Date.parse(to) <= Date.parse(from)) throw invalid('to', `must be after from (${from}), got ${to}`);
}

export function statusAt(from: string, to: string, now: string): Maintenance['status'] {
  return now < from ? 'scheduled' : now < to ? 'active' : 'completed';
}

function snapshot(m: Maintenance): Record<string, unknown> {
  const { updatedAt: _u, status: _s, ...rest } = m;
  return rest;
}

async function loadMaintenances(db: Kysely<Database>, rows: MaintenanceRow[]): Promise<Maintenance[]> {
  if (rows.length === 0) return [];
  const links = await componentLinksOf(
    db,
    rows.map((r) => r.id),
  );
  const now = new Date().toISOString();
  return rows.map((row) => ({
    id: String(row.id),
    pageId: String(row.page_id),
    title: row.title,
    message: row.message,
    from: row.starts_at,
    to: row.ends_at,
    pageComponentIds: links.filter((l) => l.maintenance_id === row.id).map((l) => String(l.component_id)),
    status: statusAt(row.starts_at, row.ends_at, now),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

export interface MaintenanceServiceOptions {
  publicUrl: string;
  notifySubscribers: NotifySubscribers;
  changed(pageId: number): void;
  log: Logger;
}

/**
 * Maintenance windows (SPEC 2.5): planned periods on a page, for the whole page or some of its
 * components. While one is active the page shows maintenance and alerts for the monitors of
 * its components are held back.
 */
export function createMaintenanceService(db: Kysely<Database>, options: MaintenanceServiceOptions) {
  async function loadRow(q: Kysely<Database>, workspaceId: number, id: string) {
    const row = await findMaintenanceRow(q, workspaceId, parseId('id', 'maintenance', id));
    if (!row) throw notFound('maintenance', id);
    return row;
  }

  return {
    /** Windows newest first (by start). */
    async list(actor: Actor, workspaceId: number, query: unknown = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { pageId, page, perPage } = parseInput(listInput(), query);
      const onPage = pageId === undefined ? undefined : (await resolvePage(db, workspaceId, pageId)).id;
      const { rows, total } = await listMaintenanceRows(db, workspaceId, onPage, perPage, (page - 1) * perPage);
      return { maintenances: await loadMaintenances(db, rows), pagination: paginationOf(page, perPage, total) };
    },

    async get(actor: Actor, workspaceId: number, id: string): Promise<Maintenance> {
      await authorize(db, actor, workspaceId, 'read');
      const [maintenance] = await loadMaintenances(db, [await loadRow(db, workspaceId, id)]);
      return maintenance!;
    },

    /** Schedules a window; with notify, subscribers are told it is scheduled. */
    async create(actor: Actor, workspaceId: number, input: unknown): Promise<{ maintenance: Maintenance; notified: boolean }> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(createInput(), input);
      checkOrder(values.from, values.to);
      const { maintenance, page, names } = await writeTransaction(db, async (trx) => {
        const page = await resolvePage(trx, workspaceId, values.pageId);
        const { ids, names } = await componentsOnPage(trx, page.id, values.pageComponentIds);
        const now = new Date().toISOString();
        const row = await insertMaintenance(trx, {
          workspace_id: workspaceId,
          page_id: page.id,
          title: values.title,
          message: values.message,
          starts_at: values.from,
          ends_at: values.to,
          created_at: now,
          updated_at: now,
        });
        await replaceMaintenanceComponents(trx, row.id, ids);
        const [maintenance] = await loadMaintenances(trx, [row]);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'maintenance',
          entityId: row.id,
          action: 'maintenance.create',
          actor,
          before: null,
          after: snapshot(maintenance!),
        });
        return { maintenance: maintenance!, page, names };
      });
      options.changed(page.id);
      const notified = await dispatchAfterCommit(
        values.notify,
        () =>
          options.notifySubscribers(workspaceId, page.id, {
            kind: 'maintenance.scheduled',
            page: { id: String(page.id), slug: page.slug, title: page.title, url: toPage(page, options.publicUrl).url },
            maintenance: {
              id: maintenance.id,
              title: maintenance.title,
              message: maintenance.message,
              from: maintenance.from,
              to: maintenance.to,
              components: names,
            },
          }),
        options.log,
      );
      return { maintenance, notified };
    },

    /** Changes the fields given; notifies nobody. */
    async update(actor: Actor, workspaceId: number, id: string, patch: unknown): Promise<Maintenance> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(patchInput(), patch);
      if (Object.values(values).every((v) => v === undefined))
        throw invalid('maintenance', 'names no field to change: set title, message, from, to or pageComponentIds');
      const updated = await writeTransaction(db, async (trx) => {
        const row = await loadRow(trx, workspaceId, id);
        const [before] = await loadMaintenances(trx, [row]);
        checkOrder(values.from ?? row.starts_at, values.to ?? row.ends_at);
        if (values.pageComponentIds !== undefined)
          await replaceMaintenanceComponents(trx, row.id, (await componentsOnPage(trx, row.page_id, values.pageComponentIds)).ids);
        const next = await updateMaintenance(trx, row.id, {
          title: values.title ?? row.title,
          message: values.message ?? row.message,
          starts_at: values.from ?? row.starts_at,
          ends_at: values.to ?? row.ends_at,
          updated_at: new Date().toISOString(),
        });
        const [after] = await loadMaintenances(trx, [next]);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'maintenance',
          entityId: row.id,
          action: 'maintenance.update',
          actor,
          before: snapshot(before!),
          after: snapshot(after!),
        });
        return after!;
      });
      options.changed(Number(updated.pageId));
      return updated;
    },

    async delete(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      const pageId = await writeTransaction(db, async (trx) => {
        const row = await loadRow(trx, workspaceId, id);
        const [before] = await loadMaintenances(trx, [row]);
        await deleteMaintenance(trx, row.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'maintenance',
          entityId: row.id,
          action: 'maintenance.delete',
          actor,
          before: snapshot(before!),
          after: null,
        });
        return row.page_id;
      });
      options.changed(pageId);
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
