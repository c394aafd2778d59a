// What each JSON call of the dashboard's API answers, and the bodies and queries it takes: one zod
// schema each, the one source of these types for both sides. The service's routes
// (server/dashboard/) are typed by them, the UI (renderer/src/data/) reads its answers as them, and
// test/dashboard-contract.test.ts checks the service's live answers against them, field by field.
//
// Both sides import this file with `import type` only (test/layers.test.ts checks it): the UI's
// bundle carries no zod, and the service builds no schema it does not use.
import { z } from 'zod';
import { type DASHBOARD_API, type DashboardEndpoint, LIVE_ENTITIES, type NonJsonEndpoint } from './dashboard.ts';
import { MONITOR_TYPES } from './monitor-types.ts';

const access = z.enum(['read', 'write']);
const role = z.enum(['owner', 'admin', 'member']);
const iso = z.string();

const workspace = z.strictObject({ id: z.string(), name: z.string(), slug: z.string(), plan: z.string(), createdAt: iso });

const session = z.strictObject({
  workspaces: z.array(workspace),
  user: z.strictObject({ id: z.string(), name: z.string() }).optional(),
  /** The API port, where scripts and editors connect. */
  apiUrl: z.string(),
  /** The MCP endpoint editors connect to. */
  mcpUrl: z.string(),
  /** Whether the service can send email (a mail server set in Settings, General, Email, or by STATUSDESK_SMTP_URL). */
  emailAvailable: z.boolean(),
});

const apiKey = z.strictObject({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(access),
  /** A key created before scopes existed; it acts as write. */
  legacy: z.boolean(),
  createdByUserId: z.string().nullable(),
  createdAt: iso,
  lastUsedAt: iso.nullable(),
  revokedAt: iso.nullable(),
});

const member = z.strictObject({ userId: z.string(), name: z.string(), role, joinedAt: iso });

const invitation = z.strictObject({
  id: z.string(),
  role,
  /** Who it is for, in the inviter's words. */
  note: z.string(),
  state: z.enum(['pending', 'accepted', 'expired', 'revoked']),
  createdAt: iso,
  expiresAt: iso,
  /** The names of who made it and who accepted it. */
  createdBy: z.string().nullable(),
  acceptedAt: iso.nullable(),
  acceptedBy: z.string().nullable(),
});

const signInMethod = z.enum(['link', 'invitation', 'passkey', 'oidc']);

const sessionInfo = z.strictObject({
  id: z.string(),
  method: signInMethod,
  userAgent: z.string().nullable(),
  createdAt: iso,
  expiresAt: iso,
  /** The session of the page that asked. */
  current: z.boolean(),
});

const passkey = z.strictObject({ id: z.string(), name: z.string(), createdAt: iso, lastUsedAt: iso.nullable() });

/** WebAuthn options or an authenticator's answer, as JSON (SimpleWebAuthn's shapes), passed through as they are. */
const webAuthnJson = z.record(z.string(), z.unknown());

/** A session opened: the cookie is set by the answer, the page keeps this token. */
const opened = z.strictObject({ token: z.string() });

const clientSource = z.enum(['registered', 'metadata']);

const connection = z.strictObject({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  clientSource,
  /** The host of the metadata document; null for a registered client. */
  clientHost: z.string().nullable(),
  access,
  workspaceId: z.string(),
  workspaceName: z.string(),
  userId: z.string(),
  userName: z.string(),
  connectedAt: iso,
  lastUsedAt: iso.nullable(),
  /** Audit entries the connection wrote. */
  changes: z.number(),
});

const activityEntry = z.strictObject({ id: z.string(), action: z.string(), entityType: z.string(), entityId: z.string(), createdAt: iso });

const consentRequest = z.strictObject({
  id: z.string(),
  /** Shown by the waiting page and by every place that can decide, so the person approves the request they made. */
  matchCode: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'expired', 'completed']),
  client: z.strictObject({ id: z.string(), name: z.string(), source: clientSource, host: z.string().nullable() }),
  redirectUri: z.string(),
  redirectHost: z.string(),
  /** A loopback redirect: any program on this machine could be listening there. */
  loopbackRedirect: z.boolean(),
  /** What the app asked for. */
  access,
  resource: z.string(),
  expiresAt: iso,
  /** The viewer may approve or deny (a signed-in person). */
  canDecide: z.boolean(),
  /** For a signed-in person who may decide: the anti-forgery token of a decision, and the workspaces to choose from. */
  csrfToken: z.string().optional(),
  workspaces: z.array(z.strictObject({ id: z.string(), name: z.string(), slug: z.string(), role })).optional(),
  /** For a signed-in person who may decide: who they are, since the app will act for them (with their role in the workspace chosen). */
  approver: z.strictObject({ userId: z.string(), name: z.string() }).optional(),
  /** For the browser that made the request, once decided: where it goes next. Given once. */
  redirectTo: z.string().optional(),
});

const monitorType = z.enum(Object.keys(MONITOR_TYPES) as [keyof typeof MONITOR_TYPES]);
/** A monitor's state as the overview shows it: its checks' worst region, or why there is none. */
const monitorState = z.enum(['up', 'degraded', 'down', 'pending', 'paused']);
const checkOutcome = z.enum(['up', 'degraded', 'down']);
const summaryWindow = z.enum(['1d', '7d', '14d']);

const overviewRow = z.strictObject({
  id: z.string(),
  name: z.string(),
  type: monitorType,
  /** `host:port` of a TCP or gRPC monitor, the URL of an HTTP monitor, the URL or command of an MCP monitor. */
  target: z.string(),
  tags: z.array(z.string()),
  /** The group the monitor is in; empty: none. */
  group: z.string(),
  state: monitorState,
  /** Latency of the latest check, in ms; null before the first, and when it failed (a failure's duration is its timeout, not a latency). */
  lastLatencyMs: z.number().nullable(),
  lastCheckedAt: iso.nullable(),
  /** When the state last changed (the first check counts as a change); null before the first check. */
  changedAt: iso.nullable(),
  /** Down or degraded: what the latest check that was not up said (its message); null otherwise. */
  reason: z.string().nullable(),
  /** When the monitor was created: its uptime covers less than 24 hours before a day has passed. */
  createdAt: iso,
  /** Median latency per hour over the last 24 hours, oldest first; null for an hour without checks. */
  sparkline: z.array(z.number().nullable()),
  /** Share of the last 24 hours' checks that were up or degraded, 0 to 1; null without checks. */
  uptime: z.number().nullable(),
  /** The latest checks' outcomes (up to 30), oldest first, one letter each: `u` up, `d` degraded, `x` down. */
  recent: z.string(),
  /** MCP monitors: its server changed its tools since they were pinned, and nobody accepted them yet. */
  toolsChanged: z.boolean(),
});

const overview = z.strictObject({
  monitors: z.array(overviewRow),
  /** Monitors that match the query, across all pages. */
  total: z.number(),
  /** Monitors of the workspace in each state, whatever the query. */
  counts: z.strictObject({ up: z.number(), degraded: z.number(), down: z.number(), pending: z.number(), paused: z.number() }),
  /** Every tag used in the workspace, sorted. */
  tags: z.array(z.string()),
  /** Every group used in the workspace, sorted. */
  groupNames: z.array(z.string()),
  /**
   * With `grouped`: the groups of the monitors that match, in the order the rows come in (the
   * group with the worst state first, then by name; monitors in no group last, as the group
   * named ''), each with how many match and its worst member's state. Empty otherwise.
   */
  groups: z.array(
    z.strictObject({
      name: z.string(),
      total: z.number(),
      state: monitorState,
      counts: z.strictObject({ up: z.number(), degraded: z.number(), down: z.number(), pending: z.number(), paused: z.number() }),
    }),
  ),
});

/** Latency percentiles and outcomes per time bucket. */
/** A span in which a monitor was down: opened by the check that found it down, closed by the first that did not. */
const monitorIncident = z.strictObject({
  id: z.string(),
  monitorId: z.string(),
  startedAt: iso,
  /** Null while the monitor is still down. */
  endedAt: iso.nullable(),
  /** From its start to its end, or to now while it is open. */
  durationMs: z.number(),
  /** Checks that found the monitor down during it, by every runner. */
  failedChecks: z.number(),
  /** Why the first failed check failed. */
  firstMessage: z.string(),
});

const latencySeries = z.strictObject({
  window: summaryWindow,
  bucketMs: z.number(),
  points: z.array(
    z.strictObject({
      at: iso,
      p50: z.number().nullable(),
      p95: z.number().nullable(),
      p99: z.number().nullable(),
      up: z.number(),
      degraded: z.number(),
      down: z.number(),
    }),
  ),
  /** Spans in which no check ran: the machine slept or the service was stopped. */
  gaps: z.array(z.strictObject({ startedAt: iso, endedAt: iso })),
});

const timing = z.strictObject({
  dns: z.number().nullable(),
  connect: z.number().nullable(),
  tls: z.number().nullable(),
  ttfb: z.number().nullable(),
  transfer: z.number().nullable(),
  total: z.number().nullable(),
});

/** One check: the regions it stood for and the runner that made it (`local`: this machine; else a private location's name). */
const checkResult = z.strictObject({
  id: z.string(),
  regions: z.array(z.string()),
  runner: z.string(),
  startedAt: iso,
  result: checkOutcome,
  latencyMs: z.number(),
  timing,
  attempts: z.number(),
  message: z.string(),
  grpcStatus: z.string().nullable(),
  statusCode: z.number().nullable(),
  /** MCP monitors: what the check found (its tools counted; their texts come from GetMCPTools); null for other types. */
  mcp: z
    .strictObject({
      /** `OK`, `SIGN_IN_NEEDED`, `UNREACHABLE`, `TIMEOUT`, `HANDSHAKE_REFUSED`, `PROTOCOL_ERROR` or `PROCESS_EXITED`. */
      status: z.string(),
      protocolVersion: z.string().nullable(),
      serverName: z.string().nullable(),
      serverVersion: z.string().nullable(),
      toolCount: z.number(),
      /** Null where the server declares no prompts (or resources). */
      prompts: z.number().nullable(),
      resources: z.number().nullable(),
      /** Tool texts carrying invisible or bidirectional control characters, one line each. */
      warnings: z.array(z.string()),
      /** stdio: the exit code of a server that exited during the check. */
      exitCode: z.number().nullable(),
      /** stdio: the end of what the server wrote to stderr, kept with a failed check. */
      stderrTail: z.string(),
      /** SIGN_IN_NEEDED: the server's WWW-Authenticate header. */
      signIn: z.string().nullable(),
    })
    .nullable(),
  /** DNS monitors: what the check asked and the answers it got; null for other types. */
  dns: z
    .strictObject({
      /** The name asked about: the monitor's, or for PTR of an address its reverse name. */
      name: z.string(),
      /** `A`, `MX`, …. */
      recordType: z.string(),
      /** `NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `NOTIMP` or `FORMERR`; null when no answer came. */
      rcode: z.string().nullable(),
      /** The resolver that answered (or the last one asked), `192.168.1.1:53`; null when none was asked. */
      resolver: z.string().nullable(),
      /** Whether it is one of the system's resolvers. */
      systemResolver: z.boolean(),
      /** The answers in one written form: MX `10 mail.example.com`, SRV `priority weight port target`, TXT its strings joined. */
      answers: z.array(z.string()),
      /** Each rule held to the answers: contains, equals, the count. */
      assertions: z.array(z.strictObject({ assertion: z.string(), passed: z.boolean(), actual: z.string() })),
    })
    .nullable(),
  /** WebSocket monitors: how the handshake and the expected message went (the handshake's HTTP status is statusCode); null for other types. Never a message's text. */
  websocket: z
    .strictObject({
      /** `OK`, `UNREACHABLE`, `TIMEOUT`, `HANDSHAKE_REFUSED`, `SUBPROTOCOL_REFUSED`, `CLOSED`, `UNEXPECTED_MESSAGE`, `MESSAGE_TOO_LARGE` or `PROTOCOL_ERROR`. */
      status: z.string(),
      /** The subprotocol the server agreed to. */
      subprotocol: z.string().nullable(),
      /** The code the server closed the socket with before the check was done. */
      closeCode: z.number().nullable(),
      closeReason: z.string(),
      /** Whether the first message held the expected text; null when none was expected or none arrived. */
      expectedMatched: z.boolean().nullable(),
      /** The first message's size in bytes; null when none arrived or none was waited for. */
      messageBytes: z.number().nullable(),
    })
    .nullable(),
  /** Ping monitors: the packets of the last round and their round trips; null for other types and when ping did not run. */
  ping: z
    .strictObject({
      /** The address pinged: the host, or what its name resolved to. */
      address: z.string(),
      transmitted: z.number(),
      received: z.number(),
      /** Of the packets sent, in percent. */
      lossPercent: z.number(),
      /** Round trips in milliseconds; null without an answer. */
      rttMinMs: z.number().nullable(),
      rttAvgMs: z.number().nullable(),
      rttMaxMs: z.number().nullable(),
    })
    .nullable(),
  /** Checks that made a TLS handshake (certificate monitors, HTTPS, gRPC over TLS): the certificate the server presented; null otherwise. */
  certificate: z
    .strictObject({
      /** e.g. `CN=shop.example.com, O=Example`. */
      subject: z.string(),
      issuer: z.string(),
      /** As OpenSSL writes them: `DNS:shop.example.com`, `IP Address:127.0.0.1`. */
      subjectAltNames: z.array(z.string()),
      notBefore: iso,
      notAfter: iso,
      /** Whole days from the check to notAfter: 0 on its last day, negative once expired. */
      daysLeft: z.number(),
      /** SHA-256, upper-case hex bytes joined by colons. */
      fingerprintSha256: z.string(),
      serialNumber: z.string(),
      /** Whether its chain verifies against the checks' trust store. */
      verified: z.boolean(),
      /** Whether it is for serverName. */
      nameMatches: z.boolean(),
      /** The name it was checked for: the SNI name, or the IP address. */
      serverName: z.string(),
      /** Why it does not verify or is not for the name, in words; null when it does and is. */
      error: z.string().nullable(),
    })
    .nullable(),
  /** Heartbeat monitors: the latest ping, the run it ended, and when the next is expected; null for other types. */
  heartbeat: z
    .strictObject({
      /** `OK`, `RUNNING`, `FAILED`, `MISSED`, `NEVER_PINGED` or `DID_NOT_FINISH`. */
      status: z.string(),
      /** The latest ping's kind: `success`, `start` or `fail`; null before the first. */
      pingKind: z.string().nullable(),
      exitStatus: z.number().nullable(),
      /** The latest run time measured, from a start to its end. */
      runTimeMs: z.number().nullable(),
      lastPingAt: iso.nullable(),
      /** When the next success is expected; null while a failure or a missed ping stands. */
      expectedBy: iso.nullable(),
      /** When it goes down unless a ping comes; null while it is down. */
      downAt: iso.nullable(),
    })
    .nullable(),
});

/** A monitor's health in one of its regions, with the runner that checks there. */
const regionHealth = z.strictObject({
  region: z.string(),
  status: z.enum(['active', 'degraded', 'error']).nullable(),
  lastCheckedAt: iso.nullable(),
  /** The runner whose check the status comes from; null when none has checked the region. */
  runner: z.string().nullable(),
});

/** What the workspace's plan allows. */
const planAllowance = z.strictObject({
  plan: z.string(),
  frequencies: z.array(z.string()),
  /** Every region a monitor may name. */
  regions: z.array(z.string()),
  /** The regions a TCP monitor gets when it names none. */
  defaultTcpRegions: z.array(z.string()),
  auditLog: z.boolean(),
  subscriberNotifications: z.boolean(),
});

/** Who made an audited change, as the audit filter names them. */
const auditActorKind = z.enum(['apiKey', 'oauth', 'mcp', 'dashboard', 'cli', 'system']);

const auditEntry = z.strictObject({
  id: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  action: z.string(),
  actor: z.strictObject({ kind: auditActorKind, id: z.string(), label: z.string() }),
  changedFields: z.array(z.string()),
  /** Snapshots with secrets already redacted by the service. */
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  createdAt: iso,
  /** The action in words, between the actor's name and the record's: "paused the monitor" (the machine name is `action`). */
  words: z.string(),
  /** The record as named when the change was made, and its screen in the dashboard: null when it is gone or has none. */
  record: z.strictObject({ name: z.string(), path: z.string().nullable() }),
});

/** A status page component's state as its public page shows it. */
const publicState = z.enum(['operational', 'degraded', 'down', 'maintenance', 'unknown']);

const previewMaintenance = z.strictObject({
  id: z.string(),
  title: z.string(),
  message: z.string(),
  from: iso,
  to: iso,
  /** Component names; none means the whole page. */
  components: z.array(z.string()),
});

/** What a status page's visitors see now: its public summary, as `summary.json`. */
const pagePreview = z.strictObject({
  page: z.strictObject({ id: z.string(), slug: z.string(), title: z.string(), url: z.string(), updatedAt: iso }),
  status: z.strictObject({ state: publicState, description: z.string() }),
  components: z.array(z.strictObject({ id: z.string(), name: z.string(), group: z.string().nullable(), state: publicState, uptime: z.number().nullable() })),
  activeReports: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      status: z.enum(['investigating', 'identified', 'monitoring', 'resolved']),
      /** Component names; none means the whole page. */
      components: z.array(z.string()),
      updatedAt: iso,
      latestUpdate: z.strictObject({ status: z.string(), message: z.string(), at: iso }).nullable(),
    }),
  ),
  maintenances: z.strictObject({ active: z.array(previewMaintenance), upcoming: z.array(previewMaintenance) }),
});

/** A change the live feed announces (`events`, one SSE event each, named by its `type`). */
const liveEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('state'),
    monitorId: z.string(),
    monitorName: z.string(),
    from: checkOutcome.nullable(),
    to: checkOutcome,
    at: iso,
    message: z.string(),
  }),
  z.strictObject({
    type: z.literal('changed'),
    entity: z.enum(LIVE_ENTITIES),
    id: z.string(),
  }),
]);

/** Where an MCP server was found: an editor's file and the name it has there. */
const mcpServerSource = z.strictObject({
  editor: z.string(),
  scope: z.string(),
  file: z.string(),
  name: z.string(),
  /** For an entry of `projects` in ~/.claude.json: the project folder it is for. */
  project: z.string().optional(),
});

/**
 * An MCP server an editor is set up with, as shown: environment values and credential-like
 * headers read `[redacted]` (a `${...}` reference stays as written). `name` and `file` name it
 * when it is picked.
 */
const foundMcpServer = z.strictObject({
  name: z.string(),
  editor: z.string(),
  scope: z.string(),
  file: z.string(),
  files: z.array(z.string()),
  sources: z.array(mcpServerSource),
  transport: z.enum(['http', 'stdio']),
  /** The URL (http) or the command (stdio). */
  server: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  headers: z.record(z.string(), z.string()),
  cwd: z.string(),
  /** Statusdesk's own `/mcp` or `statusdesk mcp`: shown, never picked. */
  itself: z.boolean(),
  warnings: z.array(z.string()),
});

const mcpServers = z.strictObject({
  servers: z.array(foundMcpServer),
  /** A file that could not be read, or an entry of it that is not a server. */
  problems: z.array(z.strictObject({ file: z.string(), message: z.string() })),
  /** The files that were there and were read. */
  read: z.array(z.string()),
});

/** A picked server, by its name and the file it was first found in (`name`, `file` of its entry). */
const mcpServerPick = z.strictObject({ name: z.string(), file: z.string() });

/**
 * One line of the plan of a file (`statusdesk apply --dry-run`): a monitor, page or component to
 * create, update, delete or leave; an update names each field with its old and new value as text.
 */
const configChange = z.strictObject({
  action: z.enum(['create', 'update', 'delete', 'unchanged']),
  kind: z.enum(['monitor', 'page', 'component', 'maintenance']),
  name: z.string(),
  /** The page of a component. */
  page: z.string().optional(),
  type: monitorType.optional(),
  /** Secret values are never shown: `secret` says they are sent again. */
  fields: z.array(z.strictObject({ field: z.string(), from: z.string(), to: z.string(), secret: z.boolean() })).optional(),
  /** After applying: whether the change was made, refused, or not reached after a refusal. */
  outcome: z.enum(['applied', 'refused', 'not applied']).optional(),
});

const configPlan = z.strictObject({
  changes: z.array(configChange),
  summary: z.strictObject({ create: z.number(), update: z.number(), delete: z.number(), unchanged: z.number() }),
  /** Monitors and pages of the workspace the file does not name: kept (the dashboard does not prune). */
  kept: z.number(),
});

/** What each JSON call answers. */
export const DASHBOARD_ANSWERS = {
  session,
  keys: z.strictObject({ keys: z.array(apiKey) }),
  /** The secret is shown once, here. */
  createKey: z.strictObject({ key: apiKey, secret: z.string() }),
  revokeKey: z.strictObject({ key: apiKey }),
  members: z.strictObject({ members: z.array(member), you: z.strictObject({ userId: z.string(), role }) }),
  changeRole: z.strictObject({ member }),
  removeMember: z.strictObject({}),
  /** Newest first, the latest 100. */
  invitations: z.strictObject({ invitations: z.array(invitation) }),
  /** The link is shown once, here: only its hash is kept. */
  invite: z.strictObject({ invitation, link: z.string() }),
  revokeInvitation: z.strictObject({}),
  sessions: z.strictObject({ sessions: z.array(sessionInfo) }),
  endSession: z.strictObject({}),
  passkeys: z.strictObject({ passkeys: z.array(passkey) }),
  passkeyOptions: z.strictObject({ options: webAuthnJson }),
  addPasskey: z.strictObject({ passkey }),
  removePasskey: z.strictObject({}),
  /** `oidc`: the provider's name for its button, when one is set up. */
  signInMethods: z.strictObject({ passkey: z.boolean(), oidc: z.strictObject({ name: z.string() }).nullable() }),
  signInOptions: z.strictObject({ options: webAuthnJson }),
  signInPasskey: opened,
  invitation: z.strictObject({ workspaceName: z.string(), role, invitedBy: z.string().nullable(), expiresAt: iso }),
  /** `workspaceId`: the workspace joined. */
  acceptInvitation: z.strictObject({ token: z.string(), workspaceId: z.string() }),
  connections: z.strictObject({ connections: z.array(connection) }),
  activity: z.strictObject({ entries: z.array(activityEntry) }),
  revokeConnection: z.strictObject({ connection: z.strictObject({ id: z.string(), revokedAt: iso.nullable() }) }),
  overview,
  latency: latencySeries,
  /** Newest first. */
  results: z.strictObject({ results: z.array(checkResult) }),
  regions: z.strictObject({ regions: z.array(regionHealth) }),
  /** Newest first, at most 100. */
  incidents: z.strictObject({ incidents: z.array(monitorIncident) }),
  plan: planAllowance,
  /** `next` continues below the page's last entry; null on the last page. */
  audit: z.strictObject({ entries: z.array(auditEntry), next: z.string().nullable() }),
  mcpServers,
  /** The monitors made of the picked servers, in the order picked. */
  importMcpServers: z.strictObject({ monitors: z.array(z.strictObject({ id: z.string(), name: z.string() })) }),
  pagePreview,
  /** The file, its suggested name, and what it holds. */
  configExport: z.strictObject({ file: z.string(), filename: z.string(), monitors: z.number(), pages: z.number() }),
  configPlan,
  /** `error`: the refusal that stopped the changes (the ones after it were not made); `notes`: what is shown once (a heartbeat's ping URL). */
  configApply: configPlan.extend({ applied: z.number(), error: z.string().nullable(), notes: z.array(z.string()) }),
  consentRequest,
  pendingRequests: z.strictObject({ requests: z.array(consentRequest) }),
  approve: consentRequest,
  deny: consentRequest,
} satisfies Record<Exclude<DashboardEndpoint, NonJsonEndpoint>, z.ZodType>;

/** The bodies the JSON calls that change something take. */
export const DASHBOARD_BODIES = {
  createKey: z.strictObject({ name: z.string(), scope: access }),
  changeRole: z.strictObject({ role }),
  /** `expiresInHours`: 1 to 720 (default 72). */
  invite: z.strictObject({ role, note: z.string().optional(), expiresInHours: z.number().optional() }),
  /** `name`: what the passkey is called in the list ("MacBook Touch ID"); `response`: the authenticator's answer to passkeyOptions. */
  addPasskey: z.strictObject({ name: z.string(), response: webAuthnJson }),
  /** The authenticator's answer to signInOptions' challenge. */
  signInPasskey: z.strictObject({ response: webAuthnJson }),
  /** `name`: the new person's name; left out when a signed-in person joins one more workspace. */
  acceptInvitation: z.strictObject({ name: z.string().optional() }),
  approve: z.strictObject({ workspaceId: z.string().optional(), access: access.optional(), csrfToken: z.string() }),
  deny: z.strictObject({ csrfToken: z.string() }),
  importMcpServers: z.strictObject({ picks: z.array(mcpServerPick) }),
  /** The file's text (YAML or JSON), at most CONFIG_FILE_LIMITS.uploadBytes. */
  configPlan: z.strictObject({ file: z.string() }),
  configApply: z.strictObject({ file: z.string() }),
} satisfies Partial<Record<JsonEndpoint, z.ZodType>>;

/** The query strings the JSON calls that read a list take (the service refuses a bad value, naming it). */
export const DASHBOARD_QUERIES = {
  overview: z.strictObject({
    q: z.string().optional(),
    state: monitorState.optional(),
    type: monitorType.optional(),
    tag: z.string().optional(),
    /** Monitor ids separated by commas: only those (a picker's chosen monitors), at most 200. */
    ids: z.string().optional(),
    /** Rows ordered group by group (see `groups` of the answer). */
    grouped: z.boolean().optional(),
    /** With `grouped`: a JSON array of group names whose monitors are left out of the rows (a collapsed group); '' is no group. */
    collapsed: z.string().optional(),
    limit: z.number().optional(),
    offset: z.number().optional(),
  }),
  latency: z.strictObject({ window: summaryWindow.optional() }),
  results: z.strictObject({ limit: z.number().optional() }),
  audit: z.strictObject({
    entityType: z.string().optional(),
    entityId: z.string().optional(),
    actor: auditActorKind.optional(),
    /** ISO times, inclusive. */
    from: iso.optional(),
    to: iso.optional(),
    limit: z.number().optional(),
    /** The `next` of the previous page. */
    cursor: z.string().optional(),
  }),
} satisfies Partial<Record<JsonEndpoint, z.ZodType>>;

/** The events of the live feed. */
export const LIVE_EVENT = liveEvent;

export type JsonEndpoint = Exclude<DashboardEndpoint, NonJsonEndpoint>;
export type DashboardAnswer<E extends JsonEndpoint> = z.infer<(typeof DASHBOARD_ANSWERS)[E]>;
export type DashboardBody<E extends JsonEndpoint> = E extends keyof typeof DASHBOARD_BODIES ? z.infer<(typeof DASHBOARD_BODIES)[E]> : undefined;
export type DashboardQuery<E extends JsonEndpoint> = E extends keyof typeof DASHBOARD_QUERIES ? z.infer<(typeof DASHBOARD_QUERIES)[E]> : undefined;
export type DashboardMethod<E extends DashboardEndpoint> = (typeof DASHBOARD_API)[E]['method'];

// The types the UI's screens name.
export type Access = z.infer<typeof access>;
export type Workspace = z.infer<typeof workspace>;
export type Session = z.infer<typeof session>;
export type ApiKey = z.infer<typeof apiKey>;
export type Connection = z.infer<typeof connection>;
export type ActivityEntry = z.infer<typeof activityEntry>;
export type ConsentRequest = z.infer<typeof consentRequest>;
export type ConsentStatus = ConsentRequest['status'];
export type MonitorType = z.infer<typeof monitorType>;
export type MonitorState = z.infer<typeof monitorState>;
export type OverviewRow = z.infer<typeof overviewRow>;
export type Overview = z.infer<typeof overview>;
export type OverviewGroup = Overview['groups'][number];
export type OverviewQuery = DashboardQuery<'overview'>;
export type LatencySeries = z.infer<typeof latencySeries>;
export type Timing = z.infer<typeof timing>;
export type CheckResult = z.infer<typeof checkResult>;
export type RegionHealth = z.infer<typeof regionHealth>;
export type MonitorIncident = z.infer<typeof monitorIncident>;
export type PlanAllowance = z.infer<typeof planAllowance>;
export type AuditActorKind = z.infer<typeof auditActorKind>;
export type AuditEntry = z.infer<typeof auditEntry>;
export type AuditQuery = DashboardQuery<'audit'>;
export type PublicState = z.infer<typeof publicState>;
export type PagePreview = z.infer<typeof pagePreview>;
export type ConfigChange = z.infer<typeof configChange>;
export type ConfigPlan = z.infer<typeof configPlan>;
export type PreviewMaintenance = z.infer<typeof previewMaintenance>;
export type LiveEvent = z.infer<typeof liveEvent>;
export type FoundMcpServer = z.infer<typeof foundMcpServer>;
export type McpServerPick = z.infer<typeof mcpServerPick>;
