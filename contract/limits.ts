// The limits the service holds what people type to, which the UI's hints and inputs state too:
// each number is written once, here, and read by the rules that enforce it (server/domain/) and
// by the forms that announce it (renderer/). Plain TypeScript that imports nothing.

/** Monitors (SPEC 2.7, 2.8). Durations in milliseconds. */
export const MONITOR_LIMITS = {
  nameLength: 200,
  descriptionLength: 2000,
  tags: 20,
  tagLength: 64,
  /** The whole check's budget. */
  timeoutMs: { min: 100, max: 120_000, default: 45_000 },
  /** Retries of a failed connection. */
  retry: { max: 10, default: 3 },
  privateLocations: 10,
  /** A gRPC monitor's service name. */
  serviceNameLength: 256,
  /** An HTTP monitor's request body. */
  bodyBytes: 64 * 1024,
  /** Of each kind (status code, header, body). */
  assertions: 20,
  headerAssertionTargetLength: 1024,
  bodyAssertionTargetLength: 10_240,
  statusCode: { min: 100, max: 599 },
  /** The port of a `host:port` target. */
  port: { min: 1, max: 65_535 },
  /** Redirects an HTTP check follows before it stops. */
  redirects: 10,
} as const;

/** Every map of request headers: an HTTP monitor's, gRPC metadata, OTLP and webhook headers. */
export const HEADER_LIMITS = {
  entries: 32,
  /** Names and values together. */
  bytes: 8 * 1024,
} as const;

/** Status pages and their components. */
export const PAGE_LIMITS = {
  titleLength: 200,
  descriptionLength: 2000,
  /** A component's name is a title too. */
  componentNameLength: 200,
  componentGroupLength: 100,
  componentPosition: 10_000,
} as const;

/** Status reports and their updates. */
export const REPORT_LIMITS = {
  titleLength: 200,
  messageLength: 10_000,
  components: 100,
} as const;

/** Maintenance windows. */
export const MAINTENANCE_LIMITS = {
  titleLength: 200,
  messageLength: 10_000,
  components: 100,
} as const;

/** Notification channels. */
export const CHANNEL_LIMITS = {
  nameLength: 200,
  /** Monitors one channel listens to. */
  monitors: 1000,
} as const;

/** Private locations: the name people give a runner, and its labels (`metadata`). */
export const LOCATION_LIMITS = {
  nameLength: { min: 2, max: 40 },
  labels: 20,
  labelNameLength: 64,
  labelValueLength: 256,
} as const;

/** API keys. */
export const KEY_LIMITS = {
  nameLength: 100,
} as const;

/** "64 KiB", "8 KiB": a size in bytes as the hints write it. */
export function kibibytes(bytes: number): string {
  return `${bytes / 1024} KiB`;
}

/** MCP server monitors: what runs a stdio server, and the listing a check reads. */
export const MCP_LIMITS = {
  /** The URL, or the command. */
  serverLength: 2048,
  args: 64,
  argLength: 4096,
  env: 64,
  /** Names and values of the environment together. */
  envBytes: 32 * 1024,
  cwdLength: 1024,
} as const;
