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

/** How an MCP server answered a check, or why it did not (docs/reference/monitors.md, MCP). */
export const mcpStatuses = ['OK', 'SIGN_IN_NEEDED', 'UNREACHABLE', 'TIMEOUT', 'HANDSHAKE_REFUSED', 'PROTOCOL_ERROR', 'PROCESS_EXITED'] as const;
export type McpStatus = (typeof mcpStatuses)[number];

/** One tool as a check of an MCP server found it. */
export interface McpTool {
  name: string;
  /** SHA-256 (hex) of `text`. */
  fingerprint: string;
  /**
   * What is fingerprinted: the tool's name, title, description, input and output schema and
   * annotations as canonical JSON (keys sorted), the text a drift's diff shows.
   */
  text: string;
}

/** What a check of an MCP server found out, besides its outcome. */
export interface McpCheck {
  status: McpStatus;
  /** The protocol revision the server agreed to, e.g. `2025-06-18`; null before the handshake. */
  protocolVersion: string | null;
  serverName: string | null;
  serverVersion: string | null;
  /** Every tool of every page, by name; empty when the listing did not happen. */
  tools: McpTool[];
  /** Counts of prompts and resources; null where the server does not declare them. */
  prompts: number | null;
  resources: number | null;
  /** Tool texts that carry invisible or bidirectional control characters, one line each. */
  warnings: string[];
  /** stdio: the exit code of a server that exited during the check. */
  exitCode: number | null;
  /** stdio: the last lines the server wrote to stderr, kept with a failed check. */
  stderrTail: string;
  /** SIGN_IN_NEEDED: the server's WWW-Authenticate header. */
  signIn: string | null;
}

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
  /** MCP monitors: the handshake, the listing and the tools found; absent for other types. */
  mcp?: McpCheck | null;
}

/**
 * The records of ProbeResult that only some types find out, each stored under its own key of a
 * check's details (checks/result-tables.ts) and read back as it was stored (check-records.ts).
 */
export const TYPE_DETAILS = ['mcp'] as const satisfies readonly (keyof ProbeResult)[];
export type TypeDetails = Partial<Pick<ProbeResult, (typeof TYPE_DETAILS)[number]>>;

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
