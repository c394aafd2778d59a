import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, PrivateLocationRow, PrivateLocationTable } from '../../db/schema.ts';

/** The runner inside the service itself: the first private location, serving every region. */
export const EMBEDDED_RUNNER = 'local';

export async function runnerByName(db: Kysely<Database>, name: string): Promise<PrivateLocationRow | undefined> {
  return db.selectFrom('private_locations').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function markRunnerSeen(db: Kysely<Database>, name: string, at: string): Promise<void> {
  await db.updateTable('private_locations').set({ status: 'active', last_seen_at: at }).where('name', '=', name).execute();
}

/** The locations a workspace sees: the embedded runner (no workspace) and its own. */
function visibleTo(db: Kysely<Database>, workspaceId: number) {
  return db.selectFrom('private_locations').where((eb) => eb.or([eb('workspace_id', 'is', null), eb('workspace_id', '=', workspaceId)]));
}

/** A page of the workspace's locations, oldest first (the embedded runner leads), with the total. */
export async function listLocationRows(db: Kysely<Database>, workspaceId: number, limit: number, offset: number) {
  const [rows, { total }] = await Promise.all([
    visibleTo(db, workspaceId).selectAll().orderBy('id').limit(limit).offset(offset).execute(),
    visibleTo(db, workspaceId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total };
}

export async function findLocationRow(db: Kysely<Database>, id: number): Promise<PrivateLocationRow | undefined> {
  return db.selectFrom('private_locations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertLocation(db: Kysely<Database>, values: Insertable<PrivateLocationTable>): Promise<PrivateLocationRow> {
  return db.insertInto('private_locations').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateLocation(db: Kysely<Database>, id: number, values: Updateable<PrivateLocationTable>): Promise<PrivateLocationRow> {
  return db.updateTable('private_locations').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteLocation(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('private_locations').where('id', '=', id).execute();
}

/**
 * Moves the monitors' current state of a runner to its new name, and the one region it stands for
 * with it. Reaches into the checks' `check_state`: a rename must carry the current state along in
 * its own transaction. Stored results keep the name they were made under.
 */
export async function renameRunnerState(db: Kysely<Database>, from: string, to: string): Promise<void> {
  await db
    .updateTable('check_state')
    .set({ runner: to, regions: JSON.stringify([to]) })
    .where('runner', '=', from)
    .execute();
}
