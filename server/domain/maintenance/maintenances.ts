import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { dispatchAfterCommit, type NotifySubscribers, notifyRule } from '../notifications/publish.ts';
import { componentsOnPage, resolvePage, toPage } from '../pages/pages.ts';
import { builtOnFirstUse, expected, invalid, oneLine, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import {
  componentLinksOf,
  deleteMaintenance,
  findMaintenanceRow,
  insertMaintenance,
  listMaintenanceRows,
  maintenanceRowsBetween,
  type MaintenanceRow,
  replaceMaintenanceComponents,
  updateMaintenance,
} from './maintenance-repository.ts';
import {
  checkRule,
  firstOccurrence,
  nextOccurrences,
  type Occurrence,
  MAX_OCCURRENCES,
  occurrenceAt,
  occurrencesBetween,
  readRule,
  type RepeatRule,
  repeatInput,
  seriesEnd,
  storeRule,
} from './occurrences.ts';

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
  /** A repeating window's rule; absent for a one-off window. */
  repeat?: RepeatRule;
  /** A repeating window's occurrence under way and the next ones (NEXT_OCCURRENCES at most). */
  nextOccurrences?: Occurrence[];
}

/** How many coming occurrences a repeating window lists. */
export const NEXT_OCCURRENCES = 5;

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
/** A repeating window: `from` (optional, default now) is when the repetition begins; each occurrence lasts repeat.durationMinutes, so `to` is left out. */
const repeatingCreateInput = builtOnFirstUse(() =>
  z.strictObject({
    pageId: z.union([z.string(), z.number()], expected('a status page id')),
    title: title(),
    message: message().default(''),
    from: instant().optional(),
    to: z.undefined({ error: 'must be left out for a repeating window: each occurrence lasts repeat.durationMinutes' }).optional(),
    repeat: repeatInput(instant()),
    pageComponentIds: componentIds().default([]),
    notify: z.boolean({ error: (issue) => (issue.input === undefined ? notifyRule : 'must be true or false') }),
  }),
);
const repeatPatch = builtOnFirstUse(() => z.strictObject({ repeat: repeatInput(instant()).nullable().optional() }).loose());
/** The longest span ListOccurrences answers for: a calendar month and the days around it. */
const MAX_SPAN_DAYS = 62;
const occurrencesInput = builtOnFirstUse(() =>
  z.strictObject({ pageId: z.union([z.string(), z.number()], expected('a status page id')), from: instant(), to: instant() }),
);
const listInput = builtOnFirstUse(() => z.strictObject({ pageId: z.union([z.string(), z.number()]).optional(), ...pageQuery(MAX_PER_PAGE) }));

/** A one-off window's input, without a `repeat` key left unset (as the RPC decoder leaves it). */
function withoutRepeat(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !('repeat' in input)) return input;
  const { repeat: _unset, ...rest } = input as Record<string, unknown>;
  return rest;
}

function checkOrder(from: string, to: string): void {
  if (Date.parse(to) <= Date.parse(from)) throw invalid('to', `must be after from (${from}), got ${to}`);
}

export function statusAt(from: string, to: string, now: string): Maintenance['status'] {
  return now < from ? 'scheduled' : now < to ? 'active' : 'completed';
}

/**
 * A stored window as of `now`: a one-off window as stored; a repeating one as its occurrence
 * under way, else its next one (`scheduled`), else its stored bounds (`completed`).
 */
export function windowAt(
  row: Pick<MaintenanceRow, 'starts_at' | 'ends_at' | 'repeat_rule'>,
  now: string,
): { from: string; to: string; status: Maintenance['status']; repeat?: RepeatRule; nextOccurrences?: Occurrence[] } {
  const rule = readRule(row.repeat_rule);
  if (!rule) return { from: row.starts_at, to: row.ends_at, status: statusAt(row.starts_at, row.ends_at, now) };
  const nowMs = Date.parse(now);
  const next = nextOccurrences(rule, row.starts_at, nowMs, NEXT_OCCURRENCES);
  const current = occurrenceAt(rule, row.starts_at, nowMs);
  const shown = current ?? next[0];
  if (!shown) return { from: row.starts_at, to: row.ends_at, status: 'completed', repeat: rule, nextOccurrences: [] };
  return { ...shown, status: current ? 'active' : 'scheduled', repeat: rule, nextOccurrences: next };
}

/** Where a repeating rule puts the stored window: its first occurrence from `from` on, to the latest end. */
function seriesBounds(rule: RepeatRule, from: number): { starts_at: string; ends_at: string } {
  checkRule(rule);
  const first = firstOccurrence(rule, from);
  return { starts_at: first.from, ends_at: seriesEnd(rule, LAST_WINDOW_END) };
}
/** The stored end of a repeating window without an end date. */
const LAST_WINDOW_END = new Date(LAST_INSTANT).toISOString();

/** What the audit log keeps: the stored window, not what it looks like at this moment. */
function snapshot(m: Maintenance, row: MaintenanceRow): Record<string, unknown> {
  const { updatedAt: _u, status: _s, nextOccurrences: _n, ...rest } = m;
  return { ...rest, from: row.starts_at, to: row.ends_at };
}

async function loadMaintenances(db: Kysely<Database>, rows: MaintenanceRow[]): Promise<Maintenance[]> {
  if (rows.length === 0) return [];
  const links = await componentLinksOf(
    db,
    rows.map((r) => r.id),
  );
  const now = new Date().toISOString();
  return rows.map((row) => {
    const { from, to, status, repeat, nextOccurrences } = windowAt(row, now);
    return {
      id: String(row.id),
      pageId: String(row.page_id),
      title: row.title,
      message: row.message,
      from,
      to,
      pageComponentIds: links.filter((l) => l.maintenance_id === row.id).map((l) => String(l.component_id)),
      status,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(repeat ? { repeat, nextOccurrences } : {}),
    };
  });
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

    /** Every occurrence of a page's windows that overlaps [from, to), earliest first, at most MAX_OCCURRENCES. */
    async occurrences(actor: Actor, workspaceId: number, query: unknown) {
      await authorize(db, actor, workspaceId, 'read');
      const { pageId, from, to } = parseInput(occurrencesInput(), query);
      checkOrder(from, to);
      if (Date.parse(to) - Date.parse(from) > MAX_SPAN_DAYS * 86_400_000) throw invalid('to', `must be at most ${MAX_SPAN_DAYS} days after from`);
      const page = await resolvePage(db, workspaceId, pageId);
      const found: { maintenanceId: string; title: string; from: string; to: string; repeating: boolean }[] = [];
      let truncated = false;
      for (const row of await maintenanceRowsBetween(db, page.id, from, to)) {
        const rule = readRule(row.repeat_rule);
        const spans = rule
          ? occurrencesBetween(rule, row.starts_at, Date.parse(from), Date.parse(to), MAX_OCCURRENCES + 1)
          : [{ from: row.starts_at, to: row.ends_at }];
        for (const span of spans) found.push({ maintenanceId: String(row.id), title: row.title, ...span, repeating: rule !== undefined });
        if (found.length > MAX_OCCURRENCES) {
          truncated = true;
          break;
        }
      }
      found.sort((a, b) => a.from.localeCompare(b.from) || Number(a.maintenanceId) - Number(b.maintenanceId));
      return { occurrences: found.slice(0, MAX_OCCURRENCES), truncated: truncated || found.length > MAX_OCCURRENCES };
    },

    async get(actor: Actor, workspaceId: number, id: string): Promise<Maintenance> {
      await authorize(db, actor, workspaceId, 'read');
      const [maintenance] = await loadMaintenances(db, [await loadRow(db, workspaceId, id)]);
      return maintenance!;
    },

    /** Schedules a window; with notify, subscribers are told it is scheduled. */
    async create(actor: Actor, workspaceId: number, input: unknown): Promise<{ maintenance: Maintenance; notified: boolean }> {
      await authorize(db, actor, workspaceId, 'write');
      const repeating = typeof input === 'object' && input !== null && (input as { repeat?: unknown }).repeat != null;
      const values: {
        pageId: string | number;
        title: string;
        message: string;
        from: string;
        to: string;
        pageComponentIds: (string | number)[];
        notify: boolean;
        repeat?: RepeatRule;
      } = repeating
        ? (() => {
            const parsed = parseInput(repeatingCreateInput(), input);
            const repeat = parsed.repeat as RepeatRule;
            const bounds = seriesBounds(repeat, parsed.from === undefined ? Date.now() : Date.parse(parsed.from));
            return { ...parsed, repeat, from: bounds.starts_at, to: bounds.ends_at };
          })()
        : parseInput(createInput(), withoutRepeat(input));
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
          repeat_rule: values.repeat ? storeRule(values.repeat) : null,
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
          after: snapshot(maintenance!, row),
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
      const { repeat: repeatValue, ...others } = parseInput(repeatPatch(), patch ?? {}) as { repeat?: RepeatRule | null };
      const values = parseInput(patchInput(), others);
      if (repeatValue === undefined && Object.values(values).every((v) => v === undefined))
        throw invalid('maintenance', 'names no field to change: set title, message, from, to, pageComponentIds or repeat');
      const updated = await updateTransaction(db, async (trx) => {
        const row = await loadRow(trx, workspaceId, id);
        const [before] = await loadMaintenances(trx, [row]);
        // A repeating window (or one made so) is placed by its rule: `from` moves where it begins, `to` is not its to give.
        const rule = repeatValue === undefined ? readRule(row.repeat_rule) : (repeatValue ?? undefined);
        let bounds = { starts_at: values.from ?? row.starts_at, ends_at: values.to ?? row.ends_at };
        if (rule) {
          if (values.to !== undefined) throw invalid('to', 'must be left out for a repeating window: each occurrence lasts repeat.durationMinutes');
          bounds = seriesBounds(rule, Date.parse(values.from ?? row.starts_at));
        } else if (repeatValue === null && row.repeat_rule !== null && (values.from === undefined || values.to === undefined)) {
          throw invalid(values.from === undefined ? 'from' : 'to', 'is required to make a repeating window a one-off window');
        }
        checkOrder(bounds.starts_at, bounds.ends_at);
        if (values.pageComponentIds !== undefined)
          await replaceMaintenanceComponents(trx, row.id, (await componentsOnPage(trx, row.page_id, values.pageComponentIds)).ids);
        const next = await updateMaintenance(trx, row.id, {
          title: values.title ?? row.title,
          message: values.message ?? row.message,
          ...bounds,
          repeat_rule: rule ? storeRule(rule) : null,
          updated_at: new Date().toISOString(),
        });
        const [after] = await loadMaintenances(trx, [next]);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'maintenance',
            entityId: row.id,
            action: 'maintenance.update',
            actor,
            before: snapshot(before!, row),
            after: snapshot(after!, next),
          },
          before,
        );
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
          before: snapshot(before!, row),
          after: null,
        });
        return row.page_id;
      });
      options.changed(pageId);
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
