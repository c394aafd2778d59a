// The limits the service holds what people type to, which the UI's hints and inputs state too:
// each number is written once, here, and read by the rules that enforce it (server/domain/) and
// by the forms that announce it (renderer/). Plain TypeScript that imports nothing.

/** Monitors (SPEC 2.7, 2.8). Durations in milliseconds. */
export const MONITOR_LIMITS = {
  nameLength: 200,
  descriptionLength: 2000,
  tags: 20,
  tagLength: 64,
  /** A monitor's group on the overview ('' for none). */
  groupLength: 60,
  /** The whole check's budget. */
  timeoutMs: { min: 100, max: 120_000, default: 45_000 },
  /** Retries of a failed connection. */
  retry: { max: 10, default: 3 },
  /** How often the channels are reminded while a monitor stays down; none by default. */
  remindEveryMs: { min: 5 * 60_000, max: 7 * 86_400_000 },
  privateLocations: 10,
  /** Monitors one bulk action (pause, resume, delete, tag, wire) may select. */
  bulkSelection: 10_000,
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
  /** A slug is a DNS label: at most 63 characters. */
  slugLength: 63,
  /** An accent colour, `#rrggbb`. */
  accentColorLength: 7,
  /** A component's name is a title too. */
  componentNameLength: 200,
  componentGroupLength: 100,
  componentPosition: 10_000,
  /** A page's logo: a PNG, JPEG, WebP or GIF file of at most this many bytes. */
  logoBytes: 64 * 1024,
  /** The link back to the owner's site. */
  websiteUrlLength: 2048,
  /** A custom domain: a DNS name (RFC 1035's 253 characters). */
  customDomainLength: 253,
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
  /** How long each occurrence of a repeating window lasts, at most: a week. */
  maxDurationMinutes: 10_080,
  /** A repeating window's cron expression, and its time zone's name. */
  cronLength: 200,
  timeZoneLength: 100,
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

/** The service's email settings (Settings, General, Email). */
export const EMAIL_SETTINGS_LIMITS = {
  port: { min: 1, max: 65_535, default: 587 },
  username: { max: 254 },
  password: { max: 1_024 },
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

/** WebSocket monitors: the URL, the subprotocol asked for, the message sent and the text expected, and the most of a message a check reads. */
export const WEBSOCKET_LIMITS = {
  urlLength: 2048,
  subprotocolLength: 128,
  sendBytes: 64 * 1024,
  expectLength: 1024,
  /** A message received larger than this fails the check unread: a server cannot make a check hold more. */
  messageBytes: 64 * 1024,
} as const;

/** Ping monitors: the packets of one check, how long each is waited for, the loss that degrades. */
export const PING_LIMITS = {
  /** A hostname's longest form (RFC 1035). */
  hostLength: 253,
  /** Echo requests sent per check. */
  count: { min: 1, max: 10, default: 3 },
  /** How long each echo request is waited for. */
  packetTimeoutMs: { min: 100, max: 10_000, default: 1_000 },
  /** Packet loss, in percent, above which a check that got answers is degraded. */
  degradedLoss: { min: 0, max: 100, default: 0 },
} as const;

/** Certificate monitors: the name sent in SNI, and the days before expiry below which a check is degraded. */
export const CERTIFICATE_LIMITS = {
  /** A hostname's longest form (RFC 1035). */
  serverNameLength: 253,
  minDaysLeft: { min: 0, max: 365, default: 14 },
} as const;

/** DNS monitors: the name asked about, the resolver, the values the answers are held to, and the count of answers. */
export const DNS_LIMITS = {
  /** A name's longest form (RFC 1035), a final dot aside. */
  hostLength: 253,
  /** `[ffff:…]:65535` and a little more. */
  resolverLength: 64,
  /** Values of `contains`, and of `equals`. */
  values: 20,
  /** One expected value: a TXT record may be long. */
  valueLength: 2048,
  /** The fewest answers a check accepts: at least one, since no answer is a failure of its own. */
  minAnswers: { min: 1, max: 100, default: 1 },
  /** The most answers a check accepts; 0: no maximum. */
  maxAnswers: { min: 0, max: 100, default: 0 },
} as const;

/** Heartbeat (push) monitors and their pings. Durations in milliseconds. */
export const HEARTBEAT_LIMITS = {
  /** A period schedule: the most time from one success to the next. */
  periodMs: { min: 60_000, max: 365 * 86_400_000 },
  /** How long after an expected ping the monitor waits, and the longest a run may take. */
  graceMs: { min: 60_000, max: 30 * 86_400_000, default: 3_600_000 },
  /** A schedule as written: a period or a cron expression. */
  scheduleLength: 100,
  timezoneLength: 64,
  /** What a ping may post, kept with it. */
  bodyBytes: 10_240,
  /** Pings kept per monitor; older ones are dropped. */
  pingsKept: 100,
  /** Pings a token may send per minute before it is answered 429. */
  pingsPerMinute: 60,
} as const;

/** The workspace's file (`statusdesk export`'s format) as the dashboard takes it. */
export const CONFIG_FILE_LIMITS = {
  /**
   * The most a file uploaded to the dashboard may hold, in bytes: it travels in a JSON body, which
   * the service holds to 1 MiB with the escaping of its line breaks and quotes. Bigger files are
   * applied with `statusdesk apply -f` (16 MiB), or in parts.
   */
  uploadBytes: 512 * 1024,
} as const;
