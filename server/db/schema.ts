import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Times are stored as RFC 3339 UTC strings (`new Date().toISOString()`): sortable and readable. */
type Timestamp = string;

export interface WorkspaceTable {
  id: Generated<number>;
  name: string;
  slug: string;
  plan: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export interface UserTable {
  id: Generated<number>;
  name: string;
  email: string | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export interface MembershipTable {
  workspace_id: number;
  user_id: number;
  role: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export interface ApiKeyTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  /** The first characters of the secret: not secret, shown to tell keys apart and used for lookup. */
  prefix: string;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  secret_hash: string;
  /** JSON array; NULL for keys created before scopes existed, which act as write. */
  scopes: string | null;
  created_by_user_id: number | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  workspace_id: number;
  entity_type: string;
  entity_id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_user_id: number | null;
  /** The surface the change came through (see Surface); NULL for entries written before it was recorded. */
  actor_surface: string | null;
  /** JSON snapshots; NULL where the entity did not exist before (create) or after (delete). */
  before: string | null;
  after: string | null;
  changed_fields: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

/** One-time sign-in links and dashboard sessions: both are bearer secrets, stored only as hashes. */
export interface DashboardTokenTable {
  token_hash: string;
  kind: 'signin' | 'session';
  user_id: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  expires_at: Timestamp;
  /** A session's id as its person lists and ends it (not a secret: it finds nothing alone); null for a sign-in link (migration 0022). */
  public_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** How a session was opened: link, invitation, passkey or oidc. */
  method: ColumnType<string | null, string | null | undefined, string | null>;
  /** The browser that opened the session, as its User-Agent said (cut to 200 characters). */
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A one-time link to join a workspace with a role (migration 0022): its secret stored as a hash. */
export interface InvitationTable {
  id: Generated<number>;
  workspace_id: number;
  role: 'owner' | 'admin' | 'member';
  token_hash: string;
  /** Who it is for, in the inviter's words ("Ada, on call"): shown in the list, never needed. */
  note: string;
  created_by: number | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
  accepted_by: number | null;
  revoked_at: Timestamp | null;
}

/** A person's WebAuthn credential (migration 0022): its id and public key, base64url. */
export interface PasskeyTable {
  id: string;
  user_id: number;
  public_key: string;
  /** The authenticator's signature counter, as last seen (0 for authenticators that keep none). */
  counter: number;
  /** JSON array of the transports the authenticator named (usb, internal, hybrid...). */
  transports: string;
  name: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  last_used_at: Timestamp | null;
}

/** A person's account at an OpenID Connect provider (migration 0022). */
export interface UserIdentityTable {
  issuer: string;
  subject: string;
  user_id: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export interface MonitorTable {
  id: Generated<number>;
  workspace_id: number;
  type: 'tcp' | 'grpc' | 'http' | 'mcp' | 'certificate' | 'websocket' | 'ping' | 'dns' | 'heartbeat';
  name: string;
  description: string;
  active: number;
  periodicity: string;
  /** JSON array of region ids. */
  regions: string;
  timeout_ms: number;
  degraded_ms: number | null;
  retry: number;
  /** JSON `{endpoint, headers}`; NULL when metrics are not exported. */
  open_telemetry: string | null;
  /** JSON array. */
  tags: string;
  /** JSON object with the fields of the monitor's type (target, TLS, request, assertions). */
  settings: string;
  /**
   * Sealed JSON of the values of credential-like request headers, gRPC metadata and OTLP headers
   * (`settings` and `open_telemetry` hold `[redacted]` in their place); NULL when there are none.
   */
  secrets: string | null;
  /** 1 on create, one more on every update: a row with the same id and revision is unchanged. */
  revision: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
  /** How often its channels are reminded while it stays down or degraded; NULL: never. */
  remind_every_ms: ColumnType<number | null, number | null | undefined, number | null>;
  /** The monitor's group on the overview; '' for none (migration 0021). */
  group_name: ColumnType<string, string | undefined, string>;
}

/** The tools of an MCP monitor's server as accepted: pinned by the first successful check, or by a person accepting a drift. */
export interface McpToolPinTable {
  monitor_id: number;
  /** JSON [{name, fingerprint, text}], by name. */
  tools: string;
  pinned_at: Timestamp;
  /** `first check`, or `user <id>`. */
  pinned_by: string;
}

/** A check found other tools than the pinned ones: open (accepted_at NULL) until accepted or reverted. */
export interface McpToolDriftTable {
  id: Generated<number>;
  monitor_id: number;
  detected_at: Timestamp;
  updated_at: Timestamp;
  /** JSON [{name, fingerprint, text}] of the tools found, by name. */
  tools: string;
  accepted_at: Timestamp | null;
  /** `user <id>`, or `reverted` when a check found the pinned tools again. */
  accepted_by: string | null;
}

/** A runner. The embedded runner (`local`) is the first row. */
export interface PrivateLocationTable {
  id: Generated<number>;
  name: string;
  status: 'active' | 'error';
  /** JSON object of string values. */
  metadata: string;
  /** JSON array of region ids the runner serves; NULL serves every region. */
  regions: string | null;
  /** SHA-256 of a remote runner's agent token; never returned. */
  token_hash: string | null;
  last_seen_at: Timestamp | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  /** The workspace of a remote runner; NULL for the embedded runner, which serves every workspace. */
  workspace_id: number | null;
  /** The first characters of the agent token, to find its row. */
  token_prefix: string | null;
  /** What the runner said of itself when it last connected. */
  runner_version: string | null;
  runner_hostname: string | null;
  /** The runner instance (its buffer) whose results were last stored, and its highest sequence stored. */
  runner_instance: string | null;
  last_sequence: Generated<number>;
  /** Results the runner dropped from its full buffer: its running total, as last reported. */
  dropped_results: Generated<number>;
}

/** The private locations a monitor is checked from, besides its regions. */
export interface MonitorPrivateLocationTable {
  monitor_id: number;
  location_id: number;
}

/** Check data uses epoch milliseconds: the rows are many, and integers are small and fast. */
type EpochMs = number;

export interface CheckResultTable {
  id: Generated<number>;
  monitor_id: number;
  runner: string;
  /** JSON array of the regions the check stands for. */
  regions: string;
  started_at: EpochMs;
  result: 'up' | 'degraded' | 'down';
  latency_ms: number;
  dns_ms: number | null;
  connect_ms: number | null;
  tls_ms: number | null;
  ttfb_ms: number | null;
  transfer_ms: number | null;
  attempts: number;
  message: string;
  grpc_status: string | null;
  status_code: number | null;
  /** HTTP checks: JSON {url, responseHeaders, assertionResults}. */
  details: string | null;
}

export interface CheckRollupTable {
  monitor_id: number;
  /** Start of the hour, epoch ms. */
  hour: EpochMs;
  success_count: number;
  degraded_count: number;
  error_count: number;
  /** LatencyHistogram of the checks that were up or degraded. */
  latency: Buffer;
  last_ping_at: EpochMs;
}

export interface CheckStateTable {
  monitor_id: number;
  runner: string;
  result: 'up' | 'degraded' | 'down';
  regions: string;
  checked_at: EpochMs;
  /** NULL for a check stored before latencies were kept here whose raw result was already gone. */
  latency_ms: number | null;
}

/** A monitor's overall state: the worst of its runners' latest checks, and since when. */
export interface MonitorStateTable {
  monitor_id: number;
  state: 'up' | 'degraded' | 'down';
  /** When the check that brought this state started (the first check counts). */
  changed_at: EpochMs;
}

export interface CheckGapTable {
  id: Generated<number>;
  runner: string;
  started_at: EpochMs;
  ended_at: EpochMs;
}

/** A shard of the monitors (`id % 64`) and the service process that checks them until `expires_at`. */
export interface CheckLeaseTable {
  shard: number;
  /** The holding process's random id; null: free. */
  holder: string | null;
  expires_at: EpochMs;
}

/** A process that checks monitors, known to live until `expires_at`. */
export interface CheckLeaseHolderTable {
  holder: string;
  expires_at: EpochMs;
}

export interface StatusPageTable {
  id: Generated<number>;
  workspace_id: number;
  slug: string;
  title: string;
  description: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
  /** `#rrggbb`; null: the page's own colours. */
  accent_color: ColumnType<string | null, string | null | undefined, string | null>;
  /** The link back to the owner's site (http or https). */
  website_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** A PNG, JPEG, WebP or GIF file of at most PAGE_LIMITS.logoBytes; its type is read from its bytes. */
  logo: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  /** A host name, lower-case, that serves the page at `/`; unique. */
  custom_domain: ColumnType<string | null, string | null | undefined, string | null>;
  /** The slug before the last change of slug: it forwards to the page and stays reserved for it; unique. */
  former_slug: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PageComponentTable {
  id: Generated<number>;
  page_id: number;
  name: string;
  description: string;
  /** The monitor that drives the component (type `monitor`); NULL for a static one. */
  monitor_id: number | null;
  group_name: string | null;
  position: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
}

export type ReportStatus = 'investigating' | 'identified' | 'monitoring' | 'resolved';

export interface StatusReportTable {
  id: Generated<number>;
  workspace_id: number;
  page_id: number;
  title: string;
  status: ReportStatus;
  resolved_at: Timestamp | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
}

export interface StatusReportComponentTable {
  report_id: number;
  component_id: number;
}

export interface StatusReportUpdateTable {
  id: Generated<number>;
  report_id: number;
  status: ReportStatus;
  message: string;
  notify: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export interface MaintenanceTable {
  id: Generated<number>;
  workspace_id: number;
  page_id: number;
  title: string;
  message: string;
  starts_at: Timestamp;
  ends_at: Timestamp;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
  /** A repeating window's rule as JSON (domain/maintenance/occurrences.ts); null: a one-off window (migration 0020). */
  repeat_rule: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MaintenanceComponentTable {
  maintenance_id: number;
  component_id: number;
}

export interface PageSubscriberTable {
  id: Generated<number>;
  page_id: number;
  kind: 'email' | 'webhook';
  /** The email address; for a webhook, a keyed fingerprint of its URL (unique per page). */
  address: string;
  /** Sealed URL of a webhook subscriber. */
  sealed_address: string | null;
  status: 'pending' | 'active';
  /** Sealed signing secret of a webhook subscriber. */
  secret: string | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  confirmed_at: Timestamp | null;
  confirmation_sent_at: Timestamp | null;
  /** When the delivery of the latest page event to the subscriber ended; null before the first. */
  last_delivery_at: Generated<Timestamp | null>;
  /** Why that delivery failed; null when it was delivered. */
  last_delivery_error: Generated<string | null>;
}

export type ChannelKind =
  | 'webhook'
  | 'slack'
  | 'discord'
  | 'email'
  | 'ntfy'
  | 'desktop'
  | 'telegram'
  | 'teams'
  | 'google_chat'
  | 'mattermost'
  | 'rocketchat'
  | 'matrix'
  | 'zulip'
  | 'pagerduty'
  | 'opsgenie'
  | 'pushover'
  | 'gotify'
  | 'home_assistant'
  | 'twilio'
  | 'custom_webhook';

export interface NotificationChannelTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  kind: ChannelKind;
  /** JSON of the settings that are not secret. */
  settings: string;
  /** Sealed JSON of the credentials; never returned. */
  credentials: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
  /** JSON array of the events the channel receives (domain/notifications/alert-events.ts); NULL: every event. */
  events: ColumnType<string | null, string | null | undefined, string | null>;
  /** Deliveries that failed in a row, since the last that went through. */
  failures: ColumnType<number, number | undefined, number>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  last_failed_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  last_sent_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  /** Until when a channel that keeps failing is not tried; NULL: it is tried. */
  backoff_until: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  /** 1: receives the alerts of every monitor of its workspace, those created later included. */
  all_monitors: ColumnType<number, number | undefined, number>;
  /** 1: each monitor created from now on is wired to it. */
  default_for_new: ColumnType<number, number | undefined, number>;
}

/** One delivery to a channel (the latest of each channel are kept). */
export interface ChannelDeliveryTable {
  id: Generated<number>;
  channel_id: number;
  at: Timestamp;
  /** `monitor.down`, `monitor.recovered`, …, or `test`: the webhook's event name. */
  event: string;
  /** NULL for a test send. */
  monitor_id: string | null;
  monitor_name: string;
  result: 'delivered' | 'failed' | 'retrying';
  status_code: number | null;
  /** The start of the receiver's answer, sanitized: one line, bounded, no credential of the channel. */
  response: string | null;
  error: string | null;
  attempts: number;
}

export interface ChannelMonitorTable {
  channel_id: number;
  monitor_id: number;
}

export interface AlertTable {
  id: Generated<number>;
  monitor_id: number;
  kind: 'down' | 'recovered' | 'degraded' | 'tool_drift';
  message: string;
  occurred_at: Timestamp;
  suppressed_by: number | null;
  /** JSON array of {channelId, ok, error}. */
  deliveries: string;
}

export type OAuthScope = 'read' | 'write';

export interface OAuthClientTable {
  /** `sdc_…` for a registered client; the document's URL for a client known by its metadata document. */
  id: string;
  source: 'registered' | 'metadata';
  name: string;
  /** JSON array. */
  redirect_uris: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  /** First approval; a registered client never approved is deleted after a day. */
  granted_at: Timestamp | null;
}

export interface OAuthGrantTable {
  id: Generated<number>;
  client_id: string;
  user_id: number;
  workspace_id: number;
  scope: OAuthScope;
  /** The resource its tokens are for: `{issuer}/mcp`, `{issuer}/rpc` or `{issuer}` (both). */
  resource: string;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export type OAuthRequestStatus = 'pending' | 'approved' | 'denied' | 'completed';

export interface OAuthRequestTable {
  id: string;
  match_code: string;
  client_id: string;
  client_source: 'registered' | 'metadata';
  client_name: string;
  /** JSON array: the client's redirect URIs as they were when the request was made. */
  client_redirect_uris: string;
  redirect_uri: string;
  code_challenge: string;
  /** What the client asked for. */
  scope: OAuthScope;
  resource: string;
  state: string | null;
  /** SHA-256 of the one-time ticket that binds a browser; NULL once redeemed. */
  ticket_hash: string | null;
  /** SHA-256 of the secret in the cookie of the browser that made the request. */
  browser_hash: string | null;
  status: OAuthRequestStatus;
  grant_id: number | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  expires_at: Timestamp;
}

export interface OAuthTokenTable {
  token_hash: string;
  kind: 'code' | 'access' | 'refresh';
  grant_id: number;
  /** Codes: what the token request must repeat. */
  redirect_uri: string | null;
  code_challenge: string | null;
  scope: OAuthScope;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  expires_at: Timestamp;
  /** A used code or a rotated refresh token: presenting it again is reuse. */
  used_at: Timestamp | null;
}

/**
 * A heartbeat monitor's ping token (its SHA-256, hex: the token is never stored) and its state as
 * its pings left it. Times are epoch milliseconds on the check engine's clock.
 */
export interface HeartbeatTable {
  monitor_id: number;
  token_hash: string;
  /** When the token was made: on create, or the last rotation. */
  token_issued_at: Timestamp;
  last_ping_at: number | null;
  last_ping_kind: 'success' | 'start' | 'fail' | null;
  last_exit_status: number | null;
  last_success_at: number | null;
  /** A start not yet ended by a success or a failure. */
  started_at: number | null;
  /** A failure that stands until the next success, and its message (`failed with exit status 3: ...`). */
  failed_at: number | null;
  failure: string | null;
  /** The last run time measured, from a start to its end. */
  last_run_ms: number | null;
}

/** The latest pings of a heartbeat monitor (the service keeps the newest of each). */
export interface HeartbeatPingTable {
  id: Generated<number>;
  monitor_id: number;
  kind: 'success' | 'start' | 'fail';
  exit_status: number | null;
  /** What the job posted, as UTF-8 text; empty when nothing. */
  body: string;
  received_at: number;
  run_time_ms: number | null;
  method: string;
  address: string;
  user_agent: string;
}

/** A monitor's public status badges (0018-monitor-badges.ts): off unless turned on. */
export interface MonitorBadgeTable {
  monitor_id: number;
  /** The unguessable part of the badges' address. */
  badge_id: string;
  enabled: number;
  updated_at: string;
}

/** A span in which a monitor was down (0020-monitor-incidents.ts); open while `ended_at` is null. */
export interface MonitorIncidentTable {
  id: Generated<number>;
  monitor_id: number;
  started_at: EpochMs;
  ended_at: EpochMs | null;
  /** Counted when it closes; null while open. */
  failed_checks: number | null;
  first_message: string;
}

export interface Database {
  workspaces: WorkspaceTable;
  users: UserTable;
  memberships: MembershipTable;
  invitations: InvitationTable;
  passkeys: PasskeyTable;
  user_identities: UserIdentityTable;
  api_keys: ApiKeyTable;
  audit_log: AuditLogTable;
  dashboard_tokens: DashboardTokenTable;
  monitors: MonitorTable;
  mcp_tool_pins: McpToolPinTable;
  mcp_tool_drifts: McpToolDriftTable;
  heartbeats: HeartbeatTable;
  heartbeat_pings: HeartbeatPingTable;
  monitor_badges: MonitorBadgeTable;
  monitor_incidents: MonitorIncidentTable;
  private_locations: PrivateLocationTable;
  monitor_private_locations: MonitorPrivateLocationTable;
  check_results: CheckResultTable;
  check_rollups: CheckRollupTable;
  check_state: CheckStateTable;
  monitor_state: MonitorStateTable;
  check_gaps: CheckGapTable;
  check_leases: CheckLeaseTable;
  check_lease_holders: CheckLeaseHolderTable;
  status_pages: StatusPageTable;
  page_components: PageComponentTable;
  status_reports: StatusReportTable;
  status_report_components: StatusReportComponentTable;
  status_report_updates: StatusReportUpdateTable;
  maintenances: MaintenanceTable;
  maintenance_components: MaintenanceComponentTable;
  page_subscribers: PageSubscriberTable;
  /** Sealing steps left by a migration for the next start (see server/domain/stored-secrets.ts). */
  pending_sealing: { step: string };
  notification_channels: NotificationChannelTable;
  channel_monitors: ChannelMonitorTable;
  channel_deliveries: ChannelDeliveryTable;
  alerts: AlertTable;
  oauth_clients: OAuthClientTable;
  oauth_grants: OAuthGrantTable;
  oauth_requests: OAuthRequestTable;
  oauth_tokens: OAuthTokenTable;
  email_settings: EmailSettingsTable;
}

/** The service's email settings: one row (id 1), absent until someone sets them (migration 0017). */
export interface EmailSettingsTable {
  id: number;
  host: string;
  port: number;
  security: 'none' | 'starttls' | 'tls';
  username: string | null;
  /** Sealed (domain/sealing.ts); NULL without a password. */
  password: string | null;
  from_address: string;
  updated_at: Timestamp;
}

export type EmailSettingsRow = Selectable<EmailSettingsTable>;
export type WorkspaceRow = Selectable<WorkspaceTable>;
export type UserRow = Selectable<UserTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKey = Insertable<ApiKeyTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type MonitorRow = Selectable<MonitorTable>;
export type HeartbeatRow = Selectable<HeartbeatTable>;
export type HeartbeatPingRow = Selectable<HeartbeatPingTable>;
export type CheckResultRow = Selectable<CheckResultTable>;
export type PrivateLocationRow = Selectable<PrivateLocationTable>;
export type OAuthClientRow = Selectable<OAuthClientTable>;
export type OAuthGrantRow = Selectable<OAuthGrantTable>;
export type OAuthRequestRow = Selectable<OAuthRequestTable>;
export type OAuthTokenRow = Selectable<OAuthTokenTable>;
