import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

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
