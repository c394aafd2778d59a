import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // Slugs are unique across workspaces: a page is served at /status/{slug} on the one host.
  await db.schema
    .createTable('status_pages')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('status_pages_workspace').on('status_pages').columns(['workspace_id', 'id']).execute();

  // A component with a monitor is of type `monitor`, else `static`. A component whose monitor is
  // deleted stays on the page, unlinked (static), so its history of reports and the page layout survive.
  await db.schema
    .createTable('page_components')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('page_id', t.integer, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('monitor_id', t.integer, (c) => c.references('monitors.id').onDelete('set null'))
    .addColumn('group_name', 'text')
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('page_components_page').on('page_components').columns(['page_id', 'position']).execute();
  await db.schema.createIndex('page_components_monitor').on('page_components').column('monitor_id').execute();

  await db.schema
    .createTable('status_reports')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('page_id', t.integer, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('investigating', 'identified', 'monitoring', 'resolved')`))
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('status_reports_workspace').on('status_reports').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('status_reports_page').on('status_reports').columns(['page_id', 'id']).execute();

  await sql`create table status_report_components (
    report_id ${t.integer} not null references status_reports(id) on delete cascade,
    component_id ${t.integer} not null references page_components(id) on delete cascade,
    primary key (report_id, component_id)
  )${t.withoutRowid}`.execute(db);
  await db.schema.createIndex('status_report_components_component').on('status_report_components').column('component_id').execute();

  // The public timeline of a report. `notify` records whether subscribers were to be told.
  await db.schema
    .createTable('status_report_updates')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('report_id', t.integer, (c) => c.notNull().references('status_reports.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('investigating', 'identified', 'monitoring', 'resolved')`))
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('notify', t.integer, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('status_report_updates_report').on('status_report_updates').columns(['report_id', 'id']).execute();

  await db.schema
    .createTable('maintenances')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('page_id', t.integer, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    // RFC 3339 UTC: compared as text.
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('maintenances_workspace').on('maintenances').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('maintenances_page').on('maintenances').columns(['page_id', 'ends_at']).execute();

  // No rows: the window covers the whole page.
  await sql`create table maintenance_components (
    maintenance_id ${t.integer} not null references maintenances(id) on delete cascade,
    component_id ${t.integer} not null references page_components(id) on delete cascade,
    primary key (maintenance_id, component_id)
  )${t.withoutRowid}`.execute(db);

  // Email subscribers stay pending until they follow the confirmation link (double opt-in).
  await db.schema
    .createTable('page_subscribers')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('page_id', t.integer, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('email', 'webhook')`))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'active')`))
    // Sealed signing secret of a webhook subscriber.
    .addColumn('secret', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    // When the last confirmation mail went out: a repeated sign-up re-sends it at most every few minutes.
    .addColumn('confirmation_sent_at', 'text')
    .addUniqueConstraint('page_subscribers_address', ['page_id', 'kind', 'address'])
    .execute();

  await db.schema
    .createTable('notification_channels')
    .addColumn('id', t.integer, t.serialId)
    .addColumn('workspace_id', t.integer, (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('webhook', 'slack', 'discord', 'email', 'ntfy', 'desktop')`))
    // JSON of the settings that are not secret.
    .addColumn('settings', 'text', (c) => c.notNull())
    // Sealed JSON of the credentials (URLs that carry tokens, passwords, signing secrets).
    .addColumn('credentials', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_channels_workspace').on('notification_channels').columns(['workspace_id', 'id']).execute();

  await sql`create table channel_monitors (
    channel_id ${t.integer} not null references notification_channels(id) on delete cascade,
    monitor_id ${t.integer} not null references monitors(id) on delete cascade,
    primary key (channel_id, monitor_id)
  )${t.withoutRowid}`.execute(db);
  await db.schema.createIndex('channel_monitors_monitor').on('channel_monitors').column('monitor_id').execute();

  // One row per monitor state change: what was sent where, or why nothing was.
  await db.schema
    .createTable('alerts')
    .addColumn('id', t.integer, t.rowId)
    .addColumn('monitor_id', t.integer, (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('down', 'recovered', 'degraded')`))
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    // The maintenance window that silenced it, if any.
    .addColumn('suppressed_by', t.integer)
    // JSON array of {channelId, ok, error}.
    .addColumn('deliveries', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alerts_monitor').on('alerts').columns(['monitor_id', 'id']).execute();
}
