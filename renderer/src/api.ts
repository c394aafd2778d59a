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

/** Where the page keeps its session token: this origin's storage, which no other port or site can read. */
const SESSION_TOKEN_KEY = 'statusdesk.sessionToken';
/** The header the dashboard API wants the session token in, beside the session cookie. */
const SESSION_TOKEN_HEADER = 'x-statusdesk-session';

/**
 * The sign-in link hands the page its session token in the address fragment, which is never sent
 * to a server. It is kept in this origin's storage and dropped from the address at once.
 */
export function adoptSessionToken(): void {
  const token = /(?:^#|&)session=([A-Za-z0-9_-]+)/.exec(location.hash)?.[1];
  if (!token) return;
  localStorage.setItem(SESSION_TOKEN_KEY, token);
  history.replaceState(history.state, '', location.pathname + location.search);
}

export async function request<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = localStorage.getItem(SESSION_TOKEN_KEY);
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
    if (response.status === 401 && path.startsWith('/api/')) signedOutListeners.forEach((listener) => listener());
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

const post = <T>(path: string, body: unknown = {}) => request<T>(path, { method: 'POST', body });
const ws = (id: string) => `/api/workspaces/${encodeURIComponent(id)}`;
const seg = encodeURIComponent;

export const api = {
  session: () => request<Session>('/api/session'),
  signOut: () => post<void>('/api/signout').finally(() => localStorage.removeItem(SESSION_TOKEN_KEY)),

  keys: (workspaceId: string) => request<{ keys: ApiKey[] }>(`${ws(workspaceId)}/keys`),
  createKey: (workspaceId: string, body: { name: string; scope: Access }) =>
    post<{ key: ApiKey; secret: string }>(`${ws(workspaceId)}/keys`, body),
  revokeKey: (id: string) => post<{ key: ApiKey }>(`/api/keys/${seg(id)}/revoke`),

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
