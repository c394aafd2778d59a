// The dashboard's JSON API, called on the page's own origin. The service answers every error
// with one envelope; its `message` is written for people and is what the UI shows.

export type Access = 'read' | 'write';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  plan?: string;
  createdAt?: string;
}

export interface Session {
  workspaces: Workspace[];
  user?: { id: string; name: string };
  /** The API port, where scripts and editors connect. */
  apiUrl: string;
  /** The MCP endpoint editors connect to. */
  mcpUrl: string;
}

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  scopes: Access[];
  legacy: boolean;
  createdByUserId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export type ConsentStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'completed';

export interface ConsentRequest {
  id: string;
  matchCode: string;
  status: ConsentStatus;
  client: { id: string; name: string; source: 'registered' | 'metadata'; host?: string | null };
  redirectUri: string;
  redirectHost: string;
  loopbackRedirect: boolean;
  access: Access;
  resource: string;
  expiresAt: string;
  canDecide: boolean;
  csrfToken?: string;
  workspaces?: Workspace[];
  redirectTo?: string;
}

export interface Connection {
  id: string;
  clientId: string;
  clientName: string;
  clientSource: 'registered' | 'metadata';
  clientHost: string | null;
  access: Access;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  userName: string;
  connectedAt: string;
  lastUsedAt: string | null;
  changes: number;
}

export interface ActivityEntry {
  id: string;
  action: string;
  entityType: string;
  entityId: string | null;
  createdAt: string;
}

export type MonitorType = 'tcp' | 'grpc' | 'http';
/** A monitor's state as the overview shows it: its checks' worst region, or why there is none. */
export type MonitorState = 'up' | 'degraded' | 'down' | 'pending' | 'paused';

/** One row of the overview (GET /api/workspaces/:id/overview). */
export interface OverviewRow {
  id: string;
  name: string;
  type: MonitorType;
  /** `host:port` of a TCP or gRPC monitor, the URL of an HTTP monitor. */
  target: string;
  tags: string[];
  state: MonitorState;
  /** Latency of the latest check, in ms; null before the first. */
  lastLatencyMs: number | null;
  lastCheckedAt: string | null;
  /** When the state last changed (the first check counts as a change); null before the first check. */
  changedAt: string | null;
  /** Median latency per hour over the last 24 hours, oldest first; null for an hour without checks. */
  sparkline: (number | null)[];
}

export interface OverviewQuery {
  q?: string;
  state?: MonitorState;
  type?: MonitorType;
  tag?: string;
  limit?: number;
  offset?: number;
}

export interface Overview {
  monitors: OverviewRow[];
  /** Monitors that match the query, across all pages. */
  total: number;
  /** Monitors of the workspace in each state, whatever the query. */
  counts: Record<MonitorState, number>;
  /** Every tag used in the workspace, sorted. */
  tags: string[];
}

/** Latency percentiles and outcomes per time bucket (GET .../monitors/:id/latency?window=). */
export interface LatencySeries {
  window: '1d' | '7d' | '14d';
  bucketMs: number;
  points: { at: string; p50: number | null; p95: number | null; p99: number | null; up: number; degraded: number; down: number }[];
  /** Spans in which no check ran: the machine slept or the service was stopped. */
  gaps: { startedAt: string; endedAt: string }[];
}

export interface Timing {
  dns: number | null;
  connect: number | null;
  tls: number | null;
  ttfb: number | null;
  transfer: number | null;
  total: number | null;
}

/** One check, for one region (GET .../monitors/:id/results, newest first). */
export interface CheckResult {
  id: string;
  region: string;
  runner: string;
  startedAt: string;
  result: 'up' | 'degraded' | 'down';
  latencyMs: number;
  timing: Timing;
  attempts: number;
  message: string;
  grpcStatus: string | null;
  statusCode: number | null;
}

/** A monitor's health in each of its regions, with the runner that checks there (GET .../monitors/:id/regions). */
export interface RegionHealth {
  region: string;
  status: 'active' | 'degraded' | 'error' | null;
  lastCheckedAt: string | null;
  runner: string | null;
}

/** What the workspace's plan allows (GET /api/workspaces/:id/plan). */
export interface PlanAllowance {
  plan: string;
  frequencies: string[];
  /** Every region a monitor may name. */
  regions: string[];
  /** The regions a TCP monitor gets when it names none. */
  defaultTcpRegions: string[];
  auditLog: boolean;
  subscriberNotifications: boolean;
}

/** Who made an audited change, as the audit filter names them. */
export type AuditActorKind = 'apiKey' | 'oauth' | 'mcp' | 'dashboard' | 'cli' | 'system';

export interface AuditEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  actor: { kind: AuditActorKind; id: string; label: string };
  changedFields: string[];
  /** Snapshots with secrets already redacted by the service. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
}

export interface AuditQuery {
  entityType?: string;
  entityId?: string;
  actor?: AuditActorKind;
  /** ISO times, inclusive. */
  from?: string;
  to?: string;
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

/** A status page component's state as its public page shows it. */
export type PublicState = 'operational' | 'degraded' | 'down' | 'maintenance' | 'unknown';

/** What a status page's visitors see now: its public summary (GET .../pages/:id/preview, as summary.json). */
export interface PagePreview {
  page: { id: string; slug: string; title: string; url: string; updatedAt: string };
  status: { state: PublicState; description: string };
  components: { id: string; name: string; group: string | null; state: PublicState; uptime: number | null }[];
  activeReports: {
    id: string;
    title: string;
    status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
    /** Component names; none means the whole page. */
    components: string[];
    updatedAt: string;
    latestUpdate: { status: string; message: string; at: string } | null;
  }[];
  maintenances: { active: PreviewMaintenance[]; upcoming: PreviewMaintenance[] };
}

export interface PreviewMaintenance {
  id: string;
  title: string;
  message: string;
  from: string;
  to: string;
  /** Component names; none means the whole page. */
  components: string[];
}

/** A change the live feed announces (GET /api/workspaces/:id/events, text/event-stream). */
export type LiveEvent =
  | { type: 'state'; monitorId: string; monitorName: string; from: string | null; to: 'up' | 'degraded' | 'down'; at: string; message: string }
  | { type: 'changed'; entity: 'monitor' | 'page' | 'report' | 'maintenance' | 'channel' | 'key' | 'connection'; id: string };

export interface Violation {
  field: string;
  rule: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly violations: Violation[];

  constructor(status: number, code: string, message: string, violations: Violation[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.violations = violations;
  }
}

const signedOutListeners = new Set<() => void>();

/** Called whenever an `/api/*` call answers 401: the session is gone or never was. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function errorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { code?: string; message?: string; violations?: Violation[] };
    if (typeof body.message === 'string') {
      return new ApiError(response.status, body.code ?? 'UNKNOWN', body.message, body.violations ?? []);
    }
  } catch {
    // Not the envelope (a proxy, a crash): say what we know.
  }
  return new ApiError(response.status, 'UNKNOWN', `the service answered ${response.status} ${response.statusText}`.trim());
}

/** The header the dashboard API wants the session token in, beside the session cookie. */
export const SESSION_TOKEN_HEADER = 'x-statusdesk-session';

/** Where this tab keeps its half of the session: its own origin's session storage, gone with the tab. */
const TOKEN_KEY = 'statusdesk.session';
/** The meta element the sign-in answer carries the token in (server/dashboard/dashboard-app.ts). */
const TOKEN_META = 'statusdesk-session';
/** Tabs of this origin hand the token to a new tab of theirs; no other origin can join the channel. */
const TOKEN_CHANNEL = 'statusdesk.session';
/** How long a new tab waits for another tab of the dashboard to answer. */
const ASK_TABS_MS = 250;

function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeToken(token: string | undefined): void {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage refused: the token lasts as long as this page.
  }
}

let sessionToken: Promise<string | undefined> | undefined;
const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(TOKEN_CHANNEL);
channel?.addEventListener('message', (event: MessageEvent<{ ask?: true; token?: string; signedOut?: true }>) => {
  if (event.data.ask) {
    void currentTokenOfThisTab().then((token) => token && channel.postMessage({ token }));
  } else if (event.data.signedOut) {
    storeToken(undefined);
    sessionToken = Promise.resolve(undefined);
  }
});

/** The token this tab holds, without asking the others. */
function currentTokenOfThisTab(): Promise<string | undefined> {
  const stored = storedToken();
  return stored ? Promise.resolve(stored) : (sessionToken ?? Promise.resolve(undefined));
}

/** Asks the other open tabs of the dashboard for the token; undefined when none answers in time. */
function askOtherTabs(): Promise<string | undefined> {
  if (!channel) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAnswer = (event: MessageEvent<{ token?: string }>) => {
      if (!event.data.token) return;
      finish(event.data.token);
    };
    const finish = (token: string | undefined) => {
      clearTimeout(timer);
      channel.removeEventListener('message', onAnswer);
      if (token) storeToken(token);
      resolve(token);
    };
    const timer = setTimeout(finish, ASK_TABS_MS, undefined);
    channel.addEventListener('message', onAnswer);
    channel.postMessage({ ask: true });
  });
}

/**
 * Takes the session token from the sign-in answer's meta element into this tab's session storage,
 * and shows `/` instead of the one-time link's address. Runs before the first render.
 */
export function adoptSessionToken(): void {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${TOKEN_META}"]`);
  if (!meta) return;
  storeToken(meta.content);
  sessionToken = Promise.resolve(meta.content || undefined);
  meta.remove();
  history.replaceState(null, '', '/');
}

/** This tab's session token, or another open tab's; undefined when the window is not signed in. */
export function currentSessionToken(): Promise<string | undefined> {
  const stored = storedToken();
  if (stored) return Promise.resolve(stored);
  sessionToken ??= askOtherTabs();
  return sessionToken;
}

/** Forgets the token in this tab and every other tab of the dashboard. */
export function forgetSessionToken(): void {
  storeToken(undefined);
  sessionToken = Promise.resolve(undefined);
  channel?.postMessage({ signedOut: true });
}

/** Tells every listener the window is signed out. */
export function signedOut(): void {
  forgetSessionToken();
  signedOutListeners.forEach((listener) => listener());
}

export async function request<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = await currentSessionToken();
  if (token) headers[SESSION_TOKEN_HEADER] = token;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'UNAVAILABLE', 'Statusdesk is not answering. Is it still running?');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && path.startsWith('/api/')) signedOut();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A query string of the values that are set. */
function search(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '' && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A file the dashboard API makes (POST, so it is a change from this page): its bytes and name. */
async function download(path: string): Promise<{ blob: Blob; filename: string }> {
  const token = await currentSessionToken();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers[SESSION_TOKEN_HEADER] = token;
  const response = await fetch(path, { method: 'POST', headers, body: '{}', credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401) signedOut();
    throw error;
  }
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'status-page.zip';
  return { blob: await response.blob(), filename };
}

const post = <T>(path: string, body: unknown = {}) => request<T>(path, { method: 'POST', body });
const ws = (id: string) => `/api/workspaces/${encodeURIComponent(id)}`;
const seg = encodeURIComponent;

export const api = {
  session: () => request<Session>('/api/session'),
  signOut: () => post<void>('/api/signout').finally(forgetSessionToken),

  keys: (workspaceId: string) => request<{ keys: ApiKey[] }>(`${ws(workspaceId)}/keys`),
  createKey: (workspaceId: string, body: { name: string; scope: Access }) =>
    post<{ key: ApiKey; secret: string }>(`${ws(workspaceId)}/keys`, body),
  revokeKey: (id: string) => post<{ key: ApiKey }>(`/api/keys/${seg(id)}/revoke`),

  overview: (workspaceId: string, query: OverviewQuery = {}) => request<Overview>(`${ws(workspaceId)}/overview${search(query)}`),
  latency: (workspaceId: string, monitorId: string, window: LatencySeries['window']) =>
    request<LatencySeries>(`${ws(workspaceId)}/monitors/${seg(monitorId)}/latency${search({ window })}`),
  results: (workspaceId: string, monitorId: string, limit = 20) =>
    request<{ results: CheckResult[] }>(`${ws(workspaceId)}/monitors/${seg(monitorId)}/results${search({ limit })}`),
  regions: (workspaceId: string, monitorId: string) => request<{ regions: RegionHealth[] }>(`${ws(workspaceId)}/monitors/${seg(monitorId)}/regions`),
  plan: (workspaceId: string) => request<PlanAllowance>(`${ws(workspaceId)}/plan`),
  audit: (workspaceId: string, query: AuditQuery = {}) => request<{ entries: AuditEntry[]; next: string | null }>(`${ws(workspaceId)}/audit${search(query)}`),
  pagePreview: (workspaceId: string, pageId: string) => request<PagePreview>(`${ws(workspaceId)}/pages/${seg(pageId)}/preview`),
  /** The static site of a status page, as a zip file's bytes. */
  exportPage: (workspaceId: string, pageId: string) => download(`${ws(workspaceId)}/pages/${seg(pageId)}/export`),

  consentRequest: (id: string) => request<ConsentRequest>(`/oauth/consent/requests/${seg(id)}`),
  pendingRequests: () => request<{ requests: ConsentRequest[] }>('/api/oauth/requests'),
  approve: (id: string, body: { workspaceId: string; access: Access; csrfToken: string }) =>
    post<ConsentRequest>(`/api/oauth/requests/${seg(id)}/approve`, body),
  deny: (id: string, body: { csrfToken: string }) => post<ConsentRequest>(`/api/oauth/requests/${seg(id)}/deny`, body),

  connections: (workspaceId: string) => request<{ connections: Connection[] }>(`${ws(workspaceId)}/connections`),
  activity: (connectionId: string) => request<{ entries: ActivityEntry[] }>(`/api/connections/${seg(connectionId)}/activity`),
  revokeConnection: (id: string) => post<unknown>(`/api/connections/${seg(id)}/revoke`),
};

export const accessLabel = (access: Access) => (access === 'write' ? 'Read & write' : 'Read only');
