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
}

export interface MonitorTable {
  id: Generated<number>;
  workspace_id: number;
  type: 'tcp' | 'grpc' | 'http';
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
  /** 1 on create, one more on every update: a row with the same id and revision is unchanged. */
  revision: number;
  created_at: ColumnType<Timestamp, Timestamp, never>;
  updated_at: Timestamp;
}

export interface Database {
  workspaces: WorkspaceTable;
  users: UserTable;
  memberships: MembershipTable;
  api_keys: ApiKeyTable;
  audit_log: AuditLogTable;
  dashboard_tokens: DashboardTokenTable;
  monitors: MonitorTable;
}

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type UserRow = Selectable<UserTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKey = Insertable<ApiKeyTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type MonitorRow = Selectable<MonitorTable>;
