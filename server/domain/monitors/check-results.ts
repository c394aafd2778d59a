import type { Monitor } from './monitors.ts';

/**
 * What checks find out, as every surface shows it (results, health, summaries, response logs), and
 * MonitorChecks: the port through which the monitor service asks the check engine (server/checks)
 * for them.
 */

export const summaryWindows = ['1d', '7d', '14d'] as const;
export type SummaryWindow = (typeof summaryWindows)[number];

export type CheckOutcome = 'up' | 'degraded' | 'down';
export type RegionHealth = 'active' | 'degraded' | 'error';

/** Phase durations in milliseconds; null for a phase that did not happen. */
export interface Timing {
  dns: number | null;
  connect: number | null;
  tls: number | null;
  ttfb: number | null;
  transfer: number | null;
  total: number | null;
}

/** The answer of a gRPC health check, or why there was none (SPEC 3.1). */
export const grpcStatuses = ['SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN', 'UNIMPLEMENTED', 'DEADLINE_EXCEEDED', 'UNAVAILABLE', 'UNKNOWN'] as const;
export type GrpcStatus = (typeof grpcStatuses)[number];

export interface AssertionResult {
  /** What was asserted, e.g. `status code equal 200`. */
  assertion: string;
  passed: boolean;
  /** What the answer had, e.g. `503`. */
  actual: string;
}

/** What a probe finds out: everything of a check result but where and by whom it ran. */
export interface ProbeResult {
  result: CheckOutcome;
  /** The whole check in milliseconds, retries included. */
  latencyMs: number;
  timing: Timing;
  /** Connection attempts, retries included. */
  attempts: number;
  message: string;
  grpcStatus: GrpcStatus | null;
  /** HTTP monitors: the final response's status code. */
  statusCode: number | null;
  /** HTTP monitors: the URL of the final request (after redirects). */
  url: string | null;
  /** HTTP monitors: the final response's headers, credentials and cookies redacted. */
  responseHeaders: Record<string, string>;
  assertionResults: AssertionResult[];
}

/** One check of one monitor, standing for one region: the record shown by every surface. */
export interface CheckResult extends ProbeResult {
  monitorId: string;
  region: string;
  runner: string;
  startedAt: string;
}

export interface RegionStatus {
  region: string;
  /** Null when no check has run in the region. */
  status: RegionHealth | null;
  lastCheckedAt: string | null;
}

/** A monitor's current health: per region, and overall (the worst region). */
export interface MonitorHealth {
  /** Null when no check has run. */
  overall: RegionHealth | null;
  regions: RegionStatus[];
}

export interface MonitorSummary {
  window: SummaryWindow;
  successCount: number;
  degradedCount: number;
  errorCount: number;
  /** Percentiles of the checks that were up or degraded; null when there were none. */
  latency: { p50: number; p75: number; p90: number; p95: number; p99: number } | null;
  lastPingAt: string | null;
  /** Spans of the window in which no check ran (machine asleep, service stopped). */
  gaps: { startedAt: string; endedAt: string }[];
}

/** A stored check result as one region's response log: `id` is `<check id>-<region>`. */
export interface ResponseLog extends CheckResult {
  id: string;
}

export interface ResponseLogQuery {
  window: SummaryWindow;
  limit: number;
  offset: number;
}

/** A monitor's overall result changed: what alerts are made of. */
export interface MonitorStateChange {
  monitorId: string;
  workspaceId: string;
  /** Null before the monitor's first check. */
  from: CheckOutcome | null;
  to: CheckOutcome;
  /** `checked`: the monitor's first check, and it was up (news for its screens, not for alerts). */
  kind: 'down' | 'recovered' | 'degraded' | 'checked';
  /** When the check that changed the state started. */
  at: string;
  message: string;
}

/** What the monitor service needs from the check engine. */
export interface MonitorChecks {
  /** Runs a check now, stores it, and returns it once per region of the monitor. */
  trigger(monitor: Monitor): Promise<CheckResult[]>;
  status(monitor: Monitor): Promise<MonitorHealth>;
  summary(monitor: Monitor, window: SummaryWindow): Promise<MonitorSummary>;
  /** Check results newest first, one per region each stood for. */
  responseLogs(monitor: Monitor, query: ResponseLogQuery): Promise<ResponseLog[]>;
  /** One response log by its id, of whichever monitor; undefined when there is none. */
  responseLog(id: string): Promise<ResponseLog | undefined>;
  /** A monitor was created or changed (and committed): schedule it anew. */
  monitorChanged(monitor: Monitor): void;
  monitorRemoved(id: string): void;
  /** A private location was renamed or deleted (and committed): monitors' states follow. */
  runnersChanged(): void;
}
