import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // Public clients: registered here (RFC 7591), or known by their metadata document's URL, which
  // is stored when a person first approves such a client so grants can name it.
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('registered', 'metadata')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'text')
    .execute();

  // A person's approval of a client for one workspace. Revoked grants are kept for the audit trail.
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('user_id', t.integer, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('read', 'write')`))
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_grants_client_user').on('oauth_grants').columns(['client_id', 'user_id']).execute();
  await db.schema.createIndex('oauth_grants_workspace').on('oauth_grants').columns(['workspace_id', 'id']).execute();

  // Authorization requests waiting for a person's decision, and their outcome until the browser
  // that made them collects it. Secrets (ticket, browser binding) are stored only as hashes.
  await db.schema
    .createTable('oauth_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('match_code', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_source', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('client_redirect_uris', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('ticket_hash', 'text')
    .addColumn('browser_hash', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'approved', 'denied', 'completed')`))
    .addColumn('grant_id', t.integer, (c) => c.references('oauth_grants.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_requests_match_code').on('oauth_requests').column('match_code').execute();
  await db.schema.createIndex('oauth_requests_ticket').on('oauth_requests').column('ticket_hash').execute();

  // Codes, access tokens and refresh tokens of a grant, by hash. A used code or a rotated refresh
  // token is kept (used_at set) until it expires, so presenting it again is recognised as reuse.
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('code', 'access', 'refresh')`))
    .addColumn('grant_id', t.integer, (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text')
    .addColumn('code_challenge', 'text')
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('read', 'write')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').columns(['grant_id', 'kind']).execute();
}
