import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// A shared instance's people. An invitation is a one-time link to join a workspace with a role:
// stored as the hash of its secret, it expires, and accepting it records who it made. A passkey is
// a WebAuthn credential of a person (its public key; the private one never leaves their
// authenticator). An identity links a person to an OpenID Connect provider's account (issuer and
// subject). Dashboard sessions gain a public id (to list and end them without their secrets),
// how they were opened, and the browser that opened them.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema
    .createTable('invitations')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_by', t.integer, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by', t.integer, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_workspace').on('invitations').columns(['workspace_id', 'created_at']).execute();
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', t.integer, (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
  await db.schema
    .createTable('user_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', t.integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.alterTable('dashboard_tokens').addColumn('public_id', 'text').execute();
  await db.schema.alterTable('dashboard_tokens').addColumn('method', 'text').execute();
  await db.schema.alterTable('dashboard_tokens').addColumn('user_agent', 'text').execute();
}
