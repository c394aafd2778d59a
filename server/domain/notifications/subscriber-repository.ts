import type { Kysely, Selectable } from 'kysely';
import type { Database, PageSubscriberTable } from '../../db/schema.ts';

export type SubscriberRow = Selectable<PageSubscriberTable>;

/** A subscriber by id, with the workspace of its page. */
export async function findSubscriber(db: Kysely<Database>, id: number): Promise<(SubscriberRow & { workspace_id: number }) | undefined> {
  return db
    .selectFrom('page_subscribers')
    .innerJoin('status_pages', 'status_pages.id', 'page_subscribers.page_id')
    .selectAll('page_subscribers')
    .select('status_pages.workspace_id')
    .where('page_subscribers.id', '=', id)
    .executeTakeFirst();
}

export async function findEmailSubscriber(db: Kysely<Database>, pageId: number, address: string): Promise<SubscriberRow | undefined> {
  return db
    .selectFrom('page_subscribers')
    .selectAll()
    .where('page_id', '=', pageId)
    .where('kind', '=', 'email')
    .where('address', '=', address)
    .executeTakeFirst();
}

/** A page's subscribers, newest first. */
export async function listSubscriberRows(db: Kysely<Database>, pageId: number): Promise<SubscriberRow[]> {
  return db.selectFrom('page_subscribers').selectAll().where('page_id', '=', pageId).orderBy('id', 'desc').execute();
}

/** Whether any page has an active email subscriber: mail will be sent with its next event. */
export async function hasActiveEmailSubscribers(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('page_subscribers').select('id').where('kind', '=', 'email').where('status', '=', 'active').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The subscribers a page event goes to, oldest first. */
export async function listActiveSubscriberRows(db: Kysely<Database>, pageId: number): Promise<SubscriberRow[]> {
  return db.selectFrom('page_subscribers').selectAll().where('page_id', '=', pageId).where('status', '=', 'active').orderBy('id').execute();
}

/** Adds a pending email subscriber; nothing when the page already has the address. */
export async function insertPendingEmail(db: Kysely<Database>, pageId: number, address: string, at: string): Promise<void> {
  await db
    .insertInto('page_subscribers')
    .values({ page_id: pageId, kind: 'email', address, status: 'pending', secret: null, created_at: at, confirmed_at: null, confirmation_sent_at: null })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Adds an active webhook subscriber: its address fingerprinted and sealed, its signing secret sealed. */
export async function insertWebhook(
  db: Kysely<Database>,
  pageId: number,
  values: { fingerprint: string; sealedUrl: string; sealedSecret: string; at: string },
): Promise<SubscriberRow> {
  return db
    .insertInto('page_subscribers')
    .values({
      page_id: pageId,
      kind: 'webhook',
      address: values.fingerprint,
      sealed_address: values.sealedUrl,
      status: 'active',
      secret: values.sealedSecret,
      created_at: values.at,
      confirmed_at: values.at,
      confirmation_sent_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function markConfirmationSent(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('page_subscribers').set({ confirmation_sent_at: at }).where('id', '=', id).execute();
}

export async function activateSubscriber(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('page_subscribers').set({ status: 'active', confirmed_at: at }).where('id', '=', id).execute();
}

export async function deleteSubscriber(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('page_subscribers').where('id', '=', id).execute();
}

/** Drops email subscribers still pending whose last confirmation mail (or sign-up) is older than `cutoff`. */
export async function deletePendingBefore(db: Kysely<Database>, cutoff: string): Promise<number> {
  const result = await db
    .deleteFrom('page_subscribers')
    .where('kind', '=', 'email')
    .where('status', '=', 'pending')
    .where((eb) => eb(eb.fn.coalesce('confirmation_sent_at', 'created_at'), '<', cutoff))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Records what became of a page event's deliveries: one statement per distinct error (one for
 * all that were delivered), stamped with the latest end among them. A subscriber removed
 * meanwhile is skipped.
 */
export async function recordDeliveries(db: Kysely<Database>, outcomes: { id: number; at: string; error: string | null }[]): Promise<void> {
  const byError = new Map<string | null, { ids: number[]; at: string }>();
  for (const { id, at, error } of outcomes) {
    const group = byError.get(error);
    if (group) {
      group.ids.push(id);
      if (at > group.at) group.at = at;
    } else byError.set(error, { ids: [id], at });
  }
  for (const [error, { ids, at }] of byError) {
    await db.updateTable('page_subscribers').set({ last_delivery_at: at, last_delivery_error: error }).where('id', 'in', ids).execute();
  }
}
