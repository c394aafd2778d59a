import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, OAuthRequestRow, OAuthRequestTable } from '../../db/schema.ts';

export async function findRequestById(db: Kysely<Database>, id: string): Promise<OAuthRequestRow | undefined> {
  return db.selectFrom('oauth_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest pending request with this matching code. */
export async function findPendingRequestByCode(db: Kysely<Database>, matchCode: string): Promise<OAuthRequestRow | undefined> {
  return db
    .selectFrom('oauth_requests')
    .selectAll()
    .where('match_code', '=', matchCode)
    .where('status', '=', 'pending')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export async function isMatchCodePending(db: Kysely<Database>, matchCode: string): Promise<boolean> {
  const row = await db.selectFrom('oauth_requests').select('id').where('match_code', '=', matchCode).where('status', '=', 'pending').executeTakeFirst();
  return row !== undefined;
}

/** Requests still pending at `now`, newest first. */
export async function listPendingRequests(db: Kysely<Database>, now: string): Promise<OAuthRequestRow[]> {
  return db.selectFrom('oauth_requests').selectAll().where('status', '=', 'pending').where('expires_at', '>', now).orderBy('created_at', 'desc').execute();
}

/** Requests pending at `now`: of the client `clientId`, and of all clients. */
export async function countPendingRequests(db: Kysely<Database>, clientId: string, now: string): Promise<{ ofClient: number; total: number }> {
  const row = await db
    .selectFrom('oauth_requests')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string | null>(eb.case().when('client_id', '=', clientId).then(1).else(0).end()).as('of_client'),
    ])
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { ofClient: Number(row.of_client ?? 0), total: Number(row.total) };
}

export async function insertRequest(db: Kysely<Database>, values: Insertable<OAuthRequestTable>): Promise<OAuthRequestRow> {
  return db.insertInto('oauth_requests').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateRequest(db: Kysely<Database>, id: string, values: Updateable<OAuthRequestTable>): Promise<OAuthRequestRow> {
  return db.updateTable('oauth_requests').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Moves a request from `status` to completed; undefined when it was no longer in that status. */
export async function completeRequest(db: Kysely<Database>, id: string, status: OAuthRequestRow['status']): Promise<OAuthRequestRow | undefined> {
  return db.updateTable('oauth_requests').set({ status: 'completed' }).where('id', '=', id).where('status', '=', status).returningAll().executeTakeFirst();
}

/** Swaps the ticket of a request pending at `now` for the hash of a browser's secret; the request's id, or undefined. */
export async function bindBrowser(db: Kysely<Database>, ticketHash: string, browserHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('oauth_requests')
    .set({ ticket_hash: null, browser_hash: browserHash })
    .where('ticket_hash', '=', ticketHash)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function deleteExpiredRequests(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('oauth_requests').where('expires_at', '<=', now).execute();
}
