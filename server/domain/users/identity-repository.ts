import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The person who signs in with the account `subject` of the provider `issuer`. */
export async function findIdentityUser(db: Kysely<Database>, issuer: string, subject: string): Promise<number | undefined> {
  const row = await db.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
  return row?.user_id;
}

/**
 * Links the account to the person, unless it is linked already: the person it is linked to after
 * the call (another one when two sign-ins of one account raced).
 */
export async function insertIdentity(db: Kysely<Database>, identity: { issuer: string; subject: string; userId: number; createdAt: string }): Promise<number> {
  await db
    .insertInto('user_identities')
    .values({ issuer: identity.issuer, subject: identity.subject, user_id: identity.userId, created_at: identity.createdAt })
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .execute();
  return (await findIdentityUser(db, identity.issuer, identity.subject)) ?? identity.userId;
}
