import { type Kysely, sql } from 'kysely';
import type { Database, MonitorRow } from '../../db/schema.ts';
import type { Frequency } from '../plans.ts';
import type { Sealer } from '../sealing.ts';
import { joinSecrets, openSecrets, splitSecrets } from './monitor-secrets.ts';
import type { GrpcConfig, HttpConfig, MonitorType, TcpConfig } from './monitor-rules.ts';

/** What every stored monitor carries besides its configuration. */
interface Stored {
  id: string;
  workspaceId: string;
  createdAt: string;
  updatedAt: string;
}

export type TcpMonitor = Stored & { type: 'tcp' } & TcpConfig;
export type GrpcMonitor = Stored & { type: 'grpc' } & GrpcConfig;
export type HttpMonitor = Stored & { type: 'http' } & HttpConfig;
export type Monitor = TcpMonitor | GrpcMonitor | HttpMonitor;
export type MonitorConfig = TcpConfig | GrpcConfig | HttpConfig;

/**
 * A stored monitor. With the sealer, credential-like header and metadata values are opened (what
 * the probes send); without it they stay `[redacted]` (enough for names and targets).
 */
export function toMonitor(row: MonitorRow, sealer?: Sealer): Monitor {
  const monitor = {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    type: row.type,
    name: row.name,
    description: row.description,
    active: row.active === 1,
    periodicity: row.periodicity as Frequency,
    regions: JSON.parse(row.regions),
    timeout: row.timeout_ms,
    degraded: row.degraded_ms,
    retry: row.retry,
    openTelemetry: row.open_telemetry === null ? null : JSON.parse(row.open_telemetry),
    tags: JSON.parse(row.tags),
    ...JSON.parse(row.settings),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } as Monitor;
  return sealer && row.secrets !== null ? joinSecrets(monitor, openSecrets(sealer, row.secrets)) : monitor;
}

/** The configuration of a monitor: what a create or an update may set. */
export function configOf(monitor: Monitor): MonitorConfig {
  const { id: _id, workspaceId: _workspaceId, type: _type, createdAt: _createdAt, updatedAt: _updatedAt, ...config } = monitor;
  return config;
}

/** The columns of a configuration: credential-like values sealed, `[redacted]` in their place. */
function columns(config: MonitorConfig, sealer: Sealer) {
  const { clear, secrets } = splitSecrets(config);
  const { name, description, active, periodicity, regions, timeout, degraded, retry, openTelemetry, tags, ...settings } = clear;
  return {
    secrets: secrets && sealer.seal(secrets),
    name,
    description,
    active: active ? 1 : 0,
    periodicity,
    regions: JSON.stringify(regions),
    timeout_ms: timeout,
    degraded_ms: degraded,
    retry,
    open_telemetry: openTelemetry && JSON.stringify(openTelemetry),
    tags: JSON.stringify(tags),
    settings: JSON.stringify(settings),
  };
}

export async function findMonitor(db: Kysely<Database>, workspaceId: number, id: number, sealer?: Sealer): Promise<Monitor | undefined> {
  const row = await db.selectFrom('monitors').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return row && toMonitor(row, sealer);
}

/**
 * The ids and revisions of one page of a workspace's monitors, newest first, each row with the
 * workspace's count of monitors (none past the last page).
 */
export async function listMonitorRevisions(db: Kysely<Database>, workspaceId: number, limit: number, offset: number) {
  return db
    .selectFrom('monitors')
    .select(['id', 'revision', sql<number>`count(*) over ()`.as('total')])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Every monitor's id and revision, in every workspace: what the scheduler compares against. */
export async function allMonitorRevisions(db: Kysely<Database>) {
  return db.selectFrom('monitors').select(['id', 'revision']).execute();
}

export async function countMonitors(db: Kysely<Database>, workspaceId: number): Promise<number> {
  const { total } = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return total;
}

export async function findMonitorRows(db: Kysely<Database>, ids: number[]): Promise<MonitorRow[]> {
  return db.selectFrom('monitors').selectAll().where('id', 'in', ids).execute();
}

export async function insertMonitor(db: Kysely<Database>, sealer: Sealer, workspaceId: number, type: MonitorType, config: MonitorConfig): Promise<Monitor> {
  const now = new Date().toISOString();
  const row = await db
    .insertInto('monitors')
    .values({ workspace_id: workspaceId, type, ...columns(config, sealer), revision: 1, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toMonitor(row, sealer);
}

export async function updateMonitor(db: Kysely<Database>, sealer: Sealer, id: number, config: MonitorConfig): Promise<Monitor> {
  const row = await db
    .updateTable('monitors')
    .set({ ...columns(config, sealer), revision: sql`revision + 1`, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toMonitor(row, sealer);
}

export async function deleteMonitor(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('monitors').where('id', '=', id).execute();
}

/** Those of these ids that name monitors of the workspace. */
export async function monitorIdsIn(db: Kysely<Database>, workspaceId: number, ids: number[]): Promise<Set<number>> {
  const rows = await db.selectFrom('monitors').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Those of these monitors that are active (not paused). */
export async function activeMonitorIds(db: Kysely<Database>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('monitors').select('id').where('id', 'in', ids).where('active', '=', 1).execute();
  return new Set(rows.map((row) => row.id));
}
