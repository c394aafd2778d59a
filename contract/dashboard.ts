// The names the dashboard's two sides share: the service (server/dashboard/) and the UI
// (renderer/). Plain TypeScript that imports nothing, so the service and the browser bundle both
// take it as it is; test/layers.test.ts keeps contract/ free of server/ and renderer/ code.

/** The header in which the page sends its half of the session, beside the session cookie. */
export const SESSION_TOKEN_HEADER = 'x-statusdesk-session';

/** The header naming the workspace a dashboard RPC call is about (the service checks membership). */
export const WORKSPACE_HEADER = 'x-statusdesk-workspace';

/** The meta element in which the sign-in answer hands the page its session token, read once and removed. */
export const SESSION_TOKEN_META = 'statusdesk-session';

/** Where the dashboard port answers the RPC services (the Connect protocol). */
export const RPC_PATH = '/rpc';

/** Paths the UI's router draws; the service answers each with index.html. */
export const UI_ROUTES = [
  '/',
  '/monitors/new',
  '/monitors/import',
  '/monitors/:id',
  '/monitors/:id/edit',
  '/pages',
  '/pages/:id',
  '/notifications',
  '/notifications/:id/deliveries',
  '/locations',
  '/audit',
  '/connect',
  '/settings',
  '/settings/general',
  '/settings/general/api-keys',
  '/settings/general/email',
  '/settings/general/import-export',
  '/settings/general/members',
  '/settings/account',
  '/settings/integrations',
  '/settings/integrations/connected-apps',
  '/keys',
  '/connections',
  '/oauth/consent',
  '/signin',
  '/invite/:token',
] as const;

export type UiRoute = (typeof UI_ROUTES)[number];

/**
 * Every call of the dashboard's JSON API: its method and path (`:name` is a parameter). The
 * answers and bodies of the JSON ones are declared in `dashboard-api.ts`; `exportPage` answers a
 * zip file and `events` a text/event-stream of `LIVE_EVENT_TYPES`.
 */
export const DASHBOARD_API = {
  session: { method: 'GET', path: '/api/session' },
  signOut: { method: 'POST', path: '/api/signout' },

  keys: { method: 'GET', path: '/api/workspaces/:workspaceId/keys' },
  createKey: { method: 'POST', path: '/api/workspaces/:workspaceId/keys' },
  revokeKey: { method: 'POST', path: '/api/keys/:keyId/revoke' },

  /** The workspace's people and the caller's own role in it. */
  members: { method: 'GET', path: '/api/workspaces/:workspaceId/members' },
  changeRole: { method: 'POST', path: '/api/workspaces/:workspaceId/members/:userId/role' },
  removeMember: { method: 'POST', path: '/api/workspaces/:workspaceId/members/:userId/remove' },
  invitations: { method: 'GET', path: '/api/workspaces/:workspaceId/invitations' },
  invite: { method: 'POST', path: '/api/workspaces/:workspaceId/invitations' },
  revokeInvitation: { method: 'POST', path: '/api/workspaces/:workspaceId/invitations/:invitationId/revoke' },

  /** The signed-in person's own sessions and passkeys. */
  sessions: { method: 'GET', path: '/api/sessions' },
  endSession: { method: 'POST', path: '/api/sessions/:sessionId/end' },
  passkeys: { method: 'GET', path: '/api/passkeys' },
  passkeyOptions: { method: 'POST', path: '/api/passkeys/options' },
  addPasskey: { method: 'POST', path: '/api/passkeys' },
  removePasskey: { method: 'POST', path: '/api/passkeys/:passkeyId/remove' },

  /**
   * Signing in without a session (no cookie, no page token needed): the ways this service offers,
   * a passkey's challenge and its answer, an invitation's preview and its acceptance. Each answer
   * that opens a session sets the cookie and returns the page's token.
   */
  signInMethods: { method: 'GET', path: '/signin/methods' },
  signInOptions: { method: 'POST', path: '/signin/passkey/options' },
  signInPasskey: { method: 'POST', path: '/signin/passkey' },
  invitation: { method: 'GET', path: '/invite/:token/preview' },
  acceptInvitation: { method: 'POST', path: '/invite/:token/accept' },

  connections: { method: 'GET', path: '/api/workspaces/:workspaceId/connections' },
  activity: { method: 'GET', path: '/api/connections/:connectionId/activity' },
  revokeConnection: { method: 'POST', path: '/api/connections/:connectionId/revoke' },

  overview: { method: 'GET', path: '/api/workspaces/:workspaceId/overview' },
  latency: { method: 'GET', path: '/api/workspaces/:workspaceId/monitors/:monitorId/latency' },
  results: { method: 'GET', path: '/api/workspaces/:workspaceId/monitors/:monitorId/results' },
  regions: { method: 'GET', path: '/api/workspaces/:workspaceId/monitors/:monitorId/regions' },
  incidents: { method: 'GET', path: '/api/workspaces/:workspaceId/monitors/:monitorId/incidents' },
  plan: { method: 'GET', path: '/api/workspaces/:workspaceId/plan' },
  audit: { method: 'GET', path: '/api/workspaces/:workspaceId/audit' },

  /** The MCP servers this machine's AI editors are set up with (read from their files, nothing run). */
  mcpServers: { method: 'GET', path: '/api/mcp-servers' },
  importMcpServers: { method: 'POST', path: '/api/workspaces/:workspaceId/mcp-servers/import' },

  pagePreview: { method: 'GET', path: '/api/workspaces/:workspaceId/pages/:pageId/preview' },
  exportPage: { method: 'POST', path: '/api/workspaces/:workspaceId/pages/:pageId/export' },

  /** The workspace as `statusdesk export` writes it; the plan of an uploaded file; applying it. */
  configExport: { method: 'GET', path: '/api/workspaces/:workspaceId/config/export' },
  configPlan: { method: 'POST', path: '/api/workspaces/:workspaceId/config/plan' },
  configApply: { method: 'POST', path: '/api/workspaces/:workspaceId/config/apply' },

  events: { method: 'GET', path: '/api/workspaces/:workspaceId/events' },

  consentRequest: { method: 'GET', path: '/oauth/consent/requests/:id' },
  pendingRequests: { method: 'GET', path: '/api/oauth/requests' },
  approve: { method: 'POST', path: '/api/oauth/requests/:id/approve' },
  deny: { method: 'POST', path: '/api/oauth/requests/:id/deny' },
} as const satisfies Record<string, { method: 'GET' | 'POST'; path: string }>;

export type DashboardEndpoint = keyof typeof DASHBOARD_API;

/** The calls that answer something other than JSON (or nothing): a file, a stream, 204. */
export type NonJsonEndpoint = 'signOut' | 'exportPage' | 'events';

/** The names of a path's `:name` parameters. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The parameters an endpoint's path needs, by name. */
export type PathParams<E extends DashboardEndpoint> = { [Name in ParamNames<(typeof DASHBOARD_API)[E]['path']>]: string };

/** The path of an endpoint with its parameters put in, each encoded as one segment. */
export function pathOf<E extends DashboardEndpoint>(endpoint: E, params: PathParams<E>): string {
  const values = params as Record<string, string>;
  return DASHBOARD_API[endpoint].path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** The kinds of event the live feed (`events`) sends, each as its SSE event name. */
export const LIVE_EVENT_TYPES = ['state', 'changed'] as const;

/** What a `changed` event of the live feed names. */
export const LIVE_ENTITIES = ['monitor', 'page', 'report', 'maintenance', 'channel', 'key', 'connection'] as const;
