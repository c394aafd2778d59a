import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
// Sealing needs the key in secret.key, which migrations do not read. This migration only makes
// room for the sealed values and records what earlier versions left in the clear; the service
// seals it at its next start (sealStoredSecrets in server/domain/stored-secrets.ts), once: each
// step's row is deleted when the step is done.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Sealed JSON of the values of a monitor's credential-like request headers, gRPC metadata and
  // OTLP headers; the settings keep `[redacted]` in their place. NULL when there are none.
  await db.schema.alterTable('monitors').addColumn('secrets', 'text').execute();
  // Sealed URL of a webhook subscriber; `address` then holds a keyed fingerprint of the URL
  // (which keeps the page's addresses unique) instead of the URL.
  await db.schema.alterTable('page_subscribers').addColumn('sealed_address', 'text').execute();
  await sql`create table pending_sealing (step text primary key)${schemaWords(db).withoutRowid}`.execute(db);
  await sql`insert into pending_sealing (step) values ('monitors'), ('page_subscribers'), ('audit_log')`.execute(db);
}
