// Every key of the UI's query cache, in one place: the data hooks (data/*.ts) read under them,
// the mutations invalidate with them, and `outdatedBy` says which of them each event of the live
// feed makes out of date (live-queries.ts). A workspace's keys all start with `workspaceKey(id)`;
// the RPC services' keys are connect-query's own, which carry the service's name and the
// workspace's transport (`rpcTransportKey`).
import type { AuditQuery, LatencySeries, LiveEvent, OverviewQuery } from '../../../contract/dashboard-api.ts';
import type { LIVE_ENTITIES } from '../../../contract/dashboard.ts';

/**
 * The RPC services the UI calls, by their full protobuf names, which connect-query puts in its
 * keys. Strings, so the live feed can invalidate them without loading the services' descriptors
 * on the first screen (test/ui-data.test.ts checks each against its descriptor).
 */
export const RPC_SERVICES = {
  monitors: 'monitor.v1.MonitorService',
  pages: 'status_page.v1.StatusPageService',
  reports: 'status_report.v1.StatusReportService',
  maintenances: 'maintenance.v1.MaintenanceService',
  notifications: 'notification.v1.NotificationService',
  privateLocations: 'private_location.v1.PrivateLocationService',
  settings: 'settings.v1.SettingsService',
} as const;

export type RpcServiceName = (typeof RPC_SERVICES)[keyof typeof RPC_SERVICES];

/** A key, or the leading part of keys, as TanStack Query takes it. */
type QueryKey = readonly unknown[];

/** The key connect-query files a workspace's RPC queries under (its transport's, see rpc-transport.ts). */
export const rpcTransportKey = (workspaceId: string) => `workspace ${workspaceId}`;

export const workspaceKey = (workspaceId: string) => ['workspace', workspaceId] as const;

export const queryKeys = {
  session: ['session'] as const,
  /** The signed-in person's own: their sessions and passkeys, whatever the workspace. */
  sessions: ['account', 'sessions'] as const,
  passkeys: ['account', 'passkeys'] as const,
  signInMethods: ['sign-in', 'methods'] as const,

  keys: (workspaceId: string) => [...workspaceKey(workspaceId), 'keys'] as const,
  members: (workspaceId: string) => [...workspaceKey(workspaceId), 'members'] as const,
  invitations: (workspaceId: string) => [...workspaceKey(workspaceId), 'invitations'] as const,
  /** An invitation link's preview, by its secret: read without a session. */
  invitationPreview: (token: string) => ['invitation', token] as const,
  connections: (workspaceId: string) => [...workspaceKey(workspaceId), 'connections'] as const,
  activity: (connectionId: string) => ['connection', connectionId, 'activity'] as const,
  consentRequest: (id: string) => ['consent', id] as const,
  pendingRequests: ['consent', 'pending'] as const,
  /** The MCP servers this machine's editors are set up with: the machine's, not a workspace's. */
  mcpServers: ['mcp-servers'] as const,

  /** Without filters: every window of the overview, whatever its filters. */
  overview: (workspaceId: string, filters?: OverviewQuery, firstOffset?: number) =>
    filters === undefined
      ? ([...workspaceKey(workspaceId), 'overview'] as const)
      : ([...workspaceKey(workspaceId), 'overview', filters, firstOffset ?? 0] as const),
  /** What a monitor's screen reads of the JSON API (latency, results, regions). */
  monitorViews: (workspaceId: string, monitorId: string) => [...workspaceKey(workspaceId), 'monitor', monitorId] as const,
  latency: (workspaceId: string, monitorId: string, window: LatencySeries['window']) =>
    [...queryKeys.monitorViews(workspaceId, monitorId), 'latency', window] as const,
  results: (workspaceId: string, monitorId: string, limit: number) => [...queryKeys.monitorViews(workspaceId, monitorId), 'results', limit] as const,
  regions: (workspaceId: string, monitorId: string) => [...queryKeys.monitorViews(workspaceId, monitorId), 'regions'] as const,
  plan: (workspaceId: string) => [...workspaceKey(workspaceId), 'plan'] as const,
  /** The monitors offered as choices (data/monitor-search.ts): searches and chosen ones by id, through the overview. */
  monitorChoices: (workspaceId: string) => [...workspaceKey(workspaceId), 'monitor-choices'] as const,
  audit: (workspaceId: string, query?: AuditQuery) =>
    query === undefined ? ([...workspaceKey(workspaceId), 'audit'] as const) : ([...workspaceKey(workspaceId), 'audit', query] as const),
  /** Without a page: every page's preview. */
  pagePreview: (workspaceId: string, pageId?: string) =>
    pageId === undefined ? ([...workspaceKey(workspaceId), 'page-preview'] as const) : ([...workspaceKey(workspaceId), 'page-preview', pageId] as const),

  /**
   * A filter over a workspace's RPC queries: all of them, one service's, or one method's. It
   * matches connect-query's keys (`['connect-query', { transport, serviceName, methodName, … }]`)
   * by their leading part, as TanStack Query matches a filter.
   */
  rpc: (workspaceId: string, serviceName?: RpcServiceName, methodName?: string) =>
    [
      'connect-query',
      {
        transport: rpcTransportKey(workspaceId),
        ...(serviceName === undefined ? {} : { serviceName }),
        ...(methodName === undefined ? {} : { methodName }),
      },
    ] as const,
};

/** What reads each kind of change, by the changed thing's id. */
const READERS: Record<(typeof LIVE_ENTITIES)[number], (workspaceId: string, id: string) => QueryKey[]> = {
  monitor: (ws, id) => [
    queryKeys.overview(ws),
    queryKeys.monitorViews(ws, id),
    queryKeys.rpc(ws, RPC_SERVICES.monitors),
    queryKeys.monitorChoices(ws),
    queryKeys.pagePreview(ws),
  ],
  page: (ws) => [queryKeys.rpc(ws, RPC_SERVICES.pages), queryKeys.pagePreview(ws)],
  report: (ws) => [queryKeys.rpc(ws, RPC_SERVICES.reports), queryKeys.pagePreview(ws)],
  maintenance: (ws) => [queryKeys.rpc(ws, RPC_SERVICES.maintenances), queryKeys.pagePreview(ws)],
  channel: (ws) => [queryKeys.rpc(ws, RPC_SERVICES.notifications)],
  key: (ws) => [queryKeys.keys(ws)],
  connection: (ws) => [queryKeys.connections(ws)],
};

/** The RPC reads a check's new state changes: a monitor's status, summary and response logs (its settings did not change). */
const STATE_READERS = ['GetMonitorStatus', 'GetMonitorSummary', 'ListResponseLogs'];

/** The queries an event of the workspace's feed makes out of date. */
export function outdatedBy(workspaceId: string, event: LiveEvent): QueryKey[] {
  if (event.type === 'changed') return READERS[event.entity](workspaceId, event.id);
  return [
    queryKeys.overview(workspaceId),
    queryKeys.monitorViews(workspaceId, event.monitorId),
    ...STATE_READERS.map((method) => queryKeys.rpc(workspaceId, RPC_SERVICES.monitors, method)),
    queryKeys.pagePreview(workspaceId),
  ];
}
