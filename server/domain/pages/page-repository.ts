import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, PageComponentTable, StatusPageTable } from '../../db/schema.ts';

export type PageRow = Selectable<StatusPageTable>;
export type ComponentRow = Selectable<PageComponentTable>;

export async function findPageById(db: Kysely<Database>, workspaceId: number, id: number): Promise<PageRow | undefined> {
  return db.selectFrom('status_pages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The page a row of its own names (a report's page): by id alone, as that row was checked against the workspace. */
export async function pageRowOf(db: Kysely<Database>, id: number): Promise<PageRow> {
  return db.selectFrom('status_pages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function findPageBySlug(db: Kysely<Database>, slug: string): Promise<PageRow | undefined> {
  return db.selectFrom('status_pages').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The page that had `slug` before its last change of slug, if any. */
export async function findPageByFormerSlug(db: Kysely<Database>, slug: string): Promise<PageRow | undefined> {
  return db.selectFrom('status_pages').selectAll().where('former_slug', '=', slug).executeTakeFirst();
}

/** Every page's custom domain, with its slug. */
export async function customDomainRows(db: Kysely<Database>): Promise<{ custom_domain: string; slug: string }[]> {
  const rows = await db.selectFrom('status_pages').select(['custom_domain', 'slug']).where('custom_domain', 'is not', null).execute();
  return rows.flatMap((row) => (row.custom_domain === null ? [] : [{ custom_domain: row.custom_domain, slug: row.slug }]));
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

/** The names of these components, in id order. */
export async function componentNames(db: Kysely<Database>, ids: number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('page_components').select('name').where('id', 'in', ids).orderBy('id').execute();
  return rows.map((r) => r.name);
}

export async function insertPage(db: Kysely<Database>, values: Insertable<StatusPageTable>): Promise<PageRow> {
  return db.insertInto('status_pages').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updatePage(db: Kysely<Database>, id: number, values: Updateable<StatusPageTable>): Promise<PageRow> {
  return db.updateTable('status_pages').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes the page; its components, reports, maintenance windows and subscribers go with it. */
export async function deletePage(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('status_pages').where('id', '=', id).execute();
}

export async function insertComponent(db: Kysely<Database>, values: Insertable<PageComponentTable>): Promise<ComponentRow> {
  return db.insertInto('page_components').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateComponent(db: Kysely<Database>, id: number, values: Updateable<PageComponentTable>): Promise<ComponentRow> {
  return db.updateTable('page_components').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteComponent(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('page_components').where('id', '=', id).execute();
}
