import type { Kysely } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
//
// A status page's branding and its own address. `accent_color` is `#rrggbb`; `website_url` the
// link back to the owner's site; `logo` a small PNG, JPEG, WebP or GIF file (its type is read
// from its first bytes, never stored apart); `custom_domain` a host name, lower-case, that serves
// the page at `/` (unique: one name, one page); `former_slug` the slug the page had before its
// last change of slug, which still forwards to the page and no other page may take (unique).
// All may be null: an unbranded page on the service's own address.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  await db.schema.alterTable('status_pages').addColumn('accent_color', 'text').execute();
  await db.schema.alterTable('status_pages').addColumn('website_url', 'text').execute();
  await db.schema.alterTable('status_pages').addColumn('logo', t.blob).execute();
  await db.schema.alterTable('status_pages').addColumn('custom_domain', 'text').execute();
  await db.schema.alterTable('status_pages').addColumn('former_slug', 'text').execute();
  await db.schema.createIndex('status_pages_custom_domain').unique().on('status_pages').column('custom_domain').execute();
  await db.schema.createIndex('status_pages_former_slug').unique().on('status_pages').column('former_slug').execute();
}
