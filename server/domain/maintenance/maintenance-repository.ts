import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, MaintenanceTable } from '../../db/schema.ts';

export type MaintenanceRow = Selectable<MaintenanceTable>;

export async function findMaintenanceRow(db: Kysely<Database>, workspaceId: number, id: number): Promise<MaintenanceRow | undefined> {
  return db.selectFrom('maintenances').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** A page of the workspace's windows (of one status page, or of all), latest start first, with the total. */
export async function listMaintenanceRows(db: Kysely<Database>, workspaceId: number, pageId: number | undefined, limit: number, offset: number) {
  let select = db.selectFrom('maintenances').where('workspace_id', '=', workspaceId);
  if (pageId !== undefined) select = select.where('page_id', '=', pageId);
  const [{ total }, rows] = await Promise.all([
    select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    select.selectAll().orderBy('starts_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return { rows, total };
}

/** The components each of these windows names, in component order. */
export async function componentLinksOf(db: Kysely<Database>, maintenanceIds: number[]) {
  if (maintenanceIds.length === 0) return [];
  return db.selectFrom('maintenance_components').selectAll().where('maintenance_id', 'in', maintenanceIds).orderBy('component_id').execute();
}

/** Makes the window name exactly these components. */
export async function replaceMaintenanceComponents(db: Kysely<Database>, maintenanceId: number, componentIds: number[]): Promise<void> {
  await db.deleteFrom('maintenance_components').where('maintenance_id', '=', maintenanceId).execute();
  if (componentIds.length > 0) {
    await db
      .insertInto('maintenance_components')
      .values(componentIds.map((component_id) => ({ maintenance_id: maintenanceId, component_id })))
      .execute();
  }
}

export async function insertMaintenance(db: Kysely<Database>, values: Insertable<MaintenanceTable>): Promise<MaintenanceRow> {
  return db.insertInto('maintenances').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateMaintenance(
  db: Kysely<Database>,
  id: number,
  values: { title: string; message: string; starts_at: string; ends_at: string; repeat_rule: string | null; updated_at: string },
): Promise<MaintenanceRow> {
  return db.updateTable('maintenances').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteMaintenance(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('maintenances').where('id', '=', id).execute();
}

/**
 * The windows whose span covers `monitorId` at `now`: on a page with a component linked to the
 * monitor, for the whole page or naming that component. A repeating window's span runs from its
 * first occurrence to its end, so its caller still asks whether an occurrence is under way.
 */
export async function maintenanceSpansCovering(
  db: Kysely<Database>,
  monitorId: number,
  now: string,
): Promise<{ id: number; starts_at: string; repeat_rule: string | null }[]> {
  return db
    .selectFrom('maintenances as m')
    .innerJoin('page_components as c', 'c.page_id', 'm.page_id')
    .select(['m.id', 'm.starts_at', 'm.repeat_rule'])
    .where('c.monitor_id', '=', monitorId)
    .where('m.starts_at', '<=', now)
    .where('m.ends_at', '>', now)
    .where((eb) =>
      eb.or([
        eb.not(eb.exists(eb.selectFrom('maintenance_components as any').select('any.component_id').whereRef('any.maintenance_id', '=', 'm.id'))),
        eb.exists(
          eb
            .selectFrom('maintenance_components as mc')
            .select('mc.component_id')
            .whereRef('mc.maintenance_id', '=', 'm.id')
            .whereRef('mc.component_id', '=', 'c.id'),
        ),
      ]),
    )
    .orderBy('m.id')
    .execute();
}

/** A status page's windows that have not ended by `now`, earliest start first. */
export async function currentMaintenanceRowsOfPage(db: Kysely<Database>, pageId: number, now: string): Promise<MaintenanceRow[]> {
  return db.selectFrom('maintenances').selectAll().where('page_id', '=', pageId).where('ends_at', '>', now).orderBy('starts_at').execute();
}

/** A status page's windows whose span overlaps [from, to), by start. */
export async function maintenanceRowsBetween(db: Kysely<Database>, pageId: number, from: string, to: string): Promise<MaintenanceRow[]> {
  return db
    .selectFrom('maintenances')
    .selectAll()
    .where('page_id', '=', pageId)
    .where('starts_at', '<', to)
    .where('ends_at', '>', from)
    .orderBy('starts_at')
    .orderBy('id')
    .execute();
}
