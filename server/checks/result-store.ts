import { isPostgres } from '../db/engine.ts';
import type { Db } from '../db/open.ts';
import type { CheckResultRow } from '../db/schema.ts';
import type { CheckOutcome } from '../domain/monitors/check-results.ts';
import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';
import { EMBEDDED_RUNNER } from '../domain/locations/location-repository.ts';
import { postgresResultTables } from './result-store-postgres.ts';
import { sqliteResultTables } from './result-store-sqlite.ts';
import {
  type Bucket,
  count,
  DAY_MS,
  type GapRow,
  HOUR_MS,
  hourOf,
  PRUNE_CHUNK,
  ROLLUP_PRUNE_MONITORS,
  type StoredCheck,
  type StoredTransition,
  type WithinWrite,
} from './result-tables.ts';

export { DAY_MS, HOUR_MS, hourOf, type StoredCheck, type StoredTransition, type WithinWrite };

/**
 * Where check results live: raw results (kept RAW_RETENTION_MS, and at most maxRawResults rows),
 * hourly rollups that answer summaries, the latest result per monitor and runner, and each
 * monitor's overall state. Written in batches, one transaction each, on SQLite or PostgreSQL (the
 * engine's tables are chosen once, when the store is made).
 */

/** Raw results are kept 14 days (the longest summary window and response-log window). */
const RAW_RETENTION_MS = 14 * DAY_MS;
/** Rollups and gaps are kept 90 days, for uptime history. */
const ROLLUP_RETENTION_MS = 90 * DAY_MS;
/**
 * Rollups stay hourly for 15 days: every summary and latency series (at most 14 days, in buckets
 * of up to 2 hours) reads whole hours. Older ones are folded into a row per monitor and UTC day,
 * at its first hour, which is all the 90-day uptime history reads: 24 times fewer rows.
 */
const HOURLY_ROLLUPS_MS = 15 * DAY_MS;
/**
 * Raw results kept at most, newest first: 10 million checks take about 1.3 GB (about 130 bytes
 * each with their indexes), a day of 35,000 monitors at 30 s. Below that many monitors the 14 days
 * of RAW_RETENTION_MS are what bounds the file.
 */
export const DEFAULT_MAX_RAW_RESULTS = 10_000_000;

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

interface ResultStoreOptions {
  /** Raw results kept at most; the oldest go first. */
  maxRawResults?: number;
}

export function createResultStore(db: Db, options: ResultStoreOptions = {}) {
  const maxRawResults = options.maxRawResults ?? DEFAULT_MAX_RAW_RESULTS;
  const tables = isPostgres(db) ? postgresResultTables(db) : sqliteResultTables(db);
  /** The hour whose rollups and gaps were last pruned. */
  let rollupsPrunedHour: number | undefined;
  /** The day before which rollups were last folded by day (later checks of those days stay hourly until the next start: still counted in their day). */
  let foldedBefore = 0;

  /** Runs `chunk` over every monitor, ROLLUP_PRUNE_MONITORS at a time (each a transaction). */
  async function forEveryMonitor(chunk: (after: number) => Promise<number[]>): Promise<void> {
    for (let after = 0; ; ) {
      const ids = await chunk(after);
      if (ids.length < ROLLUP_PRUNE_MONITORS) break;
      after = ids.at(-1)!;
    }
  }

  return {
    /**
     * Stores a batch in one transaction: raw rows, the hourly rollups they fall in, the latest
     * state per monitor and runner, and each monitor's overall state with when it last changed
     * (the first check counts). Checks of monitors deleted meanwhile are dropped. `within` runs in
     * the same transaction: when it fails, nothing is stored. Returns the checks that were
     * stored, in order, each with the overall state before and after it: however many processes
     * write checks of one monitor, each change of its state is returned by one write only.
     */
    write(checks: StoredCheck[], within?: WithinWrite): Promise<StoredTransition[]> {
      return tables.write(checks, within);
    },

    /** The database as the engine's own periodic writes reach it (see ResultTables). */
    engineWrites: tables.engineWrites,

    /** A deleted monitor: its overall state is no longer kept. */
    forget(monitorId: number): void {
      tables.forget(monitorId);
    },

    /**
     * Drops the latest states of runners that no longer check a monitor (the embedded runner once
     * the monitor has no regions; a private location it no longer chooses, or that was deleted or
     * renamed), of one monitor or of every one: its overall state is the worst of the runners that
     * check it. The stored overall state is left to the monitor's next check, which announces the
     * change (a monitor that was down only where it is no longer checked recovers).
     */
    async dropStaleStates(monitorId?: number): Promise<void> {
      await db
        .deleteFrom('check_state')
        .$if(monitorId !== undefined, (q) => q.where('monitor_id', '=', monitorId!))
        .where((eb) =>
          eb.or([
            eb.and([
              eb('runner', '=', EMBEDDED_RUNNER),
              eb.exists(eb.selectFrom('monitors as m').select('m.id').whereRef('m.id', '=', 'check_state.monitor_id').where('m.regions', '=', '[]')),
            ]),
            eb.and([
              eb('runner', '!=', EMBEDDED_RUNNER),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('monitor_private_locations as l')
                    .innerJoin('private_locations as p', 'p.id', 'l.location_id')
                    .select('l.location_id')
                    .whereRef('l.monitor_id', '=', 'check_state.monitor_id')
                    .whereRef('p.name', '=', 'check_state.runner'),
                ),
              ),
            ]),
          ]),
        )
        .execute();
      tables.forget(monitorId);
    },

    /** Counts and latency of the checks in [from, now]: whole hours from rollups, the partial first hour from raw rows. */
    async window(monitorId: number, from: number): Promise<WindowCounts> {
      const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
      const total: Bucket = { success: 0, degraded: 0, error: 0, latency: new LatencyHistogram(), last: 0 };
      for (const row of await tables.rollupsSince(monitorId, firstHour)) {
        total.success += row.success_count;
        total.degraded += row.degraded_count;
        total.error += row.error_count;
        total.latency.merge(LatencyHistogram.decode(row.latency));
        total.last = Math.max(total.last, row.last_ping_at);
      }
      for (const row of await tables.rawBetween(monitorId, from, firstHour)) {
        count(total, row.result, row.latency_ms, row.started_at);
      }
      return { successCount: total.success, degradedCount: total.degraded, errorCount: total.error, latency: total.latency, lastPingAt: total.last || null };
    },

    async states(monitorId: number): Promise<RunnerState[]> {
      return (await tables.states(monitorId)).map((r) => ({
        runner: r.runner,
        result: r.result,
        regions: JSON.parse(r.regions) as string[],
        checkedAt: r.checked_at,
      }));
    },

    /** Results of one monitor since `from`, newest first. */
    results(monitorId: number, from: number, limit: number, offset: number): Promise<CheckResultRow[]> {
      return tables.results(monitorId, from, limit, offset);
    },

    result(id: number): Promise<CheckResultRow | undefined> {
      return tables.result(id);
    },

    recordGap(runner: string, startedAt: number, endedAt: number): Promise<void> {
      return tables.insertGap(runner, startedAt, endedAt);
    },

    gaps(from: number): Promise<GapRow[]> {
      return tables.gapsSince(from);
    },

    /**
     * Deletes raw results older than the retention, then the oldest beyond maxRawResults (ids
     * grow with every row), a chunk per transaction so writers are never held up for long, and
     * rollups and gaps older than theirs, once per hour; folds the hourly rollups of each day
     * past HOURLY_ROLLUPS_MS into one, once per day. Returns the raw rows deleted.
     */
    async prune(now: number): Promise<number> {
      let deleted = 0;
      for (const pruneChunk of [() => tables.pruneResultsBefore(now - RAW_RETENTION_MS), () => tables.pruneResultsBeyond(maxRawResults)]) {
        for (;;) {
          const changes = await pruneChunk();
          deleted += changes;
          if (changes < PRUNE_CHUNK) break;
        }
      }
      // Rollups and gaps age by the hour: once an hour is enough, however often raw results are pruned.
      if (hourOf(now) === rollupsPrunedHour) return deleted;
      rollupsPrunedHour = hourOf(now);
      await forEveryMonitor((after) => tables.pruneRollups(after, now - ROLLUP_RETENTION_MS));
      await tables.pruneGaps(now - ROLLUP_RETENTION_MS);
      const foldBefore = Math.floor((now - HOURLY_ROLLUPS_MS) / DAY_MS) * DAY_MS;
      if (foldBefore > foldedBefore) {
        const from = Math.max(foldedBefore, Math.floor((now - ROLLUP_RETENTION_MS) / DAY_MS) * DAY_MS);
        await forEveryMonitor((after) => tables.foldDays(after, from, foldBefore));
        foldedBefore = foldBefore;
      }
      return deleted;
    },
  };
}

export type ResultStore = ReturnType<typeof createResultStore>;
