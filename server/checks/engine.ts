import type { SecureContext } from 'node:tls';
import type SQLite from 'better-sqlite3';
import type { Logger } from 'pino';
import { type Db, withSqlite } from '../db/open.ts';
import type {
  CheckOutcome,
  CheckResult,
  MonitorChecks,
  MonitorHealth,
  MonitorStateChange,
  MonitorSummary,
  ProbeResult,
  RegionHealth,
  ResponseLog,
  ResponseLogQuery,
  SummaryWindow,
} from '../domain/monitors/check-results.ts';
import { findMonitorRows } from '../domain/monitors/monitor-repository.ts';
import { type Monitor, toMonitor } from '../domain/monitors/monitors.ts';
import { sealerOf } from '../domain/sealing.ts';
import { EMBEDDED_RUNNER, markRunnerSeen, runnerByName } from '../domain/locations/location-repository.ts';
import { emptyTiming, trustStore } from './connection.ts';
import { probeGrpc } from './grpc-probe.ts';
import { probeHttp } from './http-probe.ts';
import { createOtlpExport } from './otlp-export.ts';
import { probeResult } from './outcome.ts';
import { responseLogsOf, toResponseLog } from '../domain/monitors/check-records.ts';
import { DAY_MS, createResultStore, type StoredCheck, type StoredTransition } from './result-store.ts';
import { createScheduler } from './scheduler.ts';
import { probeTcp } from './tcp-probe.ts';

/**
 * The check engine: runs every active monitor on its schedule through the embedded runner,
 * stores results in batches, keeps each monitor's state, emits state changes, and exports
 * metrics. It is also what the monitor service asks for status, summaries and response logs.
 */

export interface CheckEngineOptions {
  log: Logger;
  version: string;
  /** Check active monitors on their schedule. Off: checks run only when triggered. */
  schedule: boolean;
  /** Most checks in flight at once. */
  concurrency?: number;
  /** How often metrics go to each OTLP endpoint. */
  otlpIntervalMs?: number;
  /** PEM certificates trusted besides Node's and the system's roots. */
  extraCa?: string[];
  /** Raw results kept at most (see DEFAULT_MAX_RAW_RESULTS); the oldest are pruned first. */
  maxRawResults?: number;
  now?: () => number;
}

const DEFAULT_CONCURRENCY = 500;
const DEFAULT_OTLP_INTERVAL_MS = 60_000;
/** Results wait at most this long to be written with others. */
const FLUSH_MS = 250;
const FLUSH_BATCH = 1_000;
/** How often the runner says it is alive, and looks for monitors changed by other processes. */
const HEARTBEAT_MS = 15_000;
/** Often enough that many monitors do not outgrow maxRawResults by much between prunes. */
const PRUNE_MS = 600_000;
const PERIOD_MS: Record<Monitor['periodicity'], number> = { '30s': 30_000, '1m': 60_000, '5m': 300_000, '10m': 600_000, '30m': 1_800_000, '1h': 3_600_000 };
const WINDOW_MS: Record<SummaryWindow, number> = { '1d': DAY_MS, '7d': 7 * DAY_MS, '14d': 14 * DAY_MS };
const HEALTH: Record<CheckOutcome, RegionHealth> = { up: 'active', degraded: 'degraded', down: 'error' };
const SEVERITY: Record<CheckOutcome, number> = { up: 0, degraded: 1, down: 2 };

/**
 * A scheduled monitor as the engine keeps it, for as long as it is scheduled: what its checks and
 * metrics read, without what only people read (description, tags, times). At 100,000 monitors
 * every field kept costs megabytes.
 */
type ScheduledMonitor = Monitor extends infer M ? (M extends Monitor ? Omit<M, 'description' | 'tags' | 'createdAt' | 'updatedAt'> : never) : never;

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
  const otlp = createOtlpExport({ intervalMs: options.otlpIntervalMs ?? DEFAULT_OTLP_INTERVAL_MS, log, version: options.version });
  /** Aborted on close: ends the checks in flight. */
  const stopping = new AbortController();
  // Built on the first check: reading the trust stores takes a moment the CLI need not spend.
  let probeOptions: { trust: SecureContext; userAgent: string; stop: AbortSignal } | undefined;
  const probeSettings = () => (probeOptions ??= { trust: trustStore(options.extraCa), userAgent: `statusdesk/${options.version}`, stop: stopping.signal });
  const listeners = new Set<(change: MonitorStateChange) => void>();
  /** Scheduled monitors by id, with the revision they were read at and the last sync that saw them. */
  const monitors = new Map<number, { revision: number; monitor: ScheduledMonitor; seen: number }>();
  let syncs = 0;
  /** Prepared on the first sync: the revision of every active monitor, read row by row. */
  let activeRevisions: SQLite.Statement<[], [number, number]> | undefined;
  /** One array per distinct list of regions, shared by the monitors that list them. */
  const regionLists = new Map<string, Monitor['regions']>();
  let pending: StoredCheck[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  let closed = false;

  const scheduler = createScheduler({
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    now,
    run: async (id) => {
      const entry = monitors.get(id);
      if (entry) enqueue(await check(entry.monitor));
    },
    onGap: (from, to) => {
      log.warn({ from: new Date(from).toISOString(), to: new Date(to).toISOString() }, 'no checks ran in this span (the machine slept or the clock moved); checks resume on schedule');
      store.recordGap(runner, from, to).catch((error: Error) => log.error({ err: error }, 'recording a gap failed'));
    },
  });

  async function probe(monitor: ScheduledMonitor): Promise<ProbeResult> {
    switch (monitor.type) {
      case 'tcp':
        return probeTcp(monitor, { stop: stopping.signal });
      case 'grpc':
        return probeGrpc(monitor, probeSettings());
      case 'http':
        return probeHttp(monitor, probeSettings());
    }
  }

  /** Runs one check of `monitor` now. Never rejects: a fault of the probe itself is a down result. */
  async function check(monitor: ScheduledMonitor): Promise<StoredCheck> {
    const startedAt = now();
    let result: ProbeResult;
    try {
      result = await probe(monitor);
    } catch (error) {
      log.error({ err: error, monitorId: monitor.id }, 'a check failed unexpectedly');
      result = probeResult('down', now() - startedAt, emptyTiming(), 0, `the check itself failed: ${(error as Error).message}`);
    }
    const stored: StoredCheck = { ...result, monitorId: Number(monitor.id), workspaceId: Number(monitor.workspaceId), runner, regions: monitor.regions, startedAt };
    if (closed) return stored; // finished after close: the exporters are gone
    try {
      otlp.record(monitor, stored);
    } catch (error) {
      log.warn({ err: error, monitorId: monitor.id }, 'recording metrics failed');
    }
    return stored;
  }

  function enqueue(stored: StoredCheck): void {
    if (closed) return;
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
      } catch (error) {
        log.error({ err: error, results: batch.length }, 'storing check results failed');
      }
    });
    return flushing;
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
    };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'a state-change listener failed');
      }
    }
  }

  /** Schedules an active monitor (anew, if it changed); a paused one is forgotten. */
  function track(monitor: Monitor, revision: number): void {
    if (!options.schedule) return;
    const id = Number(monitor.id);
    if (!monitor.active) return forget(id);
    const { description: _description, tags: _tags, createdAt: _createdAt, updatedAt: _updatedAt, ...scheduled } = monitor;
    const key = scheduled.regions.join(',');
    const regions = regionLists.get(key);
    if (regions) scheduled.regions = regions;
    else regionLists.set(key, scheduled.regions);
    monitors.set(id, { revision, monitor: scheduled as ScheduledMonitor, seen: syncs });
    scheduler.schedule(id, PERIOD_MS[monitor.periodicity]);
  }

  function forget(id: number): void {
    monitors.delete(id);
    scheduler.unschedule(id);
    otlp.forget(id);
  }

  /**
   * Brings the scheduled set up to date with the database: changes by any process land here.
   * Every 15 s: the revisions are streamed from a prepared statement, and each scheduled monitor
   * is marked with the sync that saw it, so that 100,000 monitors cost no array, set or row
   * object that would outlive the read.
   */
  async function sync(): Promise<void> {
    const round = ++syncs;
    const stale = await withSqlite(db, (sqlite) => {
      activeRevisions ??= sqlite.prepare<[], [number, number]>('select id, revision from monitors where active = 1').raw();
      const ids: number[] = [];
      for (const [id, revision] of activeRevisions.iterate()) {
        const entry = monitors.get(id);
        if (entry) entry.seen = round;
        if (entry?.revision !== revision) ids.push(id);
      }
      return ids;
    });
    // Deleted or paused since; those read again below are tracked anew, or forgotten there.
    for (const [id, entry] of monitors) if (entry.seen < round) forget(id);
    for (let i = 0; i < stale.length; i += 500) {
      for (const row of await findMonitorRows(db, stale.slice(i, i + 500))) track(toMonitor(row, sealerOf(db)), row.revision);
    }
  }

  async function heartbeat(): Promise<void> {
    await markRunnerSeen(db, runner, new Date(now()).toISOString());
    await sync();
  }

  const checks: MonitorChecks = {
    async trigger(monitor) {
      const stored = await check(monitor);
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
      const gaps = (await store.gaps(from)).map((g) => ({ startedAt: new Date(Math.max(g.started_at, from)).toISOString(), endedAt: new Date(g.ended_at).toISOString() }));
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

    monitorChanged(monitor) {
      // The revision is not known here: the next sync reads it (and this monitor) once more.
      track(monitor, 0);
    },

    monitorRemoved(id) {
      forget(Number(id));
      store.forget(Number(id));
    },
  };

  return {
    checks,

    /** Subscribes to state changes (down, recovered, degraded); returns the unsubscribe. */
    onStateChange(listener: (change: MonitorStateChange) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** When scheduling, loads the monitors and starts checking. (The states of before a restart are the result store's: alerts are not repeated.) */
    async start(): Promise<void> {
      if (!options.schedule) return;
      await sync();
      // The service was not running since the runner was last seen: nothing was checked.
      const previous = (await runnerByName(db, runner))?.last_seen_at;
      const t = now();
      if (previous && t - Date.parse(previous) > 2 * HEARTBEAT_MS) await store.recordGap(runner, Date.parse(previous), t);
      await heartbeat();
      scheduler.start();
      const every = (ms: number, work: () => Promise<unknown>) => {
        const timer = setInterval(() => work().catch((error: Error) => log.error({ err: error }, 'check engine upkeep failed')), ms);
        timers.push(timer);
      };
      every(HEARTBEAT_MS, heartbeat);
      every(PRUNE_MS, () => store.prune(now()));
      timers.push(setTimeout(() => void store.prune(now()).catch((error: Error) => log.error({ err: error }, 'pruning results failed')), 10_000));
    },

    /** Stops scheduling, writes pending results and closes the exporters. Checks in flight are ended and dropped. */
    async close(): Promise<void> {
      scheduler.stop();
      stopping.abort();
      for (const timer of timers) clearTimeout(timer);
      const last = flush();
      closed = true;
      await last;
      await otlp.close();
    },

    scheduler,
  };
}

export type CheckEngine = ReturnType<typeof createCheckEngine>;

function toStoredResult(stored: StoredCheck): Omit<CheckResult, 'region'> {
  const { monitorId, workspaceId: _workspaceId, runner, regions: _regions, startedAt, ...probe } = stored;
  return { ...probe, monitorId: String(monitorId), runner, startedAt: new Date(startedAt).toISOString() };
}
