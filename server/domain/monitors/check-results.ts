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

/** How a WebSocket check went, or why it failed (docs/reference/monitors.md, WebSocket). */
export const websocketStatuses = [
  'OK',
  'UNREACHABLE',
  'TIMEOUT',
  'HANDSHAKE_REFUSED',
  'SUBPROTOCOL_REFUSED',
  'CLOSED',
  'UNEXPECTED_MESSAGE',
  'MESSAGE_TOO_LARGE',
  'PROTOCOL_ERROR',
] as const;
export type WebSocketStatus = (typeof websocketStatuses)[number];

/**
 * What a WebSocket check found out, besides its outcome and the handshake's HTTP status
 * (`statusCode`). Never a message's text: whether it held the expected text, and its size.
 */
export interface WebSocketCheck {
  status: WebSocketStatus;
  /** The subprotocol the server agreed to; null when none was asked for or the upgrade failed. */
  subprotocol: string | null;
  /** The server closed the socket before the check was done: its close code (1006: dropped without a close frame); else null. */
  closeCode: number | null;
  /** The reason the server gave with its close code (at most 123 bytes, one line); empty without one. */
  closeReason: string;
  /** Whether the first message received contained the expected text; null when none was expected or none arrived. */
  expectedMatched: boolean | null;
  /** The size in bytes of the first message received; null when none arrived or none was waited for. */
  messageBytes: number | null;
}

/**
 * What a check of a ping monitor found out: the packets of its last round and their round-trip
 * times, as the system's ping reported them.
 */
export interface PingCheck {
  /** The address pinged: the host, or what its name resolved to. */
  address: string;
  transmitted: number;
  received: number;
  /** Of the packets transmitted, in percent (0 to 100). */
  lossPercent: number;
  /** Round-trip times of the answered packets in milliseconds; null when none was answered. */
  rttMinMs: number | null;
  rttAvgMs: number | null;
  rttMaxMs: number | null;
}

/**
 * The certificate a TLS server presented, as a check found it: recorded by every check that makes
 * a TLS handshake (certificate monitors judge it; HTTPS, gRPC over TLS and others carry it).
 */
export interface CertificateCheck {
  /** The leaf's subject, e.g. `CN=shop.example.com, O=Example`. */
  subject: string;
  /** Who signed it, e.g. `CN=R11, O=Let's Encrypt, C=US`. */
  issuer: string;
  /** Its subject alternative names as OpenSSL writes them: `DNS:shop.example.com`, `IP Address:127.0.0.1`. */
  subjectAltNames: string[];
  /** ISO times of its validity. */
  notBefore: string;
  notAfter: string;
  /** Whole days from the check to notAfter: 0 on its last day, negative once expired. */
  daysLeft: number;
  /** SHA-256 of the certificate (DER), upper-case hex bytes joined by colons. */
  fingerprintSha256: string;
  /** Its serial number in hex. */
  serialNumber: string;
  /** Whether its chain verifies against the trust store of the checks. */
  verified: boolean;
  /** Whether it is for `serverName`. */
  nameMatches: boolean;
  /** The name it was checked for: the name sent in SNI, or the IP address connected to. */
  serverName: string;
  /** Why it does not verify or is not for the name, in words; null when it verifies and matches. */
  error: string | null;
}

/** The response codes a DNS check records (RFC 1035 4.1.1, RFC 6895): NOERROR also for an answer with no records. */
export const dnsResponseCodes = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'] as const;
export type DnsResponseCode = (typeof dnsResponseCodes)[number];

/** What a DNS check found out, besides its outcome (docs/reference/monitors.md, DNS). */
export interface DnsCheck {
  /** The name asked about: the monitor's, or for PTR of an IP address its reverse name (`10.2.0.192.in-addr.arpa`). */
  name: string;
  /** `A`, `MX`, …. */
  recordType: string;
  /** The answer's response code; null when no answer came (timed out, unreachable, refused by the destination policy). */
  rcode: DnsResponseCode | null;
  /** The resolver that answered, `192.168.1.1:53` (or the last one asked when none did); null when none was asked. */
  resolver: string | null;
  /** Whether it is one of the system's resolvers, not one the monitor names. */
  systemResolver: boolean;
  /**
   * The answers, each in one written form: an address (IPv6 compressed), a name (lower case, no
   * final dot), MX `10 mail.example.com`, SRV `priority weight port target`, SOA `primary mailbox
   * serial refresh retry expire minimum`, TXT its strings joined.
   */
  answers: string[];
  /** Each rule the monitor holds the answers to: what, whether it held, what was found. */
  assertions: AssertionResult[];
}

/** Where a heartbeat monitor stands (docs/reference/monitors.md, Heartbeat). */
export const heartbeatStatuses = ['OK', 'RUNNING', 'FAILED', 'MISSED', 'NEVER_PINGED', 'DID_NOT_FINISH'] as const;
export type HeartbeatStatus = (typeof heartbeatStatuses)[number];
export const heartbeatPingKinds = ['success', 'start', 'fail'] as const;
export type HeartbeatPingKind = (typeof heartbeatPingKinds)[number];

/**
 * A heartbeat monitor's state when a result was recorded (on a ping, at its deadline, or on its
 * schedule): its latest ping, the run that ping ended, and when the next is expected.
 */
export interface HeartbeatCheck {
  status: HeartbeatStatus;
  /** The latest ping's kind; null before the first. */
  pingKind: HeartbeatPingKind | null;
  /** The exit status the latest ping reported; null when it gave none. */
  exitStatus: number | null;
  /** The latest run time measured, from a start to its end; null when no run had both. */
  runTimeMs: number | null;
  /** ISO times: the latest ping; the next success expected; when it goes down unless pinged (null while down). */
  lastPingAt: string | null;
  expectedBy: string | null;
  downAt: string | null;
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
  /** WebSocket monitors: the handshake's outcome and the first message's size; absent for other types. */
  websocket?: WebSocketCheck | null;
  /** Ping monitors: the packets sent and answered, and the round-trip times; absent for other types. */
  ping?: PingCheck | null;
  /** Checks that made a TLS handshake: the server's certificate; absent where none was seen. */
  certificate?: CertificateCheck | null;
  /** DNS monitors: the name asked about, the response code, the resolver that answered and its answers; absent for other types. */
  dns?: DnsCheck | null;
  /** Heartbeat monitors: the latest ping, the run it ended, and when the next is expected; absent for other types. */
  heartbeat?: HeartbeatCheck | null;
}

/**
 * The records of ProbeResult that only some types find out, each stored under its own key of a
 * check's details (checks/result-tables.ts) and read back as it was stored (check-records.ts).
 */
export const TYPE_DETAILS = ['mcp', 'websocket', 'ping', 'certificate', 'dns', 'heartbeat'] as const satisfies readonly (keyof ProbeResult)[];
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
  /** The regions the check stood for (a private location's name, for its checks). */
  regions?: string[];
  /** The runner that ran the check: `local` for this machine's own. */
  runner?: string;
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
  /**
   * A monitor was created or changed (and committed): schedule it anew. With `checkNow` (a new
   * monitor, or a change to what or how it checks, or a resume) its first check runs at once,
   * then on its schedule.
   */
  monitorChanged(monitor: Monitor, change?: { checkNow: boolean }): void;
  monitorRemoved(id: string): void;
  /** A private location was renamed or deleted (and committed): monitors' states follow. */
  runnersChanged(): void;
  /**
   * A heartbeat monitor received a ping (stored and committed, heartbeats.ts): record its state
   * as a check result now, and look at its deadline anew.
   */
  heartbeatPinged(monitorId: string): void;
}
