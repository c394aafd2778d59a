import type SQLite from 'better-sqlite3';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import { isPostgres } from '../db/engine.ts';
import { type Db, withSqlite } from '../db/open.ts';
import type {
  CheckOutcome,
  CheckResult,
  MonitorChecks,
  MonitorHealth,
  MonitorStateChange,
  MonitorSummary,
  RegionHealth,
  ResponseLog,
  ResponseLogQuery,
  SummaryWindow,
} from '../domain/monitors/check-results.ts';
import type { DestinationPolicy } from '../domain/destinations.ts';
import { findMonitorRows } from '../domain/monitors/monitor-repository.ts';
import { type Monitor, toMonitor } from '../domain/monitors/monitors.ts';
import { isOnThisMachine, targetOf } from '../domain/monitors/monitor-types.ts';
import { sealerOf } from '../domain/sealing.ts';
import type { ToolListing } from '../domain/monitors/tool-pins.ts';
import { EMBEDDED_RUNNER, markRunnerSeen, runnerByName } from '../domain/locations/location-repository.ts';
import { createCheckRunner } from './check-runner.ts';
import { createLeases } from './leases.ts';
import { createHeartbeatWatch } from './heartbeat-watch.ts';
import { createOfflineWatch, type OfflineWatchOptions } from './offline.ts';
import { responseLogsOf, toResponseLog } from '../domain/monitors/check-records.ts';
import { DAY_MS, createResultStore, type StoredCheck, type StoredTransition, type WithinWrite } from './result-store.ts';

/**
 * The check engine: runs every active monitor with a region on its schedule through the embedded
 * runner (the check core of check-runner.ts), stores its results and those remote runners report
 * in batches, keeps each monitor's state, and emits state changes. It is also what the monitor
 * service asks for status, summaries and response logs.
 */

export interface CheckEngineOptions {
  log: Logger;
  version: string;
  /** How this machine's being offline is judged (tests give the network reading); offline.ts's rules by default. */
  offline?: OfflineWatchOptions;
  /** Check active monitors on their schedule. Off: checks run only when triggered. */
  schedule: boolean;
  /** Most checks in flight at once. */
  concurrency?: number;
  /** How often metrics go to each OTLP endpoint. */
  otlpIntervalMs?: number;
  /** PEM certificates trusted besides Node's and the system's roots. */
  extraCa?: string[];
  /** Where checks and metric exports may connect (domain/destinations.ts); absent: the policy without an allow-list. */
  destinations?: DestinationPolicy;
  /** Raw results kept at most (see DEFAULT_MAX_RAW_RESULTS); the oldest are pruned first. */
  maxRawResults?: number;
  /** How long this process's lease on its share of the monitors lasts (see leases.ts). */
  leaseMs?: number;
  now?: () => number;
}

/**
 * Results wait at most this long to be written with others. A transaction rewrites each page it
 * touches, and at many monitors every check touches pages of its own (its state, its rollup, its
 * place in the results index): the more checks a transaction holds, the fewer pages each costs
 * (at 100,000 monitors, 92 µs a check in batches of 700 against 55 µs in batches of 3,000).
 */
const FLUSH_MS = 1_000;
const FLUSH_BATCH = 4_000;
/** How often the runner says it is alive, and looks for monitors changed by other processes. */
const HEARTBEAT_MS = 15_000;
/** How often an offline machine's network is looked at again. */
const OFFLINE_RECHECK_MS = 5_000;
/** Often enough that many monitors do not outgrow maxRawResults by much between prunes. */
const PRUNE_MS = 600_000;
const WINDOW_MS: Record<SummaryWindow, number> = { '1d': DAY_MS, '7d': 7 * DAY_MS, '14d': 14 * DAY_MS };
const HEALTH: Record<CheckOutcome, RegionHealth> = { up: 'active', degraded: 'degraded', down: 'error' };
const SEVERITY: Record<CheckOutcome, number> = { up: 0, degraded: 1, down: 2 };

const worst = (outcomes: Iterable<CheckOutcome>): CheckOutcome | null => {
  let result: CheckOutcome | null = null;
  for (const o of outcomes) if (result === null || SEVERITY[o] > SEVERITY[result]) result = o;
  return result;
};

export function createCheckEngine(db: Db, options: CheckEngineOptions) {
  const { log } = options;
  const now = options.now ?? Date.now;
  const runner = EMBEDDED_RUNNER;
  const store = createResultStore(db, { maxRawResults: options.maxRawResults });
  const listeners = new Set<(change: MonitorStateChange) => void>();
  const listingListeners = new Set<(listing: ToolListing) => void>();
  let syncs = 0;
  const leases = createLeases(store.engineWrites, {
    log,
    leaseMs: options.leaseMs,
    shards: options.schedule,
    onChange() {
      // Shards dropped stop being checked at once; shards taken are read now, not at the next heartbeat.
      core.forgetWhere((id) => !leases.holds(id));
      syncedFingerprint = undefined;
      if (started && !closed) sync().catch((error: Error) => log.error({ err: error }, 'reading the monitors of the shards taken failed'));
    },
  });
  let started = false;
  /**
   * The fingerprint of the scheduled monitors (see fingerprintOf) when the last whole sync began:
   * while it stays the same and the shards held do too, a sync has nothing to read. At 100,000
   * monitors a read of every revision takes the engine's thread for about 0.3 s.
   */
  let syncedFingerprint: string | undefined;
  const activeRevisions = activeRevisionsOf(db);
  let pending: StoredCheck[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  let closed = false;
  /**
   * Whether this machine has lost its network (offline.ts): its own checks' failures are then its
   * own, their alerts are held, and the span is recorded as a gap of its runner.
   */
  const offline = createOfflineWatch(options.offline);
  offline.onChange((change) => {
    if ('offline' in change)
      log.warn(
        { since: new Date(change.offline.since).toISOString(), reason: change.offline.reason },
        'checks are failing because this machine is offline; alerts are held until it is back',
      );
    else {
      log.info({ since: new Date(change.online.since).toISOString() }, 'this machine is back online; alerts resume');
      store.recordGap(runner, change.online.since, change.online.until).catch((error: Error) => log.error({ err: error }, 'recording the offline span failed'));
    }
  });

  /**
   * The deadlines of the heartbeat monitors this process schedules: one that passes is checked at
   * once, which records it down (heartbeat-watch.ts).
   */
  const watch = createHeartbeatWatch({
    db,
    log,
    now,
    scheduled: (id) => core.monitor(id) !== undefined,
    due(id) {
      const monitor = core.monitor(id);
      if (monitor) void core.check(monitor).then((stored) => stored && enqueue(stored));
    },
  });

  const core = createCheckRunner({
    log,
    version: options.version,
    place: { runner },
    heartbeats: watch.evaluator,
    concurrency: options.concurrency,
    otlpIntervalMs: options.otlpIntervalMs,
    extraCa: options.extraCa,
    // This machine's own runner: each stdio MCP monitor opted in when it was saved.
    allowCommands: true,
    destinations: options.destinations,
    now,
    onCheck: enqueue,
    onGap: (from, to) => {
      // The instance's runner `local` checked nothing then; one process of several says so.
      if (!leases.upkeep) return;
      log.warn(
        { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        'no checks ran in this span (the machine slept or the clock moved); checks resume on schedule',
      );
      store.recordGap(runner, from, to).catch((error: Error) => log.error({ err: error }, 'recording a gap failed'));
    },
  });

  function enqueue(stored: StoredCheck): void {
    if (closed) return;
    const monitor = core.monitor(stored.monitorId);
    offline.noteCheck({
      monitorId: stored.monitorId,
      result: stored.result,
      message: stored.message,
      at: stored.startedAt,
      local: monitor !== undefined && isOnThisMachine(targetOf(monitor)),
    });
    pending.push(stored);
    if (pending.length >= FLUSH_BATCH) void flush();
    else flushTimer ??= setTimeout(() => void flush(), FLUSH_MS);
  }

  /** Writes what is pending; batches are written one after another, in order. */
  function flush(): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = pending;
    pending = [];
    flushing = flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        for (const transition of await store.write(batch)) announce(transition);
        announceListings(batch);
      } catch (error) {
        log.error({ err: error, results: batch.length }, 'storing check results failed');
      }
    });
    return flushing;
  }

  /** Stores `checks` after the pending ones, in the order of flushes, with `within` in their transaction. */
  function ingest(checks: StoredCheck[], within?: WithinWrite): Promise<void> {
    void flush();
    const stored = flushing.then(async () => {
      for (const transition of await store.write(checks, within)) announce(transition);
      announceListings(checks);
    });
    // The next batches wait for this one, not for its outcome: that is the caller's.
    flushing = stored.catch(() => {});
    return stored;
  }

  /**
   * Tells the listeners of the tools each stored MCP check listed (domain/monitors/tool-pins.ts
   * decides what they mean), after the checks are stored.
   */
  function announceListings(checks: readonly StoredCheck[]): void {
    for (const c of checks) {
      if (c.mcp?.status !== 'OK') continue;
      const listing: ToolListing = { monitorId: c.monitorId, workspaceId: c.workspaceId, at: c.startedAt, tools: c.mcp.tools };
      for (const listener of listingListeners) {
        try {
          listener(listing);
        } catch (error) {
          log.error({ err: error }, 'a tool-listing listener failed');
        }
      }
    }
  }

  /** Tells the listeners of a change of a monitor's overall state (the result store detects them). */
  function announce({ check: c, from, to }: StoredTransition): void {
    if (from === to) return;
    const change: MonitorStateChange = {
      monitorId: String(c.monitorId),
      workspaceId: String(c.workspaceId),
      from,
      to,
      kind: to === 'down' ? 'down' : to === 'degraded' ? 'degraded' : from === null ? 'checked' : 'recovered',
      at: new Date(c.startedAt).toISOString(),
      message: c.message,
      regions: c.regions,
      runner: c.runner,
    };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'a state-change listener failed');
      }
    }
  }

  /**
   * Schedules an active monitor with a region (anew, if it changed) when this process holds its
   * shard; a paused one, one that runs only from private locations, or another process's, is forgotten.
   */
  function track(monitor: Monitor, revision: number): void {
    if (!options.schedule) return;
    if (monitor.regions.length === 0 || !leases.holds(Number(monitor.id))) core.forget(Number(monitor.id));
    else {
      core.track(monitor, revision, syncs);
      if (monitor.type === 'heartbeat' && monitor.active) watch.watch(monitor);
    }
  }

  /**
   * Brings the scheduled set up to date with the database: changes by any process land here, for
   * the monitors of the shards this process holds. Every 15 s, and when shards are taken: each
   * scheduled monitor is marked with the sync that saw it.
   */
  async function sync(): Promise<void> {
    const fingerprint = await fingerprintOf(db);
    if (fingerprint === syncedFingerprint) return;
    syncedFingerprint = undefined;
    const round = ++syncs;
    const stale = await activeRevisions((id, revision) => leases.holds(id) && core.mark(id, round) !== revision);
    // Deleted, paused or left without regions since; those read again below are tracked anew, or forgotten there.
    core.sweep(round);
    for (let i = 0; i < stale.length; i += 500) {
      for (const row of await findMonitorRows(db, stale.slice(i, i + 500))) track(toMonitor(row, sealerOf(db)), row.revision);
    }
    syncedFingerprint = fingerprint;
  }

  async function heartbeat(): Promise<void> {
    await markRunnerSeen(store.engineWrites, runner, new Date(now()).toISOString());
    await sync();
  }

  function dropStaleStates(monitorId?: number): void {
    store
      .dropStaleStates(monitorId)
      .catch((error: Error) => log.error({ err: error, monitorId }, 'dropping the states of runners that no longer check a monitor failed'));
  }

  const checks: MonitorChecks = {
    async trigger(monitor) {
      // A monitor that runs only from private locations is checked by their runners.
      if (monitor.regions.length === 0) return [];
      const stored = await core.check(monitor);
      // A heartbeat monitor never pinged records nothing before its first deadline.
      if (!stored) return [];
      enqueue(stored);
      await flush();
      return monitor.regions.map((region) => ({ ...toStoredResult(stored), region }));
    },

    async status(monitor): Promise<MonitorHealth> {
      const states = await store.states(Number(monitor.id));
      const wanted: readonly string[] = monitor.regions;
      const regions = wanted.map((region) => {
        const latest = states.filter((s) => s.regions.includes(region)).sort((a, b) => b.checkedAt - a.checkedAt)[0];
        return {
          region,
          status: latest ? HEALTH[latest.result] : null,
          lastCheckedAt: latest ? new Date(latest.checkedAt).toISOString() : null,
        };
      });
      const overall = worst(states.filter((s) => s.regions.some((r) => wanted.includes(r))).map((s) => s.result));
      return { overall: overall === null ? null : HEALTH[overall], regions };
    },

    async summary(monitor, window): Promise<MonitorSummary> {
      const from = now() - WINDOW_MS[window];
      const counts = await store.window(Number(monitor.id), from);
      const q = (p: number) => counts.latency.quantile(p)!;
      // The gaps of its runners: the embedded one for its regions, and each that checked it.
      const runners = new Set((await store.states(Number(monitor.id))).map((state) => state.runner));
      if (monitor.regions.length > 0) runners.add(runner);
      const gaps = (await store.gaps(from))
        .filter((g) => runners.has(g.runner))
        .map((g) => ({ startedAt: new Date(Math.max(g.started_at, from)).toISOString(), endedAt: new Date(g.ended_at).toISOString() }));
      return {
        window,
        successCount: counts.successCount,
        degradedCount: counts.degradedCount,
        errorCount: counts.errorCount,
        latency: counts.latency.count === 0 ? null : { p50: q(0.5), p75: q(0.75), p90: q(0.9), p95: q(0.95), p99: q(0.99) },
        lastPingAt: counts.lastPingAt === null ? null : new Date(counts.lastPingAt).toISOString(),
        gaps,
      };
    },

    async responseLogs(monitor, query: ResponseLogQuery): Promise<ResponseLog[]> {
      // Each stored check stands for several regions: read enough checks to fill the page.
      const rows = await store.results(Number(monitor.id), now() - WINDOW_MS[query.window], query.offset + query.limit, 0);
      return responseLogsOf(rows).slice(query.offset, query.offset + query.limit);
    },

    async responseLog(id: string): Promise<ResponseLog | undefined> {
      const match = /^(\d{1,15})-([a-z0-9-]{1,40})$/.exec(id);
      if (!match) return undefined;
      const row = await store.result(Number(match[1]));
      const region = match[2]!;
      if (!row || !(JSON.parse(row.regions) as string[]).includes(region)) return undefined;
      return toResponseLog(row, region);
    },

    monitorChanged(monitor, change) {
      // The revision is not known here: the next sync reads it (and this monitor) once more.
      track(monitor, 0);
      // Checked at once when this process schedules it (its shard, checks on), then at its slots.
      if (change?.checkNow) core.scheduler.runSoon(Number(monitor.id));
      dropStaleStates(Number(monitor.id));
    },

    runnersChanged() {
      dropStaleStates();
    },

    heartbeatPinged(monitorId) {
      // The monitor as this process schedules it, or as stored (another process's shard, checks off).
      const id = Number(monitorId);
      const scheduled = core.monitor(id);
      const monitor = scheduled ? Promise.resolve(scheduled) : findMonitorRows(db, [id]).then(([row]) => (row ? toMonitor(row, sealerOf(db)) : undefined));
      monitor
        .then((m) => (m?.active && m.regions.length > 0 ? core.check(m) : null))
        .then((stored) => {
          if (stored) enqueue(stored);
        })
        .catch((error: Error) => log.error({ err: error, monitorId }, 'recording a heartbeat ping failed'));
    },

    monitorRemoved(id) {
      watch.forget(Number(id));
      core.forget(Number(id));
      store.forget(Number(id));
    },
  };

  return {
    checks,

    /** Subscribes to the tools listed by stored MCP checks; returns the unsubscribe. */
    onToolListing(listener: (listing: ToolListing) => void): () => void {
      listingListeners.add(listener);
      return () => listingListeners.delete(listener);
    },

    /** Subscribes to state changes (down, recovered, degraded); returns the unsubscribe. */
    onStateChange(listener: (change: MonitorStateChange) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /**
     * Takes this process's leases; when scheduling, loads the monitors of its shards and starts
     * checking. (The states of before a restart are the result store's: alerts are not repeated.)
     */
    async start(): Promise<void> {
      await leases.start();
      const every = (ms: number, work: () => Promise<unknown>) => {
        const timer = setInterval(() => work().catch((error: Error) => log.error({ err: error }, 'check engine upkeep failed')), ms);
        timers.push(timer);
      };
      // Whichever process does the upkeep prunes, scheduling or not: runners' results are stored too.
      const prune = async () => {
        if (leases.upkeep) await store.prune(now());
      };
      every(PRUNE_MS, prune);
      timers.push(setTimeout(() => void prune().catch((error: Error) => log.error({ err: error }, 'pruning results failed')), 10_000));
      if (!options.schedule) return;
      started = true;
      await sync();
      // No service was running since the runner was last seen: nothing was checked.
      const previous = (await runnerByName(db, runner))?.last_seen_at;
      const t = now();
      if (leases.upkeep && previous && t - Date.parse(previous) > 2 * HEARTBEAT_MS) await store.recordGap(runner, Date.parse(previous), t);
      await heartbeat();
      core.start();
      watch.start();
      every(HEARTBEAT_MS, heartbeat);
      // While offline for want of a network, the network is looked at again every few seconds.
      every(OFFLINE_RECHECK_MS, async () => offline.recheck(now()));
    },

    /** Whether this machine is offline now (since when, why), and each change of it. */
    offline: {
      get state() {
        return offline.state;
      },
      onChange: offline.onChange,
    },

    /** Whether this process does the upkeep of the instance, of which several processes may share the database (see leases.ts). */
    get upkeep(): boolean {
      return leases.upkeep;
    },

    /**
     * Stops scheduling, writes pending results, gives its leases back for other processes to take
     * at once, and closes the exporters. Checks in flight are ended and dropped.
     */
    async close(): Promise<void> {
      watch.stop();
      core.stop();
      for (const timer of timers) clearTimeout(timer);
      const last = flush();
      closed = true;
      await last;
      await leases.close().catch((error: Error) => log.error({ err: error }, 'giving the leases back failed'));
      await core.close();
    },

    /**
     * Stores checks a remote runner reported, after the pending ones, in one transaction that also
     * runs `within` (what else must be stored exactly when they are), then announces the changes
     * of state they made, as for local checks. Rejects, storing nothing, when `within` throws.
     */
    ingest,

    /** Records a span in which a runner checked nothing (its machine slept, or its clock jumped). */
    recordGap(runnerName: string, from: number, to: number): Promise<void> {
      return store.recordGap(runnerName, from, to);
    },

    scheduler: core.scheduler,

    /**
     * The engine's own writes, single statements: on SQLite, run on the result writer's connection
     * once it runs, so that they never wait on the service's thread for its write lock (heartbeat pings).
     */
    writes: store.engineWrites,

    /** The deadlines of heartbeat monitors: how many are watched, and how late each was evaluated. */
    heartbeatDeadlines: {
      get watched() {
        return watch.watched;
      },
      stats: watch.stats,
    },
  };
}

export type CheckEngine = ReturnType<typeof createCheckEngine>;

/** The monitors the engine schedules: active, with a region (regions are stored as JSON: '[]' is none). */
const SCHEDULED = "active = 1 and regions <> '[]'";

/**
 * A fingerprint of the monitors the engine schedules: their count, and the sums of their ids and
 * of their revisions. A change by any process moves it: a monitor created or resumed adds its id
 * (a new id is larger than every one before), one deleted or paused takes it away, and an edit
 * raises a revision; only changes that cancel out in all three sums at once would go unseen.
 * SQLite sums them without a row reaching JavaScript: about 12 ms at 100,000 monitors, where
 * reading every revision takes 60 ms before the engine compares them one by one. It is not
 * SQLite's data_version: that changes with every commit of another connection, and the result
 * writer commits every second.
 */
async function fingerprintOf(db: Db): Promise<string> {
  const { count, ids, revisions } = await db
    .selectFrom('monitors')
    .select((eb) => [eb.fn.countAll().as('count'), eb.fn.sum('id').as('ids'), eb.fn.sum('revision').as('revisions')])
    .where(sql.raw<boolean>(SCHEDULED))
    .executeTakeFirstOrThrow();
  return `${count}:${ids}:${revisions}`;
}

/**
 * Reads the revision of every active monitor with a region (regions are stored as JSON: '[]' is a
 * monitor that runs only from private locations) and returns the ids `stale` picks. On SQLite the
 * rows are streamed from a prepared statement, so 100,000 monitors cost no row object that
 * outlives the read; PostgreSQL's come through Kysely.
 */
function activeRevisionsOf(db: Db): (stale: (id: number, revision: number) => boolean) => Promise<number[]> {
  const pick = (rows: Iterable<[number, number]>, stale: (id: number, revision: number) => boolean) => {
    const ids: number[] = [];
    for (const [id, revision] of rows) if (stale(id, revision)) ids.push(id);
    return ids;
  };
  if (isPostgres(db)) {
    return async (stale) => {
      const rows = await db.selectFrom('monitors').select(['id', 'revision']).where(sql.raw<boolean>(SCHEDULED)).execute();
      return pick(
        rows.map((r): [number, number] => [r.id, r.revision]),
        stale,
      );
    };
  }
  let statement: SQLite.Statement<[], [number, number]> | undefined;
  return (stale) =>
    withSqlite(db, (sqlite) => {
      statement ??= sqlite.prepare<[], [number, number]>(`select id, revision from monitors where ${SCHEDULED}`).raw();
      return pick(statement.iterate(), stale);
    });
}

function toStoredResult(stored: StoredCheck): Omit<CheckResult, 'region'> {
  const { monitorId, workspaceId: _workspaceId, runner, regions: _regions, startedAt, ...probe } = stored;
  return { ...probe, monitorId: String(monitorId), runner, startedAt: new Date(startedAt).toISOString() };
}
