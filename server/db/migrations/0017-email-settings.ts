import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// The service's email settings, set in the dashboard or with the CLI: the SMTP server mail leaves
// by (subscriber mail, email channels without their own server) and the sender. One row for the
// whole service (`id` is always 1). The password is sealed like every stored credential (the key
// is in the data folder, not in the database); the environment variables, when set, win over it.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .createTable('email_settings')
    .addColumn('id', t.integer, (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', t.integer, (c) => c.notNull())
    .addColumn('security', 'text', (c) => c.notNull().check(sql`security in ('none', 'starttls', 'tls')`))
    .addColumn('username', 'text')
    .addColumn('password', 'text')
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
