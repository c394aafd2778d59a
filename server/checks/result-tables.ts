import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/open.ts';
import type { CheckResultRow } from '../db/schema.ts';
import { type CheckOutcome, type ProbeResult, TYPE_DETAILS } from '../domain/monitors/check-results.ts';
import type { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';

/**
 * The result store's tables as each engine reads and writes them (result-store-sqlite.ts,
 * result-store-postgres.ts), and the rules both follow: how a check counts in a rollup and what it
 * does to its monitor's overall state.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** Raw results deleted per statement when pruning, so writers are never held up for long. */
export const PRUNE_CHUNK = 5_000;
/** Monitors whose old rollups are deleted per transaction. */
export const ROLLUP_PRUNE_MONITORS = 1_000;

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

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

/**
 * The `details` column of a check: what only some types find out, each under its own key: the
 * final URL, headers and assertions of HTTP checks, and each type's own record (`TYPE_DETAILS`).
 * An MCP check keeps its tools by name and fingerprint: their texts are kept with the monitor's
 * pins and drifts, not with every check. Null when a check found out nothing of the kind.
 */
export function detailsOf(c: ProbeResult): string | null {
  const details: Record<string, unknown> = {};
  if (c.url !== null) Object.assign(details, { url: c.url, responseHeaders: c.responseHeaders, assertionResults: c.assertionResults });
  for (const key of TYPE_DETAILS) if (c[key]) details[key] = c[key];
  if (c.mcp) details.mcp = { ...c.mcp, tools: c.mcp.tools.map(({ name, fingerprint }) => ({ name, fingerprint, text: '' })) };
  return Object.keys(details).length === 0 ? null : JSON.stringify(details);
}

/** What a stored check did to its monitor's overall state (from === to when nothing changed). */
export interface StoredTransition {
  check: StoredCheck;
  /** Null before the monitor's first check. */
  from: CheckOutcome | null;
  to: CheckOutcome;
}

/**
 * A statement run last in the transaction of a write, stored with its checks or not at all: a
 * query compiled by Kysely (`.compile()`), as data, since on SQLite the write runs in the result
 * writer's thread.
 */
export type WithinWrite = Pick<CompiledQuery, 'sql' | 'parameters'>;

/** A monitor's latest outcome by runner (one runner for most monitors), and the overall state stored for it. */
export interface Overall {
  latest: { runner: string; result: CheckOutcome; at: number }[];
  state: CheckOutcome | null;
}

const SEVERITY: Record<CheckOutcome, number> = { up: 0, degraded: 1, down: 2 };

/**
 * Records a check (its runner, outcome and start) in its monitor's overall state, the worst of
 * its runners' latest outcomes, and returns that state before and after. As check_state keeps it,
 * a check older than its runner's latest changes nothing.
 */
export function applyCheck(overall: Overall, runner: string, result: CheckOutcome, at: number): { from: CheckOutcome | null; to: CheckOutcome } {
  const latest = overall.latest.find((l) => l.runner === runner);
  if (!latest) overall.latest.push({ runner, result, at });
  else if (at >= latest.at) {
    latest.result = result;
    latest.at = at;
  }
  const from = overall.state;
  let to: CheckOutcome = 'up';
  for (const l of overall.latest) if (SEVERITY[l.result] > SEVERITY[to]) to = l.result;
  overall.state = to;
  return { from, to };
}

/** Counts of checks and their latencies, as an hourly rollup holds them. */
export interface Bucket {
  success: number;
  degraded: number;
  error: number;
  latency: LatencyHistogram;
  last: number;
}

export function count(bucket: Bucket, result: CheckOutcome, latencyMs: number, at: number): void {
  if (result === 'down') bucket.error++;
  else {
    // Latency percentiles describe answered checks: a failure's duration is its timeout.
    if (result === 'up') bucket.success++;
    else bucket.degraded++;
    bucket.latency.add(latencyMs);
  }
  bucket.last = Math.max(bucket.last, at);
}

export interface RollupRow {
  success_count: number;
  degraded_count: number;
  error_count: number;
  latency: Buffer;
  last_ping_at: number;
}

export interface RawRow {
  result: CheckOutcome;
  latency_ms: number;
  started_at: number;
}

export interface StateRow {
  monitor_id: number;
  runner: string;
  result: CheckOutcome;
  regions: string;
  checked_at: number;
}

export interface GapRow {
  runner: string;
  started_at: number;
  ended_at: number;
}

/** What each engine does with the tables of check results. */
export interface ResultTables {
  /** See ResultStore.write. */
  write(checks: StoredCheck[], within?: WithinWrite): Promise<StoredTransition[]>;
  /** Drops what is kept in memory of one monitor's states, or of every monitor's. */
  forget(monitorId?: number): void;
  rollupsSince(monitorId: number, hour: number): Promise<RollupRow[]>;
  rawBetween(monitorId: number, from: number, to: number): Promise<RawRow[]>;
  states(monitorId: number): Promise<StateRow[]>;
  /** Newest first. */
  results(monitorId: number, from: number, limit: number, offset: number): Promise<CheckResultRow[]>;
  result(id: number): Promise<CheckResultRow | undefined>;
  insertGap(runner: string, startedAt: number, endedAt: number): Promise<void>;
  gapsSince(from: number): Promise<GapRow[]>;
  /** Deletes at most PRUNE_CHUNK raw results started before `before`; returns how many. */
  pruneResultsBefore(before: number): Promise<number>;
  /** Deletes at most PRUNE_CHUNK of the oldest raw results beyond the last `keep` ids; returns how many. */
  pruneResultsBeyond(keep: number): Promise<number>;
  /** Deletes the rollups before `before` of the next ROLLUP_PRUNE_MONITORS monitors after id `after`; returns their ids. */
  pruneRollups(after: number, before: number): Promise<number[]>;
  /**
   * Folds the rollups in [from, to) (whole UTC days) of the next ROLLUP_PRUNE_MONITORS monitors
   * after id `after` into one row per monitor and day, at the day's first hour; returns their ids.
   */
  foldDays(after: number, from: number, to: number): Promise<number[]>;
  pruneGaps(before: number): Promise<void>;
  /**
   * The database as the engine's own periodic writes reach it (its leases, its runner's
   * heartbeat): on SQLite, the result writer's connection while the writer runs.
   */
  engineWrites: Db;
}
