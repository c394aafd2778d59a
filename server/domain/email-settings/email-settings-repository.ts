import type { Kysely } from 'kysely';
import type { Database, EmailSettingsRow } from '../../db/schema.ts';

/** The service's email settings: one row, id 1. */
const ROW_ID = 1;

export async function findEmailSettingsRow(db: Kysely<Database>): Promise<EmailSettingsRow | undefined> {
  return db.selectFrom('email_settings').selectAll().where('id', '=', ROW_ID).executeTakeFirst();
}

/** Writes the one row, adding it the first time. */
export async function saveEmailSettingsRow(db: Kysely<Database>, values: Omit<EmailSettingsRow, 'id'>): Promise<EmailSettingsRow> {
  return db
    .insertInto('email_settings')
    .values({ id: ROW_ID, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}
