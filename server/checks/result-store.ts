import type SQLite from 'better-sqlite3';
import { type Db, withSqlite } from '../db/open.ts';
import type { CheckResultRow } from '../db/schema.ts';
import type { CheckOutcome, ProbeResult } from '../domain/monitors/check-results.ts';
import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';
import { EMBEDDED_RUNNER } from '../domain/locations/location-repository.ts';

/**
 * Where check results live: raw results (kept RAW_RETENTION_MS, and at most maxRawResults rows),
 * hourly rollups that answer summaries, and the latest result per monitor and runner. Written in
 * batches, one transaction each, through prepared statements on the raw handle: this is the
 * hottest write path there is, so a check costs three statements and no read.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** Raw results are kept 14 days (the longest summary window and response-log window). */
const RAW_RETENTION_MS = 14 * DAY_MS;
/** Rollups and gaps are kept 90 days, for uptime history. */
const ROLLUP_RETENTION_MS = 90 * DAY_MS;
const PRUNE_CHUNK = 5_000;
/** Monitors whose old rollups are deleted per transaction. */
const ROLLUP_PRUNE_MONITORS = 1_000;
/**
 * Raw results kept at most, newest first: 10 million checks take about 1.3 GB (about 130 bytes
 * each with their indexes), a day of 35,000 monitors at 30 s. Below that many monitors the 14 days
 * of RAW_RETENTION_MS are what bounds the file.
 */
export const DEFAULT_MAX_RAW_RESULTS = 10_000_000;

/** A check as stored: the probe's findings, which monitor, which runner, for which regions. */
export interface StoredCheck extends ProbeResult {
  monitorId: number;
  /** Not stored: carried for the state changes the check may cause. */
  workspaceId: number;
  runner: string;
  regions: string[];
  /** Epoch ms. */
  startedAt: number;
}

export interface RunnerState {
  runner: string;
  result: CheckOutcome;
  regions: string[];
  checkedAt: number;
}

export interface WindowCounts {
  successCount: number;
  degradedCount: number;
  errorCount: number;
  latency: LatencyHistogram;
  lastPingAt: number | null;
}

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

const SEVERITY: Record<CheckOutcome, number> = { up: 0, degraded: 1, down: 2 };

/** A monitor's overall state: the worst of its runners' latest outcomes. Null before the first check. */
function worst(byRunner: Map<string, { result: CheckOutcome; at: number }>): CheckOutcome | null {
  let result: CheckOutcome | null = null;
  for (const { result: o } of byRunner.values()) if (result === null || SEVERITY[o] > SEVERITY[result]) result = o;
  return result;
}

/** What a stored check did to its monitor's overall state (from === to when nothing changed). */
export interface StoredTransition {
  check: StoredCheck;
  /** Null before the monitor's first check. */
  from: CheckOutcome | null;
  to: CheckOutcome;
}

/** A monitor's latest outcome by runner, and the overall state stored for it. */
interface Overall {
  byRunner: Map<string, { result: CheckOutcome; at: number }>;
  state: CheckOutcome | null;
}

interface RollupRow {
  success_count: number;
  degraded_count: number;
  error_count: number;
  latency: Buffer;
  last_ping_at: number;
}

interface StateRow {
  monitor_id: number;
  runner: string;
  result: CheckOutcome;
  regions: string;
  checked_at: number;
}

interface GapRow {
  runner: string;
  started_at: number;
  ended_at: number;
}

function statementsFor(sqlite: SQLite.Database) {
  // Adds a check's latency to a stored rollup inside SQLite: no read of the rollup before the write.
  sqlite.function('latency_merge', { deterministic: true }, (stored, added) =>
    (added as Buffer).length === 0 ? stored : LatencyHistogram.mergeEncoded(stored as Buffer, added as Buffer),
  );
  return {
    // Checks of monitors deleted meanwhile are dropped: nothing is inserted (changes = 0).
    insert: sqlite.prepare(
      `insert into check_results (monitor_id, runner, regions, started_at, result, latency_ms, dns_ms, connect_ms, tls_ms, ttfb_ms,
         transfer_ms, attempts, message, grpc_status, status_code, details)
       select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where exists (select 1 from monitors where id = ?)`,
    ),
    addToRollup: sqlite.prepare(
      `insert into check_rollups (monitor_id, hour, success_count, degraded_count, error_count, latency, last_ping_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (monitor_id, hour) do update set success_count = success_count + excluded.success_count,
         degraded_count = degraded_count + excluded.degraded_count, error_count = error_count + excluded.error_count,
         latency = latency_merge(latency, excluded.latency), last_ping_at = max(last_ping_at, excluded.last_ping_at)`,
    ),
    saveState: sqlite.prepare(
      `insert into check_state (monitor_id, runner, result, regions, checked_at, latency_ms) values (?, ?, ?, ?, ?, ?)
       on conflict (monitor_id, runner) do update set result = excluded.result, regions = excluded.regions, checked_at = excluded.checked_at,
         latency_ms = excluded.latency_ms
       where excluded.checked_at >= check_state.checked_at`,
    ),
    overall: sqlite.prepare<[number], CheckOutcome>('select state from monitor_state where monitor_id = ?').pluck(),
    saveOverall: sqlite.prepare(
      `insert into monitor_state (monitor_id, state, changed_at) values (?, ?, ?)
       on conflict (monitor_id) do update set state = excluded.state, changed_at = excluded.changed_at`,
    ),
    rollupsSince: sqlite.prepare<[number, number], RollupRow>('select success_count, degraded_count, error_count, latency, last_ping_at from check_rollups where monitor_id = ? and hour >= ?'),
    rawBetween: sqlite.prepare<[number, number, number], { result: CheckOutcome; latency_ms: number; started_at: number }>('select result, latency_ms, started_at from check_results where monitor_id = ? and started_at >= ? and started_at < ?'),
    states: sqlite.prepare<[number], StateRow>('select monitor_id, runner, result, regions, checked_at from check_state where monitor_id = ?'),
    results: sqlite.prepare<[number, number, number, number], CheckResultRow>('select * from check_results where monitor_id = ? and started_at >= ? order by started_at desc, id desc limit ? offset ?'),
    result: sqlite.prepare<[number], CheckResultRow>('select * from check_results where id = ?'),
    pruneResults: sqlite.prepare(`delete from check_results where id in (select id from check_results where started_at < ? limit ${PRUNE_CHUNK})`),
    lastId: sqlite.prepare<[], number | null>('select max(id) from check_results').pluck(),
    pruneResultsBefore: sqlite.prepare(`delete from check_results where id in (select id from check_results where id < ? order by id limit ${PRUNE_CHUNK})`),
    monitorIdsFrom: sqlite.prepare<[number, number], number>('select id from monitors where id > ? order by id limit ?').pluck(),
    // One seek along the primary key per monitor: a delete by hour alone would read the whole table.
    pruneRollups: sqlite.prepare('delete from check_rollups where monitor_id = ? and hour < ?'),
    pruneGaps: sqlite.prepare('delete from check_gaps where ended_at < ?'),
    insertGap: sqlite.prepare('insert into check_gaps (runner, started_at, ended_at) values (?, ?, ?)'),
    gapsSince: sqlite.prepare<[number], GapRow>('select runner, started_at, ended_at from check_gaps where ended_at >= ? order by started_at'),
  };
}

interface Bucket {
  success: number;
  degraded: number;
  error: number;
  latency: LatencyHistogram;
  last: number;
}

const EMPTY = Buffer.alloc(0);

interface ResultStoreOptions {
  /** Raw results kept at most; the oldest go first. */
  maxRawResults?: number;
}

function count(bucket: Bucket, result: CheckOutcome, latencyMs: number, at: number): void {
  if (result === 'down') bucket.error++;
  else {
    // Latency percentiles describe answered checks: a failure's duration is its timeout.
    if (result === 'up') bucket.success++;
    else bucket.degraded++;
    bucket.latency.add(latencyMs);
  }
  bucket.last = Math.max(bucket.last, at);
}

export function createResultStore(db: Db, options: ResultStoreOptions = {}) {
  const maxRawResults = options.maxRawResults ?? DEFAULT_MAX_RAW_RESULTS;
  /** The hour whose rollups and gaps were last pruned. */
  let rollupsPrunedHour: number | undefined;
  const statements = new WeakMap<SQLite.Database, ReturnType<typeof statementsFor>>();
  /**
   * Each monitor's overall state, read from the database the first time this store writes a check
   * of it, then kept up to date here: the store is the one writer of check results, and a check
   * then costs no read to tell whether it changed the state. Changed in place within a write's
   * transaction; if the transaction fails, the monitors it touched are read again next time.
   */
  const overalls = new Map<number, Overall>();

  function overallOf(s: ReturnType<typeof statementsFor>, monitorId: number): Overall {
    let overall = overalls.get(monitorId);
    if (!overall) {
      const byRunner = new Map(s.states.all(monitorId).map((r) => [r.runner, { result: r.result, at: r.checked_at }]));
      overalls.set(monitorId, (overall = { byRunner, state: s.overall.get(monitorId) ?? null }));
    }
    return overall;
  }

  const run = <T>(work: (s: ReturnType<typeof statementsFor>, sqlite: SQLite.Database) => T) =>
    withSqlite(db, (sqlite) => {
      let s = statements.get(sqlite);
      if (!s) statements.set(sqlite, (s = statementsFor(sqlite)));
      return work(s, sqlite);
    });

  return {
    /**
     * Stores a batch in one transaction: raw rows, the hourly rollups they fall in, the latest
     * state per monitor and runner, and each monitor's overall state with when it last changed
     * (the first check counts). Checks of monitors deleted meanwhile are dropped. `within` runs in
     * the same transaction: when it throws, nothing is stored. Returns the checks that were
     * stored, in order, each with the overall state before and after it.
     */
    write(checks: StoredCheck[], within?: () => void): Promise<StoredTransition[]> {
      const touched = new Set<number>();
      return run((s, sqlite) => {
        try {
          return sqlite
            .transaction(() => {
              const transitions: StoredTransition[] = [];
              for (const c of checks) {
                const t = c.timing;
                const regions = JSON.stringify(c.regions);
                const details = c.url === null ? null : JSON.stringify({ url: c.url, responseHeaders: c.responseHeaders, assertionResults: c.assertionResults });
                const inserted = s.insert.run(c.monitorId, c.runner, regions, c.startedAt, c.result, c.latencyMs, t.dns, t.connect, t.tls, t.ttfb, t.transfer, c.attempts, c.message, c.grpcStatus, c.statusCode, details, c.monitorId);
                if (inserted.changes === 0) continue;
                s.saveState.run(c.monitorId, c.runner, c.result, regions, c.startedAt, c.latencyMs);
                touched.add(c.monitorId);
                const overall = overallOf(s, c.monitorId);
                // As check_state keeps it: a check older than the runner's latest changes nothing.
                const latest = overall.byRunner.get(c.runner);
                if (!latest) overall.byRunner.set(c.runner, { result: c.result, at: c.startedAt });
                else if (c.startedAt >= latest.at) {
                  latest.result = c.result;
                  latest.at = c.startedAt;
                }
                const from = overall.state;
                const to = worst(overall.byRunner)!;
                if (to !== from) {
                  s.saveOverall.run(c.monitorId, to, c.startedAt);
                  overall.state = to;
                }
                transitions.push({ check: c, from, to });
                // Latency percentiles describe answered checks: a failure's duration is its timeout.
                const answered = c.result !== 'down';
                s.addToRollup.run(
                  c.monitorId,
                  hourOf(c.startedAt),
                  c.result === 'up' ? 1 : 0,
                  c.result === 'degraded' ? 1 : 0,
                  answered ? 0 : 1,
                  answered ? LatencyHistogram.encodeOne(c.latencyMs) : EMPTY,
                  c.startedAt,
                );
              }
              within?.();
              return transitions;
            })
            .immediate();
        } catch (error) {
          for (const monitorId of touched) overalls.delete(monitorId);
          throw error;
        }
      });
    },

    /** A deleted monitor: its overall state is no longer kept. */
    forget(monitorId: number): void {
      overalls.delete(monitorId);
    },

    /**
     * Drops the latest states of runners that no longer check a monitor (the embedded runner once
     * the monitor has no regions; a private location it no longer chooses, or that was deleted or
     * renamed), of one monitor or of every one: its overall state is the worst of the runners that
     * check it. The stored overall state is left to the monitor's next check, which announces the
     * change (a monitor that was down only where it is no longer checked recovers).
     */
    dropStaleStates(monitorId?: number): Promise<void> {
      return run((_s, sqlite) => {
        sqlite
          .prepare(
            `delete from check_state where (@monitor is null or monitor_id = @monitor) and case
               when runner = @embedded then exists (select 1 from monitors m where m.id = check_state.monitor_id and m.regions = '[]')
               else not exists (select 1 from monitor_private_locations l join private_locations p on p.id = l.location_id
                                where l.monitor_id = check_state.monitor_id and p.name = check_state.runner)
             end`,
          )
          .run({ monitor: monitorId ?? null, embedded: EMBEDDED_RUNNER });
        if (monitorId === undefined) overalls.clear();
        else overalls.delete(monitorId);
      });
    },

    /** Counts and latency of the checks in [from, now]: whole hours from rollups, the partial first hour from raw rows. */
    window(monitorId: number, from: number): Promise<WindowCounts> {
      return run((s) => {
        const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
        const total: Bucket = { success: 0, degraded: 0, error: 0, latency: new LatencyHistogram(), last: 0 };
        for (const row of s.rollupsSince.all(monitorId, firstHour)) {
          total.success += row.success_count;
          total.degraded += row.degraded_count;
          total.error += row.error_count;
          total.latency.merge(LatencyHistogram.decode(row.latency));
          total.last = Math.max(total.last, row.last_ping_at);
        }
        for (const row of s.rawBetween.all(monitorId, from, firstHour)) {
          count(total, row.result, row.latency_ms, row.started_at);
        }
        return { successCount: total.success, degradedCount: total.degraded, errorCount: total.error, latency: total.latency, lastPingAt: total.last || null };
      });
    },

    states(monitorId: number): Promise<RunnerState[]> {
      return run((s) =>
        s.states.all(monitorId).map((r) => ({
          runner: r.runner,
          result: r.result,
          regions: JSON.parse(r.regions) as string[],
          checkedAt: r.checked_at,
        })),
      );
    },

    /** Results of one monitor since `from`, newest first. */
    results(monitorId: number, from: number, limit: number, offset: number): Promise<CheckResultRow[]> {
      return run((s) => s.results.all(monitorId, from, limit, offset));
    },

    result(id: number): Promise<CheckResultRow | undefined> {
      return run((s) => s.result.get(id));
    },

    recordGap(runner: string, startedAt: number, endedAt: number): Promise<void> {
      return run((s) => void s.insertGap.run(runner, startedAt, endedAt));
    },

    gaps(from: number): Promise<GapRow[]> {
      return run((s) => s.gapsSince.all(from));
    },

    /**
     * Deletes raw results older than the retention, then the oldest beyond maxRawResults (ids
     * grow with every row), a chunk per transaction so writers are never held up for long, and
     * rollups and gaps older than theirs, once per hour. Returns the rows deleted.
     */
    async prune(now: number): Promise<number> {
      let deleted = 0;
      for (;;) {
        const changes = await run((s) => s.pruneResults.run(now - RAW_RETENTION_MS).changes);
        deleted += changes;
        if (changes < PRUNE_CHUNK) break;
      }
      for (;;) {
        // Ids of deleted monitors' rows are gaps: the last maxRawResults ids hold that many rows at most.
        const changes = await run((s) => s.pruneResultsBefore.run((s.lastId.get() ?? 0) - maxRawResults + 1).changes);
        deleted += changes;
        if (changes < PRUNE_CHUNK) break;
      }
      // Rollups and gaps age by the hour: once an hour is enough, however often raw results are pruned.
      if (hourOf(now) === rollupsPrunedHour) return deleted;
      rollupsPrunedHour = hourOf(now);
      for (let after = 0; ; ) {
        const ids = await run((s, sqlite) =>
          sqlite.transaction(() => {
            const chunk = s.monitorIdsFrom.all(after, ROLLUP_PRUNE_MONITORS);
            for (const id of chunk) s.pruneRollups.run(id, now - ROLLUP_RETENTION_MS);
            return chunk;
          })(),
        );
        if (ids.length < ROLLUP_PRUNE_MONITORS) break;
        after = ids.at(-1)!;
      }
      await run((s) => s.pruneGaps.run(now - ROLLUP_RETENTION_MS));
      return deleted;
    },
  };
}

export type ResultStore = ReturnType<typeof createResultStore>;
