import { z } from 'zod';
import { MONITOR_LIMITS } from '../../../contract/limits.ts';
import { LatencyHistogram } from './latency-histogram.ts';
import { toResponseLog } from './check-records.ts';
import { driftedMonitorIds } from './tool-pin-repository.ts';
import type { Db } from '../../db/open.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { planOfWorkspace } from '../plans.ts';
import { defaultTcpRegions, regions as regionCatalogue } from '../regions.ts';
import { builtOnFirstUse, ID_PATTERN, parseInput } from '../validation.ts';
import {
  type CertificateCheck,
  type CheckOutcome,
  type DnsCheck,
  type HeartbeatCheck,
  type McpCheck,
  type PingCheck,
  type RegionHealth,
  type SummaryWindow,
  summaryWindows,
  type Timing,
  type WebSocketCheck,
} from './check-results.ts';
import { type MonitorType, monitorTypeNames } from './monitor-types.ts';
import { monitorLocationNames } from './monitor-repository.ts';
import {
  fold,
  gapsSince,
  type GroupSummary,
  groupSummaries,
  latestChecks,
  latestResults,
  type MonitorState,
  monitorRegions,
  monitorStates,
  overviewPage,
  rawOutcomes,
  recentOutcomes,
  registerFold,
  rollups,
  stateCounts,
  workspaceGroups,
  workspaceTags,
} from './view-repository.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const SPARKLINE_HOURS = 24;
const MAX_OVERVIEW_LIMIT = 200;
/** Collapsed groups one overview request may name. */
const MAX_COLLAPSED = 1_000;
const DEFAULT_OVERVIEW_LIMIT = 100;
/** Past this, an offset is not a page anyone scrolls to. */
const MAX_OFFSET = 1_000_000;
const MAX_RESULTS = 100;
/**
 * A rollup can still change after its hour: a check is counted in the hour it started, and with
 * its retries one can take many minutes. An hour that ended this long ago is taken as final.
 */
const FINAL_AFTER_MS = HOUR_MS;
/** Medians of final hours kept (about 20 bytes each); past this the memo starts again. */
const MEDIAN_MEMO_LIMIT = 100_000;
const DEFAULT_RESULTS = 20;

/** Each window's buckets: 1d from raw results (kept 14 days), 7d and 14d from the hourly rollups. */
const SERIES: Record<SummaryWindow, { windowMs: number; bucketMs: number; raw: boolean }> = {
  '1d': { windowMs: DAY_MS, bucketMs: 15 * MINUTE_MS, raw: true },
  '7d': { windowMs: 7 * DAY_MS, bucketMs: HOUR_MS, raw: false },
  '14d': { windowMs: 14 * DAY_MS, bucketMs: 2 * HOUR_MS, raw: false },
};
const HEALTH: Record<CheckOutcome, RegionHealth> = { up: 'active', degraded: 'degraded', down: 'error' };
const SEVERITY: Record<CheckOutcome, number> = { up: 0, degraded: 1, down: 2 };

export type { MonitorState };

export interface OverviewRow {
  id: string;
  name: string;
  type: MonitorType;
  /** `host:port` of a TCP or gRPC monitor, the URL of an HTTP monitor. */
  target: string;
  tags: string[];
  /** The monitor's group; '' for none. */
  group: string;
  state: MonitorState;
  lastLatencyMs: number | null;
  lastCheckedAt: string | null;
  /** When the overall state last changed (the first check counts); null before the first check. */
  changedAt: string | null;
  /** Down or degraded: the message of the latest check that was not up; null otherwise. */
  reason: string | null;
  createdAt: string;
  /** Median latency per hour over the last 24 hours, oldest first (the current hour last); null for an hour without answered checks. */
  sparkline: (number | null)[];
  /** Checks up or degraded over those 24 hours, 0 to 1; null without checks. */
  uptime: number | null;
  /** The latest checks' outcomes, oldest first, one letter each: `u` up, `d` degraded, `x` down. */
  recent: string;
  /** MCP monitors: its server changed its tools since they were pinned, and nobody accepted them yet. */
  toolsChanged: boolean;
}

export interface Overview {
  monitors: OverviewRow[];
  /** Monitors that match the query, across all pages. */
  total: number;
  /** Monitors of the workspace in each state, whatever the query. */
  counts: Record<MonitorState, number>;
  /** Every tag used in the workspace. */
  tags: string[];
  /** Every group used in the workspace. */
  groupNames: string[];
  /** Grouped: the groups of the monitors that match, in the rows' order (see groupSummaries); empty otherwise. */
  groups: GroupSummary[];
}

export interface LatencyPoint {
  at: string;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  up: number;
  degraded: number;
  down: number;
}

export interface LatencySeries {
  window: SummaryWindow;
  bucketMs: number;
  points: LatencyPoint[];
  gaps: { startedAt: string; endedAt: string }[];
}

/**
 * One check as the dashboard lists it: once, with every region it stood for and the runner that
 * made it (`local` for this machine, or a private location's name). The API's response logs list
 * a check once per region, as the SPEC's wire has it; a person reading the list wants the check.
 */
export interface RecentResult {
  id: string;
  regions: string[];
  runner: string;
  startedAt: string;
  result: CheckOutcome;
  latencyMs: number;
  timing: Timing;
  attempts: number;
  message: string;
  grpcStatus: string | null;
  statusCode: number | null;
  /** MCP monitors: what the check found, its tools counted (their texts are GetMCPTools'); null for other types. */
  mcp: RecentMcpCheck | null;
  /** DNS monitors: the name asked about, the response code, the resolver that answered, the answers and the rules held to them; null for other types. */
  dns: DnsCheck | null;
  /** Checks that made a TLS handshake (certificate monitors, HTTPS, gRPC over TLS): the server's certificate; null otherwise. */
  certificate: CertificateCheck | null;
  /** Ping monitors: the packets of the last round and their round trips; null for other types and when ping did not run. */
  ping: PingCheck | null;
  /** WebSocket monitors: how the handshake and the expected message went (the handshake's status is `statusCode`); null for other types. */
  websocket: WebSocketCheck | null;
  /** Heartbeat monitors: the latest ping, the run it ended, and when the next is expected; null for other types. */
  heartbeat: HeartbeatCheck | null;
}

/** What a check of an MCP server found, as the dashboard lists checks: the tools as a count. */
export type RecentMcpCheck = Omit<McpCheck, 'tools'> & { toolCount: number };

function recentMcpCheck({ tools, ...found }: McpCheck): RecentMcpCheck {
  return { ...found, toolCount: tools.length };
}

export interface RegionRunnerHealth {
  region: string;
  status: RegionHealth | null;
  lastCheckedAt: string | null;
  /** The runner whose check the status comes from; null when none has checked the region. */
  runner: string | null;
}

export interface PlanAllowance {
  plan: string;
  frequencies: string[];
  regions: string[];
  defaultTcpRegions: string[];
  auditLog: boolean;
  subscriberNotifications: boolean;
}

/** A whole number written in decimal, within [min, max]. Query values arrive as text. */
function wholeNumber(min: number, max: number, fallback: number) {
  const rule = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,9}$/, rule)
    .transform(Number)
    .pipe(z.number().min(min, rule).max(max, rule))
    .optional()
    .transform((n) => n ?? fallback);
}

/** An optional text filter; empty means none. */
const textFilter = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/**
 * Monitor ids separated by commas (`ids=12,40`): the monitors a picker has chosen, shown whether
 * or not a search finds them. An id of no monitor of the workspace matches nothing.
 */
const idList = (max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const ids = v.split(',').filter((id) => id !== '');
      if (ids.length > max) ctx.addIssue({ code: 'custom', message: `must name at most ${max} monitors` });
      else if (ids.some((id) => !ID_PATTERN.test(id))) ctx.addIssue({ code: 'custom', message: 'must be monitor ids separated by commas' });
      return ids.map(Number);
    });

/** Group names as a JSON array (`collapsed=["Databases",""]`), '' for no group: at most as many as a workspace could have. */
const groupList = () =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return [];
      const rule = `must be a JSON array of at most ${MAX_COLLAPSED} group names`;
      let names: unknown;
      try {
        names = JSON.parse(v);
      } catch {
        names = undefined;
      }
      if (!Array.isArray(names) || names.length > MAX_COLLAPSED || names.some((n) => typeof n !== 'string' || n.length > MONITOR_LIMITS.groupLength)) {
        ctx.addIssue({ code: 'custom', message: rule });
        return [];
      }
      return names as string[];
    });

const overviewQuery = builtOnFirstUse(() =>
  z.object({
    q: textFilter(200),
    state: z.enum(monitorStates, { error: `must be one of ${monitorStates.join(', ')}` }).optional(),
    type: z.enum(monitorTypeNames, { error: `must be one of ${monitorTypeNames.join(', ')}` }).optional(),
    tag: textFilter(100),
    ids: idList(MAX_OVERVIEW_LIMIT),
    grouped: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    collapsed: groupList(),
    limit: wholeNumber(1, MAX_OVERVIEW_LIMIT, DEFAULT_OVERVIEW_LIMIT),
    offset: wholeNumber(0, MAX_OFFSET, 0),
  }),
);

const latencyQuery = builtOnFirstUse(() =>
  z.object({
    window: z.enum(summaryWindows, { error: `must be one of ${summaryWindows.join(', ')}` }).default('1d'),
  }),
);

const resultsQuery = builtOnFirstUse(() => z.object({ limit: wholeNumber(1, MAX_RESULTS, DEFAULT_RESULTS) }));

/** Monitor ids are positive integers; anything else names no monitor of the workspace. */
function monitorIdOf(id: string): number {
  const value = /^\d{1,15}$/.test(id) ? Number(id) : 0;
  if (value < 1) throw notFound('monitor', id);
  return value;
}

const iso = (ms: number) => new Date(ms).toISOString();

interface Bucket {
  up: number;
  degraded: number;
  down: number;
  latency: LatencyHistogram;
}

/** One hour of a monitor as the overview reads it: median latency of answered checks, and the counts. */
interface HourFigures {
  median: number | null;
  /** Checks up or degraded. */
  answered: number;
  checks: number;
}

const NO_CHECKS: HourFigures = Object.freeze({ median: null, answered: 0, checks: 0 });

/** The overview's bar of latest checks: this many, one letter each. */
const RECENT_CHECKS = 30;
const OUTCOME_LETTER: Record<CheckOutcome, string> = { up: 'u', degraded: 'd', down: 'x' };

const emptyBucket = (): Bucket => ({ up: 0, degraded: 0, down: 0, latency: new LatencyHistogram() });

function toPoint(at: number, bucket: Bucket): LatencyPoint {
  const q = (p: number) => bucket.latency.quantile(p) ?? null;
  return { at: iso(at), p50: q(0.5), p95: q(0.95), p99: q(0.99), up: bucket.up, degraded: bucket.degraded, down: bucket.down };
}

/**
 * What the dashboard's screens read about monitors: the overview of a workspace, one monitor's
 * latency over time, its latest results and its regions, and what the plan allows. Read-only.
 */
export function createMonitorViewService(db: Db, now: () => number = Date.now) {
  let folding: Promise<void> | undefined;
  /**
   * Median latency and outcome counts of final hours, by monitor and hour: decoding the histograms
   * of a page's 2,400 hours costs more than the rest of an overview, and the UI asks for the same
   * page again and again.
   */
  const medians = new Map<number, Map<number, HourFigures>>();
  let memoized = 0;

  /**
   * The monitor's id and regions (then its private locations by name) after the workspace check;
   * not found when it is another workspace's.
   */
  async function readable(actor: Actor, workspaceId: number, id: string): Promise<{ monitorId: number; regions: string[] }> {
    await authorize(db, actor, workspaceId, 'read');
    const monitorId = monitorIdOf(id);
    const regions = await monitorRegions(db, workspaceId, monitorId);
    if (!regions) throw notFound('monitor', id);
    // A private location's results stand as a region named by the location.
    return { monitorId, regions: [...regions, ...(await monitorLocationNames(db, monitorId))] };
  }

  /**
   * Each monitor's 24 hours up to and including the current one: the median latency per hour (the
   * sparkline) and the share of checks up or degraded over them (its uptime), from the same rollups.
   */
  async function sparklines(monitorIds: number[]): Promise<Map<number, { line: (number | null)[]; uptime: number | null }>> {
    const t = now();
    const lastHour = Math.floor(t / HOUR_MS) * HOUR_MS;
    const firstHour = lastHour - (SPARKLINE_HOURS - 1) * HOUR_MS;
    const hours = Array.from({ length: SPARKLINE_HOURS }, (_, i) => firstHour + i * HOUR_MS);
    const isFinal = (hour: number) => hour + HOUR_MS + FINAL_AFTER_MS <= t;
    // Monitors with every final hour known need only the hours that may still change.
    const known = new Set(monitorIds.filter((id) => hours.every((hour) => !isFinal(hour) || medians.get(id)?.has(hour))));
    const unknown = monitorIds.filter((id) => !known.has(id));
    const openFrom = hours.find((hour) => !isFinal(hour))!;
    const [recent, whole] = await Promise.all([rollups(db, [...known], openFrom, lastHour + HOUR_MS), rollups(db, unknown, firstHour, lastHour + HOUR_MS)]);
    const found = new Map<string, HourFigures>();
    for (const row of [...recent, ...whole])
      found.set(`${row.monitor_id}:${row.hour}`, {
        median: LatencyHistogram.decode(row.latency).quantile(0.5) ?? null,
        answered: row.success_count + row.degraded_count,
        checks: row.success_count + row.degraded_count + row.error_count,
      });
    if (memoized > MEDIAN_MEMO_LIMIT) {
      medians.clear();
      memoized = 0;
    }
    const lines = new Map<number, { line: (number | null)[]; uptime: number | null }>();
    for (const id of monitorIds) {
      let memo = medians.get(id);
      if (!memo) medians.set(id, (memo = new Map()));
      for (const hour of memo.keys()) {
        if (hour >= firstHour) continue;
        memo.delete(hour);
        memoized--;
      }
      const figures = hours.map((hour) => {
        if (!isFinal(hour)) return found.get(`${id}:${hour}`) ?? NO_CHECKS;
        if (!memo.has(hour)) {
          memo.set(hour, found.get(`${id}:${hour}`) ?? NO_CHECKS);
          memoized++;
        }
        return memo.get(hour)!;
      });
      let answered = 0;
      let checks = 0;
      for (const hour of figures) {
        answered += hour.answered;
        checks += hour.checks;
      }
      lines.set(id, { line: figures.map((hour) => hour.median), uptime: checks === 0 ? null : answered / checks });
    }
    return lines;
  }

  return {
    /**
     * The workspace's monitors in the order that needs attention first (down, degraded, pending,
     * up, paused, then by name and id), filtered by `q` (name, target or a tag), state, type and
     * tag, one page at a time; with counts by state and the tags of the whole workspace.
     */
    async overview(actor: Actor, workspaceId: number, query: unknown): Promise<Overview> {
      await authorize(db, actor, workspaceId, 'read');
      const input = parseInput(overviewQuery(), query);
      await (folding ??= registerFold(db));
      const filter = { q: input.q === undefined ? undefined : fold(input.q), state: input.state, type: input.type, tag: input.tag, ids: input.ids };
      const grouped = input.grouped === 'true';
      const grouping = grouped ? { collapsed: input.collapsed } : undefined;
      const { rows, total } = await overviewPage(db, workspaceId, filter, input.limit, input.offset, grouping);
      const ids = rows.map((r) => r.id);
      const [counts, tags, groupNames, groups, latest, lines, recent, drifted] = await Promise.all([
        stateCounts(db, workspaceId),
        workspaceTags(db, workspaceId),
        workspaceGroups(db, workspaceId),
        grouped ? groupSummaries(db, workspaceId, filter) : [],
        latestChecks(db, ids),
        sparklines(ids),
        recentOutcomes(db, ids, RECENT_CHECKS),
        driftedMonitorIds(
          db,
          rows.filter((row) => row.type === 'mcp').map((row) => row.id),
        ),
      ]);
      const last = new Map<number, { checkedAt: number; latencyMs: number | null }>();
      for (const check of latest) {
        const seen = last.get(check.monitor_id);
        // A failed check's duration is how long it waited, not a latency: it shows none.
        const latencyMs = check.result === 'down' ? null : check.latency_ms;
        if (!seen || check.checked_at > seen.checkedAt) last.set(check.monitor_id, { checkedAt: check.checked_at, latencyMs });
      }
      const checksOf = new Map<number, typeof recent>();
      for (const check of recent) {
        const list = checksOf.get(check.monitor_id);
        if (list) list.push(check);
        else checksOf.set(check.monitor_id, [check]);
      }
      for (const list of checksOf.values()) list.sort((a, b) => b.started_at - a.started_at || b.id - a.id);
      return {
        monitors: rows.map((row) => {
          const check = last.get(row.id);
          const checks = (checksOf.get(row.id) ?? []).slice(0, RECENT_CHECKS);
          const failing = row.state === 'down' || row.state === 'degraded' ? checks.find((c) => c.result !== 'up') : undefined;
          const hours = lines.get(row.id)!;
          return {
            id: String(row.id),
            name: row.name,
            type: row.type,
            target: row.target,
            tags: JSON.parse(row.tags) as string[],
            group: row.group_name,
            state: row.state,
            lastLatencyMs: check?.latencyMs ?? null,
            lastCheckedAt: check ? iso(check.checkedAt) : null,
            changedAt: row.changed_at === null ? null : iso(row.changed_at),
            reason: failing ? failing.message : null,
            createdAt: new Date(row.created_at).toISOString(),
            sparkline: hours.line,
            uptime: hours.uptime,
            recent: checks
              .map((c) => OUTCOME_LETTER[c.result])
              .reverse()
              .join(''),
            toolsChanged: drifted.has(row.id),
          };
        }),
        total,
        counts,
        tags,
        groupNames,
        groups,
      };
    },

    /**
     * Latency percentiles (p50, p95, p99 of the checks that were up or degraded) and outcome
     * counts per bucket, over the whole window: aligned buckets from the one the window starts in
     * to the current one, empty ones included. 1d reads raw results in 15-minute buckets; 7d and
     * 14d read the hourly rollups in 1-hour and 2-hour buckets.
     */
    async latency(actor: Actor, workspaceId: number, id: string, query: unknown): Promise<LatencySeries> {
      const { monitorId } = await readable(actor, workspaceId, id);
      const { window } = parseInput(latencyQuery(), query);
      const { windowMs, bucketMs, raw } = SERIES[window];
      const t = now();
      const windowStart = t - windowMs;
      const first = Math.floor(windowStart / bucketMs) * bucketMs;
      const last = Math.floor(t / bucketMs) * bucketMs;
      const buckets = Array.from({ length: (last - first) / bucketMs + 1 }, emptyBucket);
      const bucketOf = (at: number) => buckets[Math.floor((at - first) / bucketMs)];
      if (raw) {
        for (const row of await rawOutcomes(db, monitorId, first, last + bucketMs)) {
          const bucket = bucketOf(row.started_at)!;
          bucket[row.result]++;
          // Latency percentiles describe answered checks: a failure's duration is its timeout.
          if (row.result !== 'down') bucket.latency.add(row.latency_ms);
        }
      } else {
        for (const row of await rollups(db, [monitorId], first, last + bucketMs)) {
          const bucket = bucketOf(row.hour)!;
          bucket.up += row.success_count;
          bucket.degraded += row.degraded_count;
          bucket.down += row.error_count;
          bucket.latency.merge(LatencyHistogram.decode(row.latency));
        }
      }
      const gaps = (await gapsSince(db, windowStart)).map((g) => ({ startedAt: iso(Math.max(g.started_at, windowStart)), endedAt: iso(g.ended_at) }));
      return { window, bucketMs, points: buckets.map((bucket, i) => toPoint(first + i * bucketMs, bucket)), gaps };
    },

    /** The monitor's latest checks, newest first, one entry per check with the regions it stood for; any monitor type. */
    async results(actor: Actor, workspaceId: number, id: string, query: unknown): Promise<RecentResult[]> {
      const { monitorId } = await readable(actor, workspaceId, id);
      const { limit } = parseInput(resultsQuery(), query);
      return (await latestResults(db, monitorId, limit)).map((row) => {
        const regions = JSON.parse(row.regions) as string[];
        // The record of the check, read once: only its region differs between the wire's entries.
        const log = toResponseLog(row, regions[0] ?? '');
        return {
          id: String(row.id),
          regions,
          runner: log.runner,
          startedAt: log.startedAt,
          result: log.result,
          latencyMs: log.latencyMs,
          timing: log.timing,
          attempts: log.attempts,
          message: log.message,
          grpcStatus: log.grpcStatus,
          statusCode: log.statusCode,
          mcp: log.mcp ? recentMcpCheck(log.mcp) : null,
          dns: log.dns ?? null,
          certificate: log.certificate ?? null,
          ping: log.ping ?? null,
          websocket: log.websocket ?? null,
          heartbeat: log.heartbeat ?? null,
        };
      });
    },

    /**
     * The monitor's health in each of its regions: the latest check of a runner that served the
     * region, and that runner (as GetMonitorStatus answers, with the runner).
     */
    async regions(actor: Actor, workspaceId: number, id: string): Promise<RegionRunnerHealth[]> {
      const { monitorId, regions } = await readable(actor, workspaceId, id);
      const states = (await latestChecks(db, [monitorId])).map((s) => ({ ...s, regions: JSON.parse(s.regions) as string[] }));
      return regions.map((region) => {
        const latest = states
          .filter((s) => s.regions.includes(region))
          .sort((a, b) => b.checked_at - a.checked_at || SEVERITY[b.result] - SEVERITY[a.result])[0];
        return latest
          ? { region, status: HEALTH[latest.result], lastCheckedAt: iso(latest.checked_at), runner: latest.runner }
          : { region, status: null, lastCheckedAt: null, runner: null };
      });
    },

    /** What the workspace's plan allows: frequencies, regions, and its features. */
    async plan(actor: Actor, workspaceId: number): Promise<PlanAllowance> {
      await authorize(db, actor, workspaceId, 'read');
      const plan = await planOfWorkspace(db, workspaceId);
      return {
        plan: plan.name,
        frequencies: [...plan.frequencies],
        regions: regionCatalogue.map((r) => r.id),
        defaultTcpRegions: defaultTcpRegions(plan),
        auditLog: plan.auditLog,
        subscriberNotifications: plan.subscriberNotifications,
      };
    },
  };
}

export type MonitorViewService = ReturnType<typeof createMonitorViewService>;
