import { type Kysely, sql } from 'kysely';
import type { Database, MonitorRow, MonitorTable } from '../../db/schema.ts';

/**
 * The stored columns of a monitor's configuration, as the monitor service prepares them: its
 * credential-like values already sealed into `secrets`. The repository stores what it is given.
 */
export type MonitorColumns = Pick<
  MonitorTable,
  'secrets' | 'name' | 'description' | 'active' | 'periodicity' | 'regions' | 'timeout_ms' | 'degraded_ms' | 'retry' | 'open_telemetry' | 'tags' | 'settings'
> & { remind_every_ms: number | null; group_name: string };

export async function findMonitorRow(db: Kysely<Database>, workspaceId: number, id: number): Promise<MonitorRow | undefined> {
  return db.selectFrom('monitors').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/**
 * The ids and revisions of one page of a workspace's monitors, newest first, each row with the
 * workspace's count of monitors (none past the last page).
 */
export async function listMonitorRevisions(db: Kysely<Database>, workspaceId: number, limit: number, offset: number) {
  return db
    .selectFrom('monitors')
    .select(['id', 'revision', sql<number>`count(*) over ()`.as('total')])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countMonitors(db: Kysely<Database>, workspaceId: number): Promise<number> {
  const { total } = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return total;
}

export async function findMonitorRows(db: Kysely<Database>, ids: number[]): Promise<MonitorRow[]> {
  return db.selectFrom('monitors').selectAll().where('id', 'in', ids).execute();
}

/** The private locations of these monitors, by monitor id, each list ordered by location id. */
export async function monitorLocationIds(db: Kysely<Database>, monitorIds: number[]): Promise<Map<number, number[]>> {
  const links = new Map<number, number[]>();
  if (monitorIds.length === 0) return links;
  const rows = await db
    .selectFrom('monitor_private_locations')
    .select(['monitor_id', 'location_id'])
    .where('monitor_id', 'in', monitorIds)
    .orderBy('location_id')
    .execute();
  for (const row of rows) links.set(row.monitor_id, [...(links.get(row.monitor_id) ?? []), row.location_id]);
  return links;
}

/** Makes the monitor's private locations exactly these. */
async function setMonitorLocations(db: Kysely<Database>, monitorId: number, locationIds: string[]): Promise<void> {
  await db.deleteFrom('monitor_private_locations').where('monitor_id', '=', monitorId).execute();
  if (locationIds.length === 0) return;
  await db
    .insertInto('monitor_private_locations')
    .values(locationIds.map((id) => ({ monitor_id: monitorId, location_id: Number(id) })))
    .execute();
}

/**
 * The names of the monitor's private locations, by location id: the regions its results from them
 * stand for. Joins the private locations' table for their names.
 */
export async function monitorLocationNames(db: Kysely<Database>, monitorId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('monitor_private_locations as link')
    .innerJoin('private_locations as location', 'location.id', 'link.location_id')
    .select('location.name')
    .where('link.monitor_id', '=', monitorId)
    .orderBy('location.id')
    .execute();
  return rows.map((row) => row.name);
}

/**
 * Of these ids, those that name private locations of the workspace. Reads the private
 * locations' table, as monitorLocationNames does. The embedded runner belongs to no workspace, so
 * it is never among them.
 */
export async function workspaceLocationIds(db: Kysely<Database>, workspaceId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('private_locations').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

export async function insertMonitor(
  db: Kysely<Database>,
  workspaceId: number,
  type: MonitorRow['type'],
  columns: MonitorColumns,
  locationIds: string[],
): Promise<MonitorRow> {
  const now = new Date().toISOString();
  const row = await db
    .insertInto('monitors')
    .values({ workspace_id: workspaceId, type, ...columns, revision: 1, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  await setMonitorLocations(db, row.id, locationIds);
  return row;
}

/** Bumps the revision on every change, its private locations' alone included: runners and the engine watch it. */
export async function updateMonitor(db: Kysely<Database>, id: number, columns: MonitorColumns, locationIds: string[]): Promise<MonitorRow> {
  const row = await db
    .updateTable('monitors')
    .set({ ...columns, revision: sql`revision + 1`, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await setMonitorLocations(db, id, locationIds);
  return row;
}

export async function deleteMonitor(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('monitors').where('id', '=', id).execute();
}

/** Those of these ids that name monitors of the workspace. */
export async function monitorIdsIn(db: Kysely<Database>, workspaceId: number, ids: number[]): Promise<Set<number>> {
  const rows = await db.selectFrom('monitors').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Those of these monitors that are active (not paused). */
export async function activeMonitorIds(db: Kysely<Database>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('monitors').select('id').where('id', 'in', ids).where('active', '=', 1).execute();
  return new Set(rows.map((row) => row.id));
}

export async function monitorName(db: Kysely<Database>, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('monitors').select('name').where('id', '=', id).executeTakeFirst();
  return row?.name;
}
