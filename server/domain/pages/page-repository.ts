import type { Kysely, Selectable } from 'kysely';
import type { Database, PageComponentTable, StatusPageTable } from '../../db/schema.ts';

export interface StatusPage {
  id: string;
  workspaceId: string;
  slug: string;
  title: string;
  description: string;
  /** The public address: {public url}/status/{slug}. */
  url: string;
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

export type PageRow = Selectable<StatusPageTable>;
export type ComponentRow = Selectable<PageComponentTable>;

export function toPage(row: PageRow, publicUrl: string): StatusPage {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    url: `${publicUrl}/status/${row.slug}`,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toComponent(row: ComponentRow): PageComponent {
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

export async function findPageById(db: Kysely<Database>, workspaceId: number, id: number): Promise<PageRow | undefined> {
  return db.selectFrom('status_pages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function findPageBySlug(db: Kysely<Database>, slug: string): Promise<PageRow | undefined> {
  return db.selectFrom('status_pages').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function listPageRows(db: Kysely<Database>, workspaceId: number): Promise<PageRow[]> {
  return db.selectFrom('status_pages').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();
}

export async function listComponentRows(db: Kysely<Database>, pageId: number): Promise<ComponentRow[]> {
  return db.selectFrom('page_components').selectAll().where('page_id', '=', pageId).orderBy('position').orderBy('id').execute();
}

/** A component together with the workspace of its page, for the workspace check. */
export async function findComponent(db: Kysely<Database>, workspaceId: number, id: number): Promise<ComponentRow | undefined> {
  return db
    .selectFrom('page_components')
    .innerJoin('status_pages', 'status_pages.id', 'page_components.page_id')
    .selectAll('page_components')
    .where('status_pages.workspace_id', '=', workspaceId)
    .where('page_components.id', '=', id)
    .executeTakeFirst();
}

/** The next free position at the end of a page. */
export async function nextPosition(db: Kysely<Database>, pageId: number): Promise<number> {
  const row = await db
    .selectFrom('page_components')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('page_id', '=', pageId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

/**
 * The components among `ids` that belong to `pageId`, in the order given. An id that is not one
 * of them is returned in `missing`.
 */
export async function componentsOfPage(db: Kysely<Database>, pageId: number, ids: number[]): Promise<{ found: ComponentRow[]; missing: number[] }> {
  if (ids.length === 0) return { found: [], missing: [] };
  const rows = await db.selectFrom('page_components').selectAll().where('page_id', '=', pageId).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { found: ids.flatMap((id) => byId.get(id) ?? []), missing: ids.filter((id) => !byId.has(id)) };
}
