import { AppError } from '../../errors.ts';
import type { Monitor } from './monitor-repository.ts';

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

export interface MonitorSummary {
  window: SummaryWindow;
  successCount: number;
  degradedCount: number;
  errorCount: number;
  /** Null when no check ran in the window. */
  latency: { p50: number; p75: number; p90: number; p95: number; p99: number } | null;
  lastPingAt: string | null;
}

/** What the monitor service needs from the check engine: run a check, read back results. */
export interface MonitorChecks {
  trigger(monitor: Monitor): Promise<CheckResult[]>;
  status(monitor: Monitor): Promise<RegionStatus[]>;
  summary(monitor: Monitor, window: SummaryWindow): Promise<MonitorSummary>;
}

/**
 * The answers while no check engine is attached: no check has run, so there is no health, no
 * latency and no count but zero, and a trigger is refused rather than answered with made-up data.
 */
export const noCheckEngine: MonitorChecks = {
  async trigger() {
    throw new AppError('PRECONDITION_FAILED', 'no check has run: this service has no check engine yet, so monitors cannot be checked');
  },
  async status(monitor) {
    return monitor.regions.map((region) => ({ region, status: null, lastCheckedAt: null }));
  },
  async summary(_monitor, window) {
    return { window, successCount: 0, degradedCount: 0, errorCount: 0, latency: null, lastPingAt: null };
  },
};
