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

/** One check of one monitor: the record shown by every surface. */
export interface CheckResult {
  monitorId: string;
  region: string;
  runner: string;
  startedAt: string;
  result: CheckOutcome;
  latencyMs: number;
  timing: Timing;
  attempts: number;
  message: string;
  grpcStatus: string | null;
  statusCode: number | null;
  responseHeaders: Record<string, string>;
  assertionResults: { assertion: string; passed: boolean; actual: string }[];
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
