import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database, OAuthGrantRow, OAuthGrantTable } from '../../db/schema.ts';

export async function findGrantRow(db: Kysely<Database>, id: number): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A grant with the name of its client. */
export async function findGrantWithClientName(db: Kysely<Database>, id: number) {
  return db
    .selectFrom('oauth_grants')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
    .selectAll('oauth_grants')
    .select('oauth_clients.name as client_name')
    .where('oauth_grants.id', '=', id)
    .executeTakeFirst();
}

/** The ids of the live grants a member approved for a workspace. */
export async function liveGrantIdsOf(db: Kysely<Database>, workspaceId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

/** The ids of the live grants a person approved for a client, in any workspace. */
export async function liveGrantIdsOfClient(db: Kysely<Database>, clientId: string, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('client_id', '=', clientId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

export async function insertGrant(db: Kysely<Database>, values: Insertable<OAuthGrantTable>): Promise<OAuthGrantRow> {
  return db.insertInto('oauth_grants').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function markGrantRevoked(db: Kysely<Database>, id: number, at: string): Promise<OAuthGrantRow> {
  return db.updateTable('oauth_grants').set({ revoked_at: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function markGrantUsed(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
}

/**
 * The live grants of a workspace, newest first, as Connected apps lists them: one read across
 * the grant's client, person and workspace for their names, and the count of audit entries
 * its tokens wrote (actor id `oat_{grant id}`).
 */
export async function listLiveGrantsWithNames(db: Kysely<Database>, workspaceId: number) {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .innerJoin('workspaces as w', 'w.id', 'g.workspace_id')
    .select((eb) => [
      'g.id',
      'g.client_id',
      'c.name as client_name',
      'c.source as client_source',
      'g.scope',
      'g.workspace_id',
      'w.name as workspace_name',
      'g.user_id',
      'u.name as user_name',
      'g.created_at',
      'g.last_used_at',
      eb
        .selectFrom('audit_log')
        .select((a) => a.fn.countAll<number>().as('n'))
        .whereRef('audit_log.workspace_id', '=', 'g.workspace_id')
        .where((a) => a('audit_log.actor_id', '=', sql<string>`'oat_' || ${a.ref('g.id')}`))
        .as('changes'),
    ])
    .where('g.workspace_id', '=', workspaceId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.id', 'desc')
    .execute();
}

/** The names of the clients of these grants, revoked ones included. */
export async function clientNamesOfGrants(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['g.id', 'c.name'])
    .where('g.id', 'in', ids)
    .execute();
}
