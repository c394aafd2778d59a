import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database, MonitorRow } from '../../db/schema.ts';
import { keptByTables } from '../../db/table-stamps.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { wireToDefaultChannels } from '../notifications/channel-repository.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { createDestinationPolicy, type DestinationPolicy } from '../destinations.ts';
import { type Frequency, type Plan, planOfWorkspace } from '../plans.ts';
import { type Sealer, sealerOf } from '../sealing.ts';
import { defaultTcpRegions } from '../regions.ts';
import { builtOnFirstUse, invalid, parseId, parseInput } from '../validation.ts';
import { type MonitorChecks, summaryWindows } from './check-results.ts';
import {
  countMonitors,
  deleteMonitor,
  findMonitorRow,
  findMonitorRows,
  insertMonitor,
  listMonitorRevisions,
  type MonitorColumns,
  monitorLocationIds,
  monitorLocationNames,
  updateMonitor,
  workspaceLocationIds,
} from './monitor-repository.ts';
import { activeIncidentCounts, incidentTables } from './incidents.ts';
import { type ConfigOf, configSchemas, type MonitorType } from './monitor-rules.ts';
import { specOf, targetKindOf } from './monitor-types.ts';
import { findCommand } from './types/mcp.ts';
import { issuePingToken } from './heartbeat-tokens.ts';
import { joinSecrets, keepRedacted, openSecrets, redactSecrets, secretsFingerprint, splitSecrets } from './monitor-secrets.ts';

const MAX_LIST_LIMIT = 100;
const DEFAULT_LIST_LIMIT = 50;
/** Monitors kept decoded between lists; beyond this the cache starts over. */
const KNOWN_MONITORS_LIMIT = 10_000;
/** Pages, and incident counts, kept between changes of their tables; beyond this they start over. */
const KNOWN_ANSWERS_LIMIT = 1_000;

const listInput = builtOnFirstUse(() =>
  z.strictObject({
    limit: z.number().int().min(1, `must be 1 to ${MAX_LIST_LIMIT}`).max(MAX_LIST_LIMIT, `must be 1 to ${MAX_LIST_LIMIT}`).default(DEFAULT_LIST_LIMIT),
    offset: z.number().int().min(0, 'must not be negative').default(0),
  }),
);

const summaryWindow = builtOnFirstUse(() => z.enum(summaryWindows, { error: `must be one of ${summaryWindows.join(', ')}` }).default('1d'));
const windowInput = builtOnFirstUse(() => z.strictObject({ window: summaryWindow() }));
const MAX_RESPONSE_LOGS = 100;
const responseLogInput = builtOnFirstUse(() =>
  z.strictObject({
    window: summaryWindow(),
    limit: z.number().int().min(1, `must be 1 to ${MAX_RESPONSE_LOGS}`).max(MAX_RESPONSE_LOGS, `must be 1 to ${MAX_RESPONSE_LOGS}`).default(MAX_RESPONSE_LOGS),
    offset: z.number().int().min(0, 'must not be negative').default(0),
  }),
);

/** What every stored monitor carries besides its configuration. */
interface Stored {
  id: string;
  workspaceId: string;
  createdAt: string;
  updatedAt: string;
}

/** A stored monitor of one type. */
export type MonitorOf<K extends MonitorType> = Stored & { type: K } & ConfigOf<K>;
/** A stored monitor of any type (monitor-types.ts). */
export type Monitor = { [K in MonitorType]: MonitorOf<K> }[MonitorType];
export type MonitorConfig = { [K in MonitorType]: ConfigOf<K> }[MonitorType];
export type TcpMonitor = MonitorOf<'tcp'>;
export type GrpcMonitor = MonitorOf<'grpc'>;
export type HttpMonitor = MonitorOf<'http'>;
/** One page of a workspace's monitors, and how many it has in all. */
export type MonitorPage = Readonly<{ monitors: readonly Monitor[]; total: number }>;

/**
 * A stored monitor, with the ids of its private locations (monitorLocationIds). With the sealer,
 * credential-like header and metadata values are opened (what the probes send); without it they
 * stay `[redacted]` (enough for names and targets).
 */
export function toMonitor(row: MonitorRow, sealer?: Sealer, privateLocations: readonly number[] = []): Monitor {
  const monitor = {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    type: row.type,
    name: row.name,
    description: row.description,
    active: row.active === 1,
    periodicity: row.periodicity as Frequency,
    regions: JSON.parse(row.regions),
    privateLocations: privateLocations.map(String),
    timeout: row.timeout_ms,
    degraded: row.degraded_ms,
    remindEvery: row.remind_every_ms,
    retry: row.retry,
    openTelemetry: row.open_telemetry === null ? null : JSON.parse(row.open_telemetry),
    tags: JSON.parse(row.tags),
    group: row.group_name,
    ...JSON.parse(row.settings),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } as Monitor;
  return sealer && row.secrets !== null ? joinSecrets(monitor, openSecrets(sealer, row.secrets)) : monitor;
}

/** Fields of a monitor that say how it is named, described, alerted or exported, and not what or how it checks. */
const NOT_CHECKED = new Set(['name', 'description', 'tags', 'group', 'remindEvery', 'openTelemetry', 'createdAt', 'updatedAt']);

/**
 * Whether a monitor saved as `after` (`before`: as it was, null when new) is checked at once: a
 * new or resumed monitor, or one whose target, type settings, interval, timeout, retries,
 * regions or locations changed, so a monitor checked every hour is not pending for up to an hour.
 * A paused monitor checks nothing, and a heartbeat monitor has no check to run: it is told.
 */
export function checksAtOnce(before: Monitor | null, after: Monitor): boolean {
  if (!after.active || after.type === 'heartbeat') return false;
  if (before === null || !before.active) return true;
  const was: Record<string, unknown> = { ...before };
  const is: Record<string, unknown> = { ...after };
  return [...new Set([...Object.keys(was), ...Object.keys(is)])].some((field) => !NOT_CHECKED.has(field) && !isDeepStrictEqual(was[field], is[field]));
}

/** The configuration of a monitor: what a create or an update may set. */
function configOf(monitor: Monitor): MonitorConfig {
  const { id: _id, workspaceId: _workspaceId, type: _type, createdAt: _createdAt, updatedAt: _updatedAt, ...config } = monitor;
  return config;
}

export async function findMonitor(db: Kysely<Database>, workspaceId: number, id: number, sealer?: Sealer): Promise<Monitor | undefined> {
  const row = await findMonitorRow(db, workspaceId, id);
  return row && (await monitorsOf(db, [row], sealer))[0];
}

/** Stored monitors of these rows, their private locations read in one query. */
export async function monitorsOf(db: Kysely<Database>, rows: readonly MonitorRow[], sealer?: Sealer): Promise<Monitor[]> {
  const links = await monitorLocationIds(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toMonitor(row, sealer, links.get(row.id)));
}

/**
 * The columns a configuration is stored in: its credential-like values sealed (the `secrets`
 * column), `[redacted]` in their place. Sealing is the service's rule; the repository stores.
 */
function columnsOf(config: MonitorConfig, sealer: Sealer): MonitorColumns {
  const { clear, secrets } = splitSecrets(config);
  const {
    name,
    description,
    active,
    periodicity,
    regions,
    privateLocations: _privateLocations,
    timeout,
    degraded,
    remindEvery,
    retry,
    openTelemetry,
    tags,
    group,
    ...settings
  } = clear;
  return {
    secrets: secrets && sealer.seal(secrets),
    name,
    description,
    active: active ? 1 : 0,
    periodicity,
    regions: JSON.stringify(regions),
    timeout_ms: timeout,
    degraded_ms: degraded,
    remind_every_ms: remindEvery,
    retry,
    open_telemetry: openTelemetry && JSON.stringify(openTelemetry),
    tags: JSON.stringify(tags),
    group_name: group,
    settings: JSON.stringify(settings),
  };
}

/** A configuration's private locations as a stored monitor lists them: ordered by id. */
const locationOrder = (config: MonitorConfig) => config.privateLocations.map(Number).sort((a, b) => a - b);

/**
 * The monitor as its status lists it: a private location stands as its own region, named by the
 * location, after the monitor's regions. Summaries and response logs need no such monitor: they
 * read every result stored, and each result of a location names it as its region.
 */
async function withLocationRegions(db: Kysely<Database>, monitor: Monitor): Promise<Monitor> {
  if (monitor.privateLocations.length === 0) return monitor;
  return { ...monitor, regions: [...monitor.regions, ...(await monitorLocationNames(db, Number(monitor.id)))] };
}

/**
 * Refuses private locations that are not the workspace's: each is named by its place in the
 * list, as the other list fields are.
 */
async function checkLocations(db: Kysely<Database>, workspaceId: number, config: MonitorConfig): Promise<void> {
  const ids = config.privateLocations.map((id) => (/^\d{1,15}$/.test(id) ? Number(id) : 0));
  const found = await workspaceLocationIds(
    db,
    workspaceId,
    ids.filter((id) => id > 0),
  );
  const violations = config.privateLocations.flatMap((id, at) =>
    found.has(ids[at]!) ? [] : [{ field: `privateLocations.${at}`, rule: `no private location with id ${JSON.stringify(id)} in this workspace` }],
  );
  if (violations.length > 0) throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}

/** Monitor ids are positive integers; anything else cannot name a monitor. */
const monitorId = (id: string) => parseId('id', 'monitor', id);

/**
 * What the audit log keeps of a monitor: credential-like values `[redacted]`, and a keyed
 * fingerprint of them that changes when they do.
 */
function snapshot(sealer: Sealer, monitor: Monitor): Record<string, unknown> {
  const { updatedAt: _updatedAt, ...rest } = redactSecrets(monitor);
  const fingerprint = secretsFingerprint(sealer, monitor);
  return fingerprint === null ? rest : { ...rest, secretsFingerprint: fingerprint };
}

/**
 * Monitors. Every answer shows credential-like header and metadata values `[redacted]` (see
 * monitor-secrets.ts); only the check engine gets the opened values. A target or OTLP endpoint
 * the destination policy refuses as written is a VALIDATION error naming the field.
 */
export function createMonitorService(
  db: Kysely<Database>,
  checks: MonitorChecks,
  sealer: Sealer = sealerOf(db),
  destinations: DestinationPolicy = createDestinationPolicy(),
) {
  /**
   * Decoded monitors by id, with the revision they were read at. Lists are the most frequent
   * call and monitors rarely change, so a list reads ids and revisions and decodes only rows it
   * has not seen at that revision. Every writer bumps the revision, other processes included;
   * deleting a private location does not, so the page's links are read too, and a monitor whose
   * links changed is decoded again. The cached monitors are frozen and redacted: callers share them.
   */
  const known = new Map<number, { revision: number; links: string; monitor: Monitor }>();
  /**
   * Whole pages by workspace, limit and offset, kept until the monitors table changes: a page
   * depends on nothing but the table's rows and those three, and the caller's access is checked
   * before. Pages are frozen: callers share them, and may keep what they derive from one by its
   * identity.
   */
  const pages = keptByTables<MonitorPage>(db, ['monitors', 'monitor_private_locations'], KNOWN_ANSWERS_LIMIT);
  /**
   * Open incident counts by workspace and monitor ids, kept until a table they are read from
   * changes (see incidentTables): a monitor going down or a report resolved shows on the next call.
   */
  const incidents = keptByTables<ReadonlyMap<string, number>>(db, incidentTables, KNOWN_ANSWERS_LIMIT);

  async function readPage(workspaceId: number, limit: number, offset: number): Promise<MonitorPage> {
    const page = await listMonitorRevisions(db, workspaceId, limit, offset);
    const links = await monitorLocationIds(
      db,
      page.map((p) => p.id),
    );
    const linksOf = (id: number) => (links.get(id) ?? []).join(',');
    const stale = page.filter((p) => known.get(p.id)?.revision !== p.revision || known.get(p.id)?.links !== linksOf(p.id)).map((p) => p.id);
    if (stale.length > 0) {
      if (known.size + stale.length > KNOWN_MONITORS_LIMIT) known.clear();
      for (const row of await findMonitorRows(db, stale)) {
        known.set(row.id, {
          revision: row.revision,
          links: linksOf(row.id),
          monitor: Object.freeze(redactSecrets(toMonitor(row, undefined, links.get(row.id)))),
        });
      }
    }
    return Object.freeze({
      // A monitor deleted between the two reads drops out of the page.
      monitors: Object.freeze(page.flatMap((p) => known.get(p.id)?.monitor ?? [])),
      total: page[0]?.total ?? (await countMonitors(db, workspaceId)),
    });
  }

  /**
   * Validates a whole configuration of `type` and fills the defaults that depend on the plan.
   * The plan's frequencies are checked only when the periodicity is new, so a workspace moved to
   * a smaller plan can still edit its other monitors' fields.
   */
  function completeConfig(type: MonitorType, input: unknown, plan: Plan, previous?: Monitor): MonitorConfig {
    const config = parseInput(configSchemas()[type], input);
    if (config.periodicity !== previous?.periodicity && !plan.frequencies.includes(config.periodicity)) {
      const rule = `${config.periodicity} is not available on the ${plan.name} plan, which allows ${plan.frequencies.join(', ')}`;
      throw new AppError('VALIDATION', `periodicity: ${rule}`, [{ field: 'periodicity', rule }]);
    }
    // A monitor with private locations runs from them alone unless regions are named.
    const complete: MonitorConfig = { ...config, regions: config.regions ?? (config.privateLocations.length > 0 ? [] : defaultTcpRegions(plan)) };
    refuseDestinations(type, complete);
    return complete;
  }

  /**
   * What the destination policy refuses as written (a literal metadata or link-local address, its
   * name), before anything is connected; the rest is judged when connecting. The service's own
   * ports only where this service checks the monitor (it has regions): a private location's
   * runner runs on another machine.
   */
  function refuseDestinations(type: MonitorType, config: MonitorConfig): void {
    const here = config.regions.length > 0;
    const own = { ownPorts: here };
    const field = specOf(type).target;
    const value = (config as Record<string, unknown>)[field] as string;
    const kind = targetKindOf(type, config);
    const target =
      kind === 'url'
        ? destinations.refusalOfUrl(value, own)
        : kind === 'host-port'
          ? destinations.refusalOfHostPort(value, own)
          : kind === 'host'
            ? destinations.refusalAsWritten(value, 0, own)
            : kind === 'name' || kind === 'none'
              ? undefined
              : here && commandRefusal(config as ConfigOf<'mcp'>);
    if (target) throw invalid(field, target);
    for (const address of specOf(type).connectsTo?.(config as never) ?? []) {
      const refused = destinations.refusalOfHostPort(address.hostPort, own);
      if (refused) throw invalid(address.field, refused);
    }
    const endpoint = config.openTelemetry && destinations.refusalOfUrl(config.openTelemetry.endpoint, own);
    if (endpoint) throw invalid('openTelemetry.endpoint', endpoint);
  }

  /** Why a command checked from this machine cannot run here: it is not found, or not runnable. */
  function commandRefusal(config: ConfigOf<'mcp'>): string | undefined {
    if (findCommand(config.server, config.env, config.cwd)) return undefined;
    return `names no program this machine can run: "${config.server}" was not found ${/[\\/]/.test(config.server) ? 'or is not executable' : `on the PATH of env (${config.env.PATH ?? 'the default PATH'})`}`;
  }

  /** The monitor with its credential-like values opened: never an answer as it is. */
  async function load(q: Kysely<Database>, workspaceId: number, id: string): Promise<Monitor> {
    const monitor = await findMonitor(q, workspaceId, monitorId(id), sealer);
    if (!monitor) throw notFound('monitor', id);
    return monitor;
  }

  async function readable(actor: Actor, workspaceId: number, id: string): Promise<Monitor> {
    await authorize(db, actor, workspaceId, 'read');
    return load(db, workspaceId, id);
  }

  /**
   * Stores a new monitor, with its audit entry; a heartbeat monitor gets its ping token in the same
   * transaction (heartbeat-tokens.ts), which is returned once, never stored nor audited in the clear.
   */
  async function insert(actor: Actor, workspaceId: number, type: MonitorType, input: unknown): Promise<{ monitor: Monitor; pingToken: string | null }> {
    await authorize(db, actor, workspaceId, 'write');
    const { monitor, pingToken } = await writeTransaction(db, async (trx) => {
      const config = completeConfig(type, input, await planOfWorkspace(trx, workspaceId));
      await checkLocations(trx, workspaceId, config);
      const created = toMonitor(await insertMonitor(trx, workspaceId, type, columnsOf(config, sealer), config.privateLocations), sealer, locationOrder(config));
      const token = type === 'heartbeat' ? await issuePingToken(trx, Number(created.id)) : null;
      // The channels that are a default for new monitors hear of this one from its first check.
      await wireToDefaultChannels(trx, workspaceId, Number(created.id));
      await recordAudit(trx, {
        workspaceId,
        entityType: 'monitor',
        entityId: created.id,
        action: 'monitor.create',
        actor,
        before: null,
        after: snapshot(sealer, created),
      });
      return { monitor: created, pingToken: token };
    });
    checks.monitorChanged(monitor, { checkNow: checksAtOnce(null, monitor) });
    return { monitor: redactSecrets(monitor), pingToken };
  }

  /** The monitor as it is shown. */
  async function get(actor: Actor, workspaceId: number, id: string): Promise<Monitor> {
    return redactSecrets(await readable(actor, workspaceId, id));
  }

  return {
    /** A page of the workspace's monitors of every type, newest first. */
    async list(actor: Actor, workspaceId: number, page: { limit?: number; offset?: number } = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { limit, offset } = parseInput(listInput(), page);
      return pages(`${workspaceId}/${limit}/${offset}`, () => readPage(workspaceId, limit, offset));
    },

    get,

    /** Open incidents of these monitors of the workspace (see incidents.ts); zero for the others. */
    async activeIncidentCounts(actor: Actor, workspaceId: number, monitors: readonly Monitor[]): Promise<ReadonlyMap<string, number>> {
      await authorize(db, actor, workspaceId, 'read');
      const ids = monitors.map((m) => m.id);
      return incidents(`${workspaceId}/${ids.join(',')}`, async () => {
        const counts = await activeIncidentCounts(db, ids.map(Number));
        return new Map(ids.map((id) => [id, counts.get(Number(id)) ?? 0]));
      });
    },

    async create(actor: Actor, workspaceId: number, type: MonitorType, input: unknown): Promise<Monitor> {
      return (await insert(actor, workspaceId, type, input)).monitor;
    },

    /**
     * Creates a heartbeat monitor and gives its ping token, the one time it is known (a monitor
     * created by `create` has one too, which only a rotation shows).
     */
    async createHeartbeat(actor: Actor, workspaceId: number, input: unknown): Promise<{ monitor: Monitor; pingToken: string }> {
      const { monitor, pingToken } = await insert(actor, workspaceId, 'heartbeat', input);
      return { monitor, pingToken: pingToken! };
    },

    /**
     * Changes the fields named in `patch`; every other field keeps its value. A field set to
     * null returns to its default (or is refused if it is required). A credential-like header or
     * metadata value sent back as `[redacted]`, as it was shown, keeps its stored value.
     */
    async update(actor: Actor, workspaceId: number, type: MonitorType, id: string, patch: Record<string, unknown>): Promise<Monitor> {
      await authorize(db, actor, workspaceId, 'write');
      if (Object.keys(patch).length === 0) {
        throw new AppError('VALIDATION', 'monitor: names no field to change; set the fields to change or list them in update_mask', [
          { field: 'monitor', rule: 'must set at least one field to change' },
        ]);
      }
      const saved = await updateTransaction(db, async (trx) => {
        const before = await load(trx, workspaceId, id);
        if (before.type !== type) {
          const rule = `monitor ${id} is a ${before.type} monitor, not a ${type} monitor`;
          throw new AppError('VALIDATION', `id: ${rule}`, [{ field: 'id', rule }]);
        }
        const merged: Record<string, unknown> = { ...configOf(before), ...patch };
        for (const [field, value] of Object.entries(patch)) if (value === null) delete merged[field];
        const config = keepRedacted(completeConfig(type, merged, await planOfWorkspace(trx, workspaceId), before), before);
        await checkLocations(trx, workspaceId, config);
        const after = toMonitor(await updateMonitor(trx, Number(before.id), columnsOf(config, sealer), config.privateLocations), sealer, locationOrder(config));
        // Values equal to the stored ones: undone, and nothing is checked at once.
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'monitor',
            entityId: before.id,
            action: 'monitor.update',
            actor,
            before: snapshot(sealer, before),
            after: snapshot(sealer, after),
          },
          { after: before, checkNow: false },
        );
        return { after, checkNow: checksAtOnce(before, after) };
      });
      checks.monitorChanged(saved.after, { checkNow: saved.checkNow });
      return redactSecrets(saved.after);
    },

    async delete(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      await writeTransaction(db, async (trx) => {
        const before = await load(trx, workspaceId, id);
        await deleteMonitor(trx, Number(before.id));
        known.delete(Number(before.id));
        await recordAudit(trx, {
          workspaceId,
          entityType: 'monitor',
          entityId: before.id,
          action: 'monitor.delete',
          actor,
          before: snapshot(sealer, before),
          after: null,
        });
      });
      checks.monitorRemoved(id);
    },

    /** Runs a check now. Not a read: it acts on the target and stores results, so it needs write. */
    async trigger(actor: Actor, workspaceId: number, id: string) {
      await authorize(db, actor, workspaceId, 'write');
      return checks.trigger(await load(db, workspaceId, id));
    },

    async status(actor: Actor, workspaceId: number, id: string) {
      return checks.status(await withLocationRegions(db, await readable(actor, workspaceId, id)));
    },

    /** `window` is one of 1d (default), 7d, 14d; anything else is refused. */
    async summary(actor: Actor, workspaceId: number, id: string, window?: string) {
      const monitor = await readable(actor, workspaceId, id);
      return checks.summary(monitor, parseInput(windowInput(), { window }).window);
    },

    /** Recent check results of an HTTP monitor, newest first, one per region. */
    async responseLogs(actor: Actor, workspaceId: number, id: string, query: { window?: string; limit?: number; offset?: number } = {}) {
      const monitor = await readable(actor, workspaceId, id);
      if (monitor.type !== 'http') {
        const rule = `response logs exist for HTTP monitors only; monitor ${id} is a ${monitor.type} monitor: use its status and summary instead`;
        throw new AppError('VALIDATION', `id: ${rule}`, [{ field: 'id', rule }]);
      }
      return checks.responseLogs(monitor, parseInput(responseLogInput(), query));
    },

    /** One check of one region, by the id its response log carries. */
    async responseLog(actor: Actor, workspaceId: number, id: string) {
      await authorize(db, actor, workspaceId, 'read');
      const log = await checks.responseLog(id);
      // A log of another workspace's monitor is as absent as one that never was.
      if (!log || !(await findMonitor(db, workspaceId, Number(log.monitorId)))) throw notFound('response log', id);
      return log;
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
