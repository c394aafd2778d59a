import { createHash } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { z } from 'zod';
import { PAGE_LIMITS } from '../../../contract/limits.ts';
import type { Database, PageComponentTable, StatusPageTable } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { monitorIdsIn } from '../monitors/monitor-repository.ts';
import { builtOnFirstUse, expected, invalid, oneLine, parseId, parseInput } from '../validation.ts';
import {
  type ComponentRow,
  componentsOfPage,
  deleteComponent,
  deletePage,
  findComponent,
  findPageByFormerSlug,
  findPageById,
  findPageBySlug,
  insertComponent,
  insertPage,
  listComponentRows,
  listPageRows,
  nextPosition,
  type PageRow,
  updateComponent,
  updatePage,
} from './page-repository.ts';
import { brandingFields, logoTypeOf } from './page-branding.ts';
import type { PageHosts } from './page-hosts.ts';

export interface StatusPage {
  id: string;
  workspaceId: string;
  slug: string;
  title: string;
  description: string;
  /** The public address: {public url}/status/{slug}. */
  url: string;
  /** `#rrggbb`: the band behind the page's heading; null: the page's own colours. */
  accentColor: string | null;
  /** The link back to the owner's site. */
  websiteUrl: string | null;
  /** A PNG, JPEG, WebP or GIF file shown beside the title. */
  logo: Uint8Array | null;
  /** The logo's type, read from its bytes; null without a logo. */
  logoType: string | null;
  /** A host name that serves the page at `/` (behind a proxy that sends it as Host). */
  customDomain: string | null;
  /** The slug before the last change of slug: /status/{formerSlug} forwards to the page. */
  formerSlug: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PageComponent {
  id: string;
  pageId: string;
  name: string;
  description: string;
  type: 'monitor' | 'static';
  /** The monitor whose health drives the component; null for a static one. */
  monitorId: string | null;
  group: string | null;
  position: number;
  createdAt: string;
  updatedAt: string;
}

export function toPage(row: PageRow, publicUrl: string): StatusPage {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    url: `${publicUrl}/status/${row.slug}`,
    accentColor: row.accent_color,
    websiteUrl: row.website_url,
    logo: row.logo === null ? null : new Uint8Array(row.logo),
    logoType: row.logo === null ? null : (logoTypeOf(row.logo) ?? null),
    customDomain: row.custom_domain,
    formerSlug: row.former_slug,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toComponent(row: ComponentRow): PageComponent {
  return {
    id: String(row.id),
    pageId: String(row.page_id),
    name: row.name,
    description: row.description,
    type: row.monitor_id === null ? 'static' : 'monitor',
    monitorId: row.monitor_id === null ? null : String(row.monitor_id),
    group: row.group_name,
    position: row.position,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A slug is the page's public address. Lower-case letters, digits and hyphens; it must hold a
 * letter, so a slug can never be mistaken for an id wherever either is accepted.
 */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const slugRule = `must be 1 to ${PAGE_LIMITS.slugLength} lower-case letters, digits or hyphens, start and end with a letter or digit, and hold at least one letter, e.g. acme-status`;
const slug = builtOnFirstUse(() => z.string(expected(`a slug: ${slugRule}`)).refine((value) => SLUG.test(value) && /[a-z]/.test(value), slugRule));

const { titleLength, descriptionLength, componentGroupLength, componentPosition } = PAGE_LIMITS;
// A component's name is a title: PAGE_LIMITS.componentNameLength is titleLength.
const title = builtOnFirstUse(() =>
  oneLine(z.string(expected('a title')).trim().min(1, 'is required').max(titleLength, `must be at most ${titleLength} characters`)),
);
const description = builtOnFirstUse(() => z.string(expected('text')).max(descriptionLength, `must be at most ${descriptionLength} characters`));

const pageInput = builtOnFirstUse(() => {
  const { accentColor, websiteUrl, customDomain, logo } = brandingFields();
  return z.strictObject({
    slug: slug(),
    title: title(),
    description: description().default(''),
    accentColor: accentColor.optional(),
    websiteUrl: websiteUrl.optional(),
    customDomain: customDomain.optional(),
    logo: logo.optional(),
  });
});
const pagePatch = builtOnFirstUse(() => {
  const { accentColor, websiteUrl, customDomain, logo } = brandingFields();
  return z.strictObject({
    slug: slug().optional(),
    title: title().optional(),
    description: description().optional(),
    accentColor: accentColor.optional(),
    websiteUrl: websiteUrl.optional(),
    customDomain: customDomain.optional(),
    logo: logo.optional(),
  });
});
/** The fields of a page a patch may set. */
const PAGE_FIELDS = ['slug', 'title', 'description', 'accentColor', 'websiteUrl', 'customDomain', 'logo'] as const;
type PageValues = z.output<ReturnType<typeof pagePatch>>;

/** The columns of a page's fields that are set. */
function pageColumns(values: PageValues): Updateable<StatusPageTable> {
  const set: Updateable<StatusPageTable> = {};
  if (values.slug !== undefined) set.slug = values.slug;
  if (values.title !== undefined) set.title = values.title;
  if (values.description !== undefined) set.description = values.description;
  if (values.accentColor !== undefined) set.accent_color = values.accentColor;
  if (values.websiteUrl !== undefined) set.website_url = values.websiteUrl;
  if (values.customDomain !== undefined) set.custom_domain = values.customDomain;
  if (values.logo !== undefined) set.logo = values.logo;
  return set;
}

const group = builtOnFirstUse(() =>
  oneLine(
    z
      .string(expected('a group name'))
      .trim()
      .min(1, 'must not be empty; use null for no group')
      .max(componentGroupLength, `must be at most ${componentGroupLength} characters`),
  ).nullable(),
);
const position = builtOnFirstUse(() =>
  z
    .number(expected('a position (a whole number from 0)'))
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(componentPosition, `must be at most ${componentPosition}`),
);
const monitorRef = builtOnFirstUse(() => z.union([z.string(), z.number()]).nullable());

const componentInput = builtOnFirstUse(() =>
  z.strictObject({
    name: title(),
    description: description().default(''),
    monitorId: monitorRef().optional(),
    group: group().optional(),
    position: position().optional(),
  }),
);
const componentPatch = builtOnFirstUse(() =>
  z.strictObject({
    name: title().optional(),
    description: description().optional(),
    monitorId: monitorRef().optional(),
    group: group().optional(),
    position: position().optional(),
  }),
);

function pageSnapshot(page: StatusPage): Record<string, unknown> {
  const { updatedAt: _u, url: _url, logo, ...rest } = page;
  // The audit log says which logo, not its bytes.
  return {
    ...rest,
    logo: logo === null ? null : `${page.logoType}, ${logo.length} bytes, sha256 ${createHash('sha256').update(logo).digest('hex').slice(0, 16)}`,
  };
}

function componentSnapshot(component: PageComponent): Record<string, unknown> {
  const { updatedAt: _u, ...rest } = component;
  return rest;
}

export interface PageServiceOptions {
  /** The public base address of pages and links: {publicUrl}/status/{slug}. */
  publicUrl: string;
  /** Told after every committed change to a page's content, so caches of the public page are dropped. */
  changed(pageId: number): void;
  /** Read again after a page's custom domain or slug changed, before the change is answered. */
  hosts?: Pick<PageHosts, 'refresh'>;
}

/**
 * Looks a page up by id or slug within the workspace. Anything else, a page of another workspace
 * included, is NOT_FOUND.
 */
export async function resolvePage(db: Kysely<Database>, workspaceId: number, ref: unknown, field = 'pageId'): Promise<PageRow> {
  if (typeof ref !== 'string' && typeof ref !== 'number') throw invalid(field, 'is required: a status page id or slug');
  const text = String(ref).trim();
  if (text === '') throw invalid(field, 'is required: a status page id or slug');
  // A slug holds a letter and an id never does (see `slug`): a reference without one is an id.
  const row = /[a-z]/i.test(text) ? await findPageBySlug(db, text) : await findPageById(db, workspaceId, parseId(field, 'status page', text));
  if (!row || row.workspace_id !== workspaceId) throw notFound('status page', text);
  return row;
}

/**
 * The components with these ids (`pageComponentIds` of a report or a maintenance window), each of
 * which must be on `pageId`: NOT_FOUND names the first that is not. Duplicates count once.
 */
export async function componentsOnPage(q: Kysely<Database>, pageId: number, ids: (string | number)[]): Promise<{ ids: number[]; names: string[] }> {
  const parsed = [...new Set(ids.map((id, i) => parseId(`pageComponentIds.${i}`, 'page component', id)))];
  const { found, missing } = await componentsOfPage(q, pageId, parsed);
  if (missing.length > 0) throw new AppError('NOT_FOUND', `pageComponentIds: page component ${missing[0]} does not exist on status page ${pageId}`);
  return { ids: parsed, names: found.map((c) => c.name) };
}

/** A monitor of the workspace, or NOT_FOUND naming `field`. */
async function monitorOf(db: Kysely<Database>, workspaceId: number, ref: string | number, field: string): Promise<number> {
  const id = parseId(field, 'monitor', ref);
  if (!(await monitorIdsIn(db, workspaceId, [id])).has(id)) throw new AppError('NOT_FOUND', `${field}: monitor ${id} does not exist in this workspace`);
  return id;
}

/** A duplicate slug, former slug or custom domain, named by its field. */
function duplicate(error: unknown, values: PageValues): never {
  if (isUniqueViolation(error, 'status_pages.slug') || isUniqueViolation(error, 'status_pages.former_slug')) {
    throw new AppError('CONFLICT', `slug: "${values.slug}" is already used by another status page; choose another`, [
      { field: 'slug', rule: 'must be unique' },
    ]);
  }
  if (isUniqueViolation(error, 'status_pages.custom_domain')) {
    throw new AppError('CONFLICT', `customDomain: "${values.customDomain}" already serves another status page; a name serves one page`, [
      { field: 'customDomain', rule: 'must be unique' },
    ]);
  }
  throw error;
}

/**
 * A slug another page had before it changed its own still forwards there: it is refused as taken
 * (the page that had it may take it back). A custom domain may not be the service's own name.
 */
async function checkNames(q: Kysely<Database>, values: PageValues, pageId: number | undefined, publicUrl: string): Promise<void> {
  if (values.slug !== undefined) {
    const forwarding = await findPageByFormerSlug(q, values.slug);
    if (forwarding && forwarding.id !== pageId) {
      throw new AppError('CONFLICT', `slug: "${values.slug}" was the address of another status page and still forwards to it; choose another`, [
        { field: 'slug', rule: 'must be unique' },
      ]);
    }
  }
  if (values.customDomain && values.customDomain === new URL(publicUrl).hostname) {
    throw invalid('customDomain', `must not be the service's own public name (${values.customDomain}): its pages are already at /status/{slug}`);
  }
}

export function createPageService(db: Kysely<Database>, options: PageServiceOptions) {
  const page = (row: PageRow) => toPage(row, options.publicUrl);

  async function loadComponent(q: Kysely<Database>, workspaceId: number, id: string): Promise<ComponentRow> {
    const row = await findComponent(q, workspaceId, parseId('id', 'page component', id));
    if (!row) throw notFound('page component', id);
    return row;
  }

  return {
    /** The current slug of the page that had `slug` before its last change of slug: public, as the page is. */
    async forwardOf(slug: string): Promise<string | undefined> {
      return (await findPageByFormerSlug(db, slug))?.slug;
    },

    /** Every page of the workspace, newest first (unpaginated: a workspace has few pages). */
    async list(actor: Actor, workspaceId: number): Promise<StatusPage[]> {
      await authorize(db, actor, workspaceId, 'read');
      return (await listPageRows(db, workspaceId)).map(page);
    },

    async get(actor: Actor, workspaceId: number, ref: string): Promise<StatusPage> {
      await authorize(db, actor, workspaceId, 'read');
      return page(await resolvePage(db, workspaceId, ref, 'page'));
    },

    async create(actor: Actor, workspaceId: number, input: unknown): Promise<StatusPage> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(pageInput(), input);
      const created = await writeTransaction(db, async (trx) => {
        const now = new Date().toISOString();
        await checkNames(trx, values, undefined, options.publicUrl);
        const row = await insertPage(trx, {
          workspace_id: workspaceId,
          ...pageColumns(values),
          slug: values.slug,
          title: values.title,
          description: values.description,
          created_at: now,
          updated_at: now,
        }).catch((error: unknown) => duplicate(error, values));
        const created = page(row);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'status_page',
          entityId: row.id,
          action: 'status_page.create',
          actor,
          before: null,
          after: pageSnapshot(created),
        });
        return created;
      });
      options.changed(Number(created.id));
      if (created.customDomain !== null) await options.hosts?.refresh();
      return created;
    },

    async update(actor: Actor, workspaceId: number, ref: string, patch: unknown): Promise<StatusPage> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(pagePatch(), patch);
      if (Object.values(values).every((v) => v === undefined))
        throw invalid('page', `names no field to change: set ${PAGE_FIELDS.slice(0, -1).join(', ')} or ${PAGE_FIELDS.at(-1)}`);
      const updated = await updateTransaction(db, async (trx) => {
        const before = await resolvePage(trx, workspaceId, ref, 'id');
        await checkNames(trx, values, before.id, options.publicUrl);
        const set = { ...pageColumns(values), updated_at: new Date().toISOString() };
        // The old slug keeps forwarding to the page, and is kept from other pages, until the next change of slug.
        if (values.slug !== undefined && values.slug !== before.slug) set.former_slug = before.slug;
        const row = await updatePage(trx, before.id, set).catch((error: unknown) => duplicate(error, values));
        const after = page(row);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'status_page',
            entityId: row.id,
            action: 'status_page.update',
            actor,
            before: pageSnapshot(page(before)),
            after: pageSnapshot(after),
          },
          page(before),
        );
        return after;
      });
      options.changed(Number(updated.id));
      if (values.customDomain !== undefined || values.slug !== undefined) await options.hosts?.refresh();
      return updated;
    },

    /** Deletes the page with its components, reports, maintenance windows and subscribers. */
    async delete(actor: Actor, workspaceId: number, ref: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      const id = await writeTransaction(db, async (trx) => {
        const before = await resolvePage(trx, workspaceId, ref, 'id');
        await deletePage(trx, before.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'status_page',
          entityId: before.id,
          action: 'status_page.delete',
          actor,
          before: pageSnapshot(page(before)),
          after: null,
        });
        return before.id;
      });
      options.changed(id);
      await options.hosts?.refresh();
    },

    /** The page's components in display order. */
    async listComponents(actor: Actor, workspaceId: number, ref: string): Promise<PageComponent[]> {
      await authorize(db, actor, workspaceId, 'read');
      const row = await resolvePage(db, workspaceId, ref);
      return (await listComponentRows(db, row.id)).map(toComponent);
    },

    /** A component of type `monitor` when `monitorId` is given, else `static`; at the end of the page unless `position` says where. */
    async addComponent(actor: Actor, workspaceId: number, ref: string, input: unknown): Promise<PageComponent> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(componentInput(), input);
      const created = await writeTransaction(db, async (trx) => {
        const pageRow = await resolvePage(trx, workspaceId, ref);
        const monitorId = values.monitorId == null ? null : await monitorOf(trx, workspaceId, values.monitorId, 'monitorId');
        const now = new Date().toISOString();
        const row = await insertComponent(trx, {
          page_id: pageRow.id,
          name: values.name,
          description: values.description,
          monitor_id: monitorId,
          group_name: values.group ?? null,
          position: values.position ?? (await nextPosition(trx, pageRow.id)),
          created_at: now,
          updated_at: now,
        });
        const created = toComponent(row);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'page_component',
          entityId: row.id,
          action: 'page_component.create',
          actor,
          before: null,
          after: componentSnapshot(created),
        });
        return created;
      });
      options.changed(Number(created.pageId));
      return created;
    },

    /** Changes the fields given. `monitorId: null` unlinks the monitor (the component becomes static); `group: null` ungroups it. */
    async updateComponent(actor: Actor, workspaceId: number, id: string, patch: unknown): Promise<PageComponent> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(componentPatch(), patch);
      if (Object.values(values).every((v) => v === undefined))
        throw invalid('component', 'names no field to change: set name, description, monitorId, group or position');
      const updated = await updateTransaction(db, async (trx) => {
        const before = await loadComponent(trx, workspaceId, id);
        const set: Updateable<PageComponentTable> = { updated_at: new Date().toISOString() };
        if (values.name !== undefined) set.name = values.name;
        if (values.description !== undefined) set.description = values.description;
        if (values.group !== undefined) set.group_name = values.group;
        if (values.position !== undefined) set.position = values.position;
        if (values.monitorId !== undefined) {
          set.monitor_id = values.monitorId === null ? null : await monitorOf(trx, workspaceId, values.monitorId, 'monitorId');
        }
        const row = await updateComponent(trx, before.id, set);
        const after = toComponent(row);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'page_component',
            entityId: row.id,
            action: 'page_component.update',
            actor,
            before: componentSnapshot(toComponent(before)),
            after: componentSnapshot(after),
          },
          toComponent(before),
        );
        return after;
      });
      options.changed(Number(updated.pageId));
      return updated;
    },

    /** Removes a component; reports and maintenance windows no longer name it. */
    async removeComponent(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      const pageId = await writeTransaction(db, async (trx) => {
        const before = await loadComponent(trx, workspaceId, id);
        await deleteComponent(trx, before.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'page_component',
          entityId: before.id,
          action: 'page_component.delete',
          actor,
          before: componentSnapshot(toComponent(before)),
          after: null,
        });
        return before.page_id;
      });
      options.changed(pageId);
    },
  };
}

export type PageService = ReturnType<typeof createPageService>;
