/**
 * What every migration in turn makes of a new SQLite file, as one script: a new file gets it in
 * one step, a tenth of the time of building each migration's statements with Kysely; a file
 * already holding a schema is migrated step by step. Its CREATE statements are the text
 * `sqlite_master` holds in a file the migrations made, in its order; its rows are those the
 * migrations insert, Kysely's record of each migration applied among them, but for the steps of
 * sealing what earlier versions stored in the clear: a new file holds nothing to seal.
 * `test/migrations.test.ts` fails, naming what differs, when this and the migrations part: a new
 * migration adds its statements here (a table it alters gets its CREATE statement as
 * `sqlite_master` then holds it) and its name to kysely_migration.
 */
export const SQLITE_LATEST = `
CREATE TABLE "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null);
CREATE TABLE "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null);
CREATE TABLE "workspaces" ("id" integer primary key autoincrement, "name" text not null, "slug" text not null unique, "plan" text not null check (plan in ('hobby', 'starter', 'pro', 'scale')), "created_at" text not null);
CREATE TABLE "users" ("id" integer primary key autoincrement, "name" text not null, "email" text, "created_at" text not null);
CREATE TABLE "memberships" ("workspace_id" integer not null references "workspaces" ("id") on delete cascade, "user_id" integer not null references "users" ("id") on delete cascade, "role" text not null check (role in ('owner', 'admin', 'member')), "created_at" text not null, constraint "memberships_pk" primary key ("workspace_id", "user_id"));
CREATE TABLE "api_keys" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "name" text not null, "prefix" text not null, "secret_hash" text not null unique, "scopes" text, "created_by_user_id" integer references "users" ("id") on delete set null, "created_at" text not null, "last_used_at" text, "revoked_at" text);
CREATE INDEX "api_keys_prefix" on "api_keys" ("prefix");
CREATE TABLE "audit_log" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "entity_type" text not null, "entity_id" text not null, "action" text not null, "actor_type" text not null, "actor_id" text not null, "actor_user_id" integer, "before" text, "after" text, "changed_fields" text not null, "created_at" text not null, "actor_surface" text);
CREATE INDEX "audit_log_workspace_time" on "audit_log" ("workspace_id", "created_at");
CREATE INDEX "audit_log_entity" on "audit_log" ("workspace_id", "entity_type", "entity_id");
CREATE TABLE "dashboard_tokens" ("token_hash" text primary key, "kind" text not null check (kind in ('signin', 'session')), "user_id" integer not null references "users" ("id") on delete cascade, "created_at" text not null, "expires_at" text not null, "public_id" text, "method" text, "user_agent" text);
CREATE TABLE "private_locations" ("id" integer primary key autoincrement, "name" text not null unique, "status" text not null check (status in ('active', 'error')), "metadata" text not null, "regions" text, "token_hash" text, "last_seen_at" text, "created_at" text not null, "workspace_id" integer references "workspaces" ("id") on delete cascade, "token_prefix" text, "runner_version" text, "runner_hostname" text, "runner_instance" text, "last_sequence" integer default 0 not null, "dropped_results" integer default 0 not null);
CREATE TABLE "check_results" ("id" integer primary key, "monitor_id" integer not null references "monitors" ("id") on delete cascade, "runner" text not null, "regions" text not null, "started_at" integer not null, "result" text not null check (result in ('up', 'degraded', 'down')), "latency_ms" real not null, "dns_ms" real, "connect_ms" real, "tls_ms" real, "ttfb_ms" real, "transfer_ms" real, "attempts" integer not null, "message" text not null, "grpc_status" text, "status_code" integer, "details" text);
CREATE INDEX "check_results_monitor" on "check_results" ("monitor_id", "started_at");
CREATE INDEX "check_results_started" on "check_results" ("started_at");
CREATE TABLE check_rollups (
    monitor_id integer not null references monitors(id) on delete cascade,
    hour integer not null,
    success_count integer not null,
    degraded_count integer not null,
    error_count integer not null,
    latency blob not null,
    last_ping_at integer not null,
    primary key (monitor_id, hour)
  ) without rowid;
CREATE TABLE check_state (
    monitor_id integer not null references monitors(id) on delete cascade,
    runner text not null,
    result text not null,
    regions text not null,
    checked_at integer not null, "latency_ms" real,
    primary key (monitor_id, runner)
  ) without rowid;
CREATE TABLE "check_gaps" ("id" integer primary key, "runner" text not null, "started_at" integer not null, "ended_at" integer not null);
CREATE INDEX "check_gaps_ended" on "check_gaps" ("ended_at");
CREATE TABLE "status_pages" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "slug" text not null unique, "title" text not null, "description" text not null, "created_at" text not null, "updated_at" text not null, "accent_color" text, "website_url" text, "logo" blob, "custom_domain" text, "former_slug" text);
CREATE INDEX "status_pages_workspace" on "status_pages" ("workspace_id", "id");
CREATE TABLE "page_components" ("id" integer primary key autoincrement, "page_id" integer not null references "status_pages" ("id") on delete cascade, "name" text not null, "description" text not null, "monitor_id" integer references "monitors" ("id") on delete set null, "group_name" text, "position" integer not null, "created_at" text not null, "updated_at" text not null);
CREATE INDEX "page_components_page" on "page_components" ("page_id", "position");
CREATE INDEX "page_components_monitor" on "page_components" ("monitor_id");
CREATE TABLE "status_reports" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "page_id" integer not null references "status_pages" ("id") on delete cascade, "title" text not null, "status" text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')), "resolved_at" text, "created_at" text not null, "updated_at" text not null);
CREATE INDEX "status_reports_workspace" on "status_reports" ("workspace_id", "id");
CREATE INDEX "status_reports_page" on "status_reports" ("page_id", "id");
CREATE TABLE status_report_components (
    report_id integer not null references status_reports(id) on delete cascade,
    component_id integer not null references page_components(id) on delete cascade,
    primary key (report_id, component_id)
  ) without rowid;
CREATE INDEX "status_report_components_component" on "status_report_components" ("component_id");
CREATE TABLE "status_report_updates" ("id" integer primary key autoincrement, "report_id" integer not null references "status_reports" ("id") on delete cascade, "status" text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')), "message" text not null, "notify" integer not null, "created_at" text not null);
CREATE INDEX "status_report_updates_report" on "status_report_updates" ("report_id", "id");
CREATE TABLE "maintenances" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "page_id" integer not null references "status_pages" ("id") on delete cascade, "title" text not null, "message" text not null, "starts_at" text not null, "ends_at" text not null, "created_at" text not null, "updated_at" text not null, "repeat_rule" text);
CREATE INDEX "maintenances_workspace" on "maintenances" ("workspace_id", "id");
CREATE INDEX "maintenances_page" on "maintenances" ("page_id", "ends_at");
CREATE TABLE maintenance_components (
    maintenance_id integer not null references maintenances(id) on delete cascade,
    component_id integer not null references page_components(id) on delete cascade,
    primary key (maintenance_id, component_id)
  ) without rowid;
CREATE TABLE "page_subscribers" ("id" integer primary key autoincrement, "page_id" integer not null references "status_pages" ("id") on delete cascade, "kind" text not null check (kind in ('email', 'webhook')), "address" text not null, "status" text not null check (status in ('pending', 'active')), "secret" text, "created_at" text not null, "confirmed_at" text, "confirmation_sent_at" text, "sealed_address" text, "last_delivery_at" text, "last_delivery_error" text, constraint "page_subscribers_address" unique ("page_id", "kind", "address"));
CREATE TABLE channel_monitors (
    channel_id integer not null references notification_channels(id) on delete cascade,
    monitor_id integer not null references monitors(id) on delete cascade,
    primary key (channel_id, monitor_id)
  ) without rowid;
CREATE INDEX "channel_monitors_monitor" on "channel_monitors" ("monitor_id");
CREATE TABLE "oauth_clients" ("id" text primary key, "source" text not null check (source in ('registered', 'metadata')), "name" text not null, "redirect_uris" text not null, "created_at" text not null, "granted_at" text);
CREATE TABLE "oauth_grants" ("id" integer primary key autoincrement, "client_id" text not null references "oauth_clients" ("id") on delete cascade, "user_id" integer not null references "users" ("id") on delete cascade, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "scope" text not null check (scope in ('read', 'write')), "resource" text not null, "created_at" text not null, "last_used_at" text, "revoked_at" text);
CREATE INDEX "oauth_grants_client_user" on "oauth_grants" ("client_id", "user_id");
CREATE INDEX "oauth_grants_workspace" on "oauth_grants" ("workspace_id", "id");
CREATE TABLE "oauth_requests" ("id" text primary key, "match_code" text not null, "client_id" text not null, "client_source" text not null, "client_name" text not null, "client_redirect_uris" text not null, "redirect_uri" text not null, "code_challenge" text not null, "scope" text not null, "resource" text not null, "state" text, "ticket_hash" text, "browser_hash" text, "status" text not null check (status in ('pending', 'approved', 'denied', 'completed')), "grant_id" integer references "oauth_grants" ("id") on delete cascade, "created_at" text not null, "expires_at" text not null);
CREATE INDEX "oauth_requests_match_code" on "oauth_requests" ("match_code");
CREATE INDEX "oauth_requests_ticket" on "oauth_requests" ("ticket_hash");
CREATE TABLE "oauth_tokens" ("token_hash" text primary key, "kind" text not null check (kind in ('code', 'access', 'refresh')), "grant_id" integer not null references "oauth_grants" ("id") on delete cascade, "redirect_uri" text, "code_challenge" text, "scope" text not null check (scope in ('read', 'write')), "created_at" text not null, "expires_at" text not null, "used_at" text);
CREATE INDEX "oauth_tokens_grant" on "oauth_tokens" ("grant_id", "kind");
CREATE TABLE pending_sealing (step text primary key) without rowid;
CREATE TABLE monitor_state (
    monitor_id integer primary key references monitors(id) on delete cascade,
    state text not null check (state in ('up', 'degraded', 'down')),
    changed_at integer not null
  );
CREATE INDEX "private_locations_token_prefix" on "private_locations" ("token_prefix");
CREATE INDEX "private_locations_workspace" on "private_locations" ("workspace_id");
CREATE TABLE "monitor_private_locations" ("monitor_id" integer not null references "monitors" ("id") on delete cascade, "location_id" integer not null references "private_locations" ("id") on delete cascade, constraint "monitor_private_locations_pk" primary key ("monitor_id", "location_id"));
CREATE INDEX "monitor_private_locations_location" on "monitor_private_locations" ("location_id");
CREATE TABLE check_leases (
    shard integer primary key,
    holder text,
    expires_at integer not null default 0
  ) without rowid;
CREATE TABLE check_lease_holders (
    holder text primary key,
    expires_at integer not null
  ) without rowid;
CREATE TABLE "monitors" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "type" text not null, "name" text not null, "description" text not null, "active" integer not null, "periodicity" text not null, "regions" text not null, "timeout_ms" integer not null, "degraded_ms" integer, "retry" integer not null, "open_telemetry" text, "tags" text not null, "settings" text not null, "revision" integer not null, "created_at" text not null, "updated_at" text not null, "secrets" text, "remind_every_ms" integer, "group_name" text default '' not null);
CREATE INDEX "monitors_workspace" on "monitors" ("workspace_id", "id");
CREATE TABLE "alerts" ("id" integer primary key, "monitor_id" integer not null references "monitors" ("id") on delete cascade, "kind" text not null, "message" text not null, "occurred_at" text not null, "suppressed_by" integer, "deliveries" text not null);
CREATE INDEX "alerts_monitor" on "alerts" ("monitor_id", "id");
CREATE TABLE "notification_channels" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "name" text not null, "kind" text not null, "settings" text not null, "credentials" text not null, "created_at" text not null, "updated_at" text not null, "events" text, "failures" integer default 0 not null, "last_error" text, "last_failed_at" text, "last_sent_at" text, "backoff_until" text, "all_monitors" integer default 0 not null, "default_for_new" integer default 0 not null);
CREATE INDEX "notification_channels_workspace" on "notification_channels" ("workspace_id", "id");
CREATE TABLE "mcp_tool_pins" ("monitor_id" integer primary key references "monitors" ("id") on delete cascade, "tools" text not null, "pinned_at" text not null, "pinned_by" text not null);
CREATE TABLE "mcp_tool_drifts" ("id" integer primary key autoincrement, "monitor_id" integer not null references "monitors" ("id") on delete cascade, "detected_at" text not null, "updated_at" text not null, "tools" text not null, "accepted_at" text, "accepted_by" text);
CREATE INDEX "mcp_tool_drifts_monitor" on "mcp_tool_drifts" ("monitor_id", "id");
CREATE TABLE "heartbeats" ("monitor_id" integer primary key references "monitors" ("id") on delete cascade, "token_hash" text not null unique, "token_issued_at" text not null, "last_ping_at" integer, "last_ping_kind" text, "last_exit_status" integer, "last_success_at" integer, "started_at" integer, "failed_at" integer, "failure" text, "last_run_ms" real);
CREATE TABLE "heartbeat_pings" ("id" integer primary key, "monitor_id" integer not null references "monitors" ("id") on delete cascade, "kind" text not null check (kind in ('success', 'start', 'fail')), "exit_status" integer, "body" text not null, "received_at" integer not null, "run_time_ms" real, "method" text not null, "address" text not null, "user_agent" text not null);
CREATE INDEX "heartbeat_pings_monitor" on "heartbeat_pings" ("monitor_id", "id");
CREATE TABLE "channel_deliveries" ("id" integer primary key, "channel_id" integer not null references "notification_channels" ("id") on delete cascade, "at" text not null, "event" text not null, "monitor_id" text, "monitor_name" text not null, "result" text not null check (result in ('delivered', 'failed', 'retrying')), "status_code" integer, "response" text, "error" text, "attempts" integer not null);
CREATE INDEX "channel_deliveries_channel" on "channel_deliveries" ("channel_id", "id");
CREATE UNIQUE INDEX "status_pages_custom_domain" on "status_pages" ("custom_domain");
CREATE UNIQUE INDEX "status_pages_former_slug" on "status_pages" ("former_slug");
CREATE TABLE "email_settings" ("id" integer primary key check (id = 1), "host" text not null, "port" integer not null, "security" text not null check (security in ('none', 'starttls', 'tls')), "username" text, "password" text, "from_address" text not null, "updated_at" text not null);
CREATE TABLE "monitor_badges" ("monitor_id" integer primary key references "monitors" ("id") on delete cascade, "badge_id" text not null unique, "enabled" integer not null check (enabled in (0, 1)), "updated_at" text not null);
CREATE TABLE "monitor_incidents" ("id" integer primary key, "monitor_id" integer not null references "monitors" ("id") on delete cascade, "started_at" integer not null, "ended_at" integer, "failed_checks" integer, "first_message" text not null);
CREATE INDEX "monitor_incidents_monitor" on "monitor_incidents" ("monitor_id", "started_at");
CREATE INDEX "monitors_workspace_group" on "monitors" ("workspace_id", "group_name");
CREATE TABLE "invitations" ("id" integer primary key autoincrement, "workspace_id" integer not null references "workspaces" ("id") on delete cascade, "role" text not null check (role in ('owner', 'admin', 'member')), "token_hash" text not null unique, "note" text not null, "created_by" integer references "users" ("id") on delete set null, "created_at" text not null, "expires_at" text not null, "accepted_at" text, "accepted_by" integer references "users" ("id") on delete set null, "revoked_at" text);
CREATE INDEX "invitations_workspace" on "invitations" ("workspace_id", "created_at");
CREATE TABLE "passkeys" ("id" text primary key, "user_id" integer not null references "users" ("id") on delete cascade, "public_key" text not null, "counter" integer not null, "transports" text not null, "name" text not null, "created_at" text not null, "last_used_at" text);
CREATE INDEX "passkeys_user" on "passkeys" ("user_id");
CREATE TABLE "user_identities" ("issuer" text not null, "subject" text not null, "user_id" integer not null references "users" ("id") on delete cascade, "created_at" text not null, constraint "user_identities_pk" primary key ("issuer", "subject"));
insert into kysely_migration_lock (id, is_locked) values ('migration_lock', 0);
insert into kysely_migration (name, timestamp) values
  ('0001-initial', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0002-monitors', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0003-checks', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0004-pages', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0005-oauth', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0006-sealed-secrets', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0007-dashboard-views', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0008-subscriber-deliveries', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0009-private-locations', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0010-check-leases', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0011-compact-latencies', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0012-mcp-monitors', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0013-alert-routing', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0014-heartbeats', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0015-channel-deliveries', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0016-page-branding', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0017-email-settings', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0018-monitor-badges', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0019-repeating-maintenance', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0020-monitor-incidents', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0021-monitor-groups', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ('0022-team-sign-in', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
insert into private_locations (name, status, metadata, created_at) values ('local', 'active', '{"kind":"embedded"}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
with recursive shards (shard) as (select 0 union all select shard + 1 from shards where shard < 64)
insert into check_leases (shard) select shard from shards;
`;
