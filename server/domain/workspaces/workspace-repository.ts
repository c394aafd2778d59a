import type { Kysely } from 'kysely';
import { preparedOrQuery } from '../../db/open.ts';
import type { Database, WorkspaceRow } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Role } from '../actor.ts';

type WorkspaceLookup = (id: number) => Promise<WorkspaceRow | undefined>;
const lookups = new WeakMap<Kysely<Database>, WorkspaceLookup>();

/**
 * The workspace with this id; NOT_FOUND when there is none. Every whoami (so every MCP
 * tools/list) and every plan check reads it: one prepared statement per database, not a query
 * built each time.
 */
export async function findWorkspaceRow(db: Kysely<Database>, id: number): Promise<WorkspaceRow> {
  let lookup = lookups.get(db);
  if (!lookup) {
    lookup = preparedOrQuery(
      db,
      (sqlite) => {
        const statement = sqlite.prepare<[number], WorkspaceRow>('select * from workspaces where id = ?');
        return (id: number) => statement.get(id);
      },
      (id: number) => db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst(),
    );
    lookups.set(db, lookup);
  }
  const row = await lookup(id);
  if (!row) throw new AppError('NOT_FOUND', `workspace ${id} does not exist`);
  return row;
}

export async function findWorkspaceRowBySlug(db: Kysely<Database>, slug: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** Workspaces in id order: every one, the one with this id, or those this user is a member of. */
export async function listWorkspaceRows(db: Kysely<Database>, only: { id?: number; memberId?: number } = {}): Promise<WorkspaceRow[]> {
  let query = db.selectFrom('workspaces').selectAll('workspaces');
  if (only.id !== undefined) query = query.where('id', '=', only.id);
  if (only.memberId !== undefined) {
    query = query.innerJoin('memberships', 'memberships.workspace_id', 'workspaces.id').where('memberships.user_id', '=', only.memberId);
  }
  return query.orderBy('workspaces.id').execute();
}

/** A person's workspaces with their role in each, in id order. */
export async function memberWorkspaceRows(db: Kysely<Database>, userId: number) {
  return db
    .selectFrom('workspaces')
    .innerJoin('memberships', 'memberships.workspace_id', 'workspaces.id')
    .select(['workspaces.id', 'workspaces.name', 'workspaces.slug', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('workspaces.id')
    .execute();
}

export async function insertWorkspace(db: Kysely<Database>, values: { name: string; slug: string; plan: string; createdAt: string }): Promise<WorkspaceRow> {
  return db
    .insertInto('workspaces')
    .values({ name: values.name, slug: values.slug, plan: values.plan, created_at: values.createdAt })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertMembership(db: Kysely<Database>, workspaceId: number, userId: number, role: Role, at: string): Promise<void> {
  await db.insertInto('memberships').values({ workspace_id: workspaceId, user_id: userId, role, created_at: at }).execute();
}

export async function deleteMembership(db: Kysely<Database>, workspaceId: number, userId: number): Promise<void> {
  await db.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

export async function roleOf(db: Kysely<Database>, workspaceId: number, userId: number): Promise<Role | undefined> {
  const row = await db.selectFrom('memberships').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role as Role | undefined;
}

/** A member's role with their name. */
export async function findMember(db: Kysely<Database>, workspaceId: number, userId: number) {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.role', 'users.name'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { role: row.role as Role, name: row.name };
}

export async function countOwners(db: Kysely<Database>, workspaceId: number): Promise<number> {
  const { total } = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return total;
}

/** The user who first became an owner of any workspace: the machine's owner. */
export async function firstOwnerId(db: Kysely<Database>): Promise<number | undefined> {
  const row = await db.selectFrom('memberships').select('user_id').where('role', '=', 'owner').orderBy('created_at').executeTakeFirst();
  return row?.user_id;
}
