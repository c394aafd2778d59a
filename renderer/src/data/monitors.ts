// A workspace's monitors over monitor.v1 (connect-query): one monitor, its status, summary,
// response logs and (MCP) tools, and the changes the screens make (create, update, check now,
// pause or resume, delete, accept an MCP server's tools).
// The file to imitate for an RPC service: connect-query's hooks on the workspace's transport,
// and each change refreshing what it changed before it resolves.
import { callUnaryMethod, useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient, useMutation as useTanStackMutation } from '@tanstack/react-query';
import type { MonitorType } from '../../../contract/dashboard-api.ts';
import { type GetMonitorResponse, MonitorService, type SummaryWindow } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { ApiError } from './api-error.ts';
import type { WireMonitor, WireUpdate } from './monitor-messages.ts';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

/** One monitor, as `select` makes it of the answer. */
export function useMonitor<T = GetMonitorResponse>(
  workspaceId: string,
  id: string,
  options: { select?: (answer: GetMonitorResponse) => T; refreshMs?: number } = {},
) {
  return useQuery(
    MonitorService.method.getMonitor,
    { id },
    { transport: rpcTransport(workspaceId), select: options.select, refetchInterval: options.refreshMs },
  );
}

export function useMonitorStatus(workspaceId: string, id: string, refreshMs?: number) {
  return useQuery(MonitorService.method.getMonitorStatus, { id }, { transport: rpcTransport(workspaceId), refetchInterval: refreshMs });
}

export function useMonitorSummary(workspaceId: string, id: string, window: SummaryWindow, refreshMs?: number) {
  return useQuery(MonitorService.method.getMonitorSummary, { id, window }, { transport: rpcTransport(workspaceId), refetchInterval: refreshMs });
}

/** The latest responses of an HTTP monitor; asked for only when `enabled`. */
export function useResponseLogs(workspaceId: string, id: string, window: SummaryWindow, enabled: boolean, refreshMs?: number) {
  return useQuery(
    MonitorService.method.listResponseLogs,
    { id, window, limit: 20 },
    { transport: rpcTransport(workspaceId), enabled, refetchInterval: refreshMs },
  );
}

/**
 * Refreshes everything read of a monitor: its RPC reads, its views of the JSON API, the overview
 * and the choices. A deleted monitor's own reads are only marked out of date: asked again, they
 * would say it does not exist to the screen that is leaving it.
 */
function useMonitorChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return (id: string, { removed = false } = {}) => {
    const own = removed ? ({ refetchType: 'none' } as const) : {};
    return Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.monitors), ...own }),
      queryClient.invalidateQueries({ queryKey: queryKeys.monitorViews(workspaceId, id), ...own }),
      queryClient.invalidateQueries({ queryKey: queryKeys.overview(workspaceId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.monitorChoices(workspaceId) }),
    ]);
  };
}

/**
 * An MCP monitor's pinned tools and its open drift; asked for only when `enabled`. Kept current
 * by the live feed: a drift and an acceptance are audited changes of the monitor, announced as
 * `changed monitor`, which makes every read of the monitor service out of date.
 */
export function useMcpTools(workspaceId: string, id: string, enabled: boolean, refreshMs?: number) {
  return useQuery(MonitorService.method.getMCPTools, { id }, { transport: rpcTransport(workspaceId), enabled, refetchInterval: refreshMs });
}

/** Accepts the tools an MCP monitor's server lists now: they become its pinned set, and its drift closes. */
export function useAcceptMcpTools(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  return useMutation(MonitorService.method.acceptMCPTools, { transport: rpcTransport(workspaceId), onSuccess: (_answer, { id }) => changed(id ?? '') });
}

/** Checks a monitor now, in each of its regions; answers the checks. */
export function useTriggerMonitor(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  return useMutation(MonitorService.method.triggerMonitor, { transport: rpcTransport(workspaceId), onSuccess: (_answer, { id }) => changed(id ?? '') });
}

export function useDeleteMonitor(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  return useMutation(MonitorService.method.deleteMonitor, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Monitor deleted.' },
    onSuccess: (_answer, { id }) => changed(id ?? '', { removed: true }),
  });
}

/** Pauses or resumes a monitor: its type's update, with `active` alone (without an update mask only the fields present change). */
export function useSetActive(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  const transport = rpcTransport(workspaceId);
  return useTanStackMutation({
    meta: { done: ({ active }: { active: boolean }) => (active ? 'Monitor resumed.' : 'Monitor paused.') },
    mutationFn: async ({ id, type, active }: { id: string; type: MonitorType; active: boolean }): Promise<unknown> => {
      const request = { id, monitor: { active } };
      switch (type) {
        case 'tcp':
          return callUnaryMethod(transport, MonitorService.method.updateTCPMonitor, request);
        case 'grpc':
          return callUnaryMethod(transport, MonitorService.method.updateGRPCMonitor, request);
        case 'http':
          return callUnaryMethod(transport, MonitorService.method.updateHTTPMonitor, request);
        case 'mcp':
          return callUnaryMethod(transport, MonitorService.method.updateMCPMonitor, request);
        case 'ping':
          return callUnaryMethod(transport, MonitorService.method.updatePingMonitor, request);
        case 'websocket':
          return callUnaryMethod(transport, MonitorService.method.updateWebSocketMonitor, request);
        case 'certificate':
          return callUnaryMethod(transport, MonitorService.method.updateCertificateMonitor, request);
        case 'dns':
          return callUnaryMethod(transport, MonitorService.method.updateDNSMonitor, request);
        case 'heartbeat':
          return callUnaryMethod(transport, MonitorService.method.updateHeartbeatMonitor, request);
      }
    },
    onSuccess: (_answer, { id }) => changed(id),
  });
}

/** The create call of the monitor's type. */
function createdBy(transport: ReturnType<typeof rpcTransport>, wire: WireMonitor) {
  switch (wire.type) {
    case 'tcp':
      return callUnaryMethod(transport, MonitorService.method.createTCPMonitor, { monitor: wire.monitor });
    case 'grpc':
      return callUnaryMethod(transport, MonitorService.method.createGRPCMonitor, { monitor: wire.monitor });
    case 'http':
      return callUnaryMethod(transport, MonitorService.method.createHTTPMonitor, { monitor: wire.monitor });
    case 'mcp':
      return callUnaryMethod(transport, MonitorService.method.createMCPMonitor, { monitor: wire.monitor });
    case 'ping':
      return callUnaryMethod(transport, MonitorService.method.createPingMonitor, { monitor: wire.monitor });
    case 'websocket':
      return callUnaryMethod(transport, MonitorService.method.createWebSocketMonitor, { monitor: wire.monitor });
    case 'certificate':
      return callUnaryMethod(transport, MonitorService.method.createCertificateMonitor, { monitor: wire.monitor });
    case 'dns':
      return callUnaryMethod(transport, MonitorService.method.createDNSMonitor, { monitor: wire.monitor });
    case 'heartbeat':
      return callUnaryMethod(transport, MonitorService.method.createHeartbeatMonitor, { monitor: wire.monitor });
  }
}

/** A monitor just created: its id, and for a heartbeat monitor its ping URL, which this answer alone carries. */
export interface CreatedMonitor {
  id: string;
  pingUrl?: string;
}

/** Creates a monitor of its type; answers the new monitor's id (and a heartbeat monitor's ping URL). */
export function useCreateMonitor(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  const transport = rpcTransport(workspaceId);
  return useTanStackMutation({
    meta: { done: 'Monitor created.' },
    mutationFn: async (wire: WireMonitor): Promise<CreatedMonitor> => {
      const answer = await createdBy(transport, wire);
      if (!answer.monitor) throw new ApiError(500, 'INTERNAL', 'The service created the monitor but did not return it.');
      return { id: answer.monitor.id, ...('pingUrl' in answer && answer.pingUrl ? { pingUrl: answer.pingUrl } : {}) };
    },
    onSuccess: ({ id }) => changed(id),
  });
}

/**
 * A heartbeat monitor's latest pings, newest first, with their bodies; asked for only when
 * `enabled`. A ping is no audited change the live feed announces: the screen asks again every
 * `refreshMs`, and with every state change of the monitor.
 */
export function useHeartbeatPings(workspaceId: string, id: string, enabled: boolean, refreshMs?: number) {
  return useQuery(MonitorService.method.listHeartbeatPings, { id, limit: 20 }, { transport: rpcTransport(workspaceId), enabled, refetchInterval: refreshMs });
}

/** Gives a heartbeat monitor a new ping URL; answers it, the one time it is shown. The old URL answers 404 from then on. */
export function useRotateHeartbeatToken(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  return useMutation(MonitorService.method.rotateHeartbeatToken, { transport: rpcTransport(workspaceId), onSuccess: (_answer, { id }) => changed(id ?? '') });
}

interface UpdateVariables {
  id: string;
  update: WireUpdate;
  /** When the monitor last changed, as the form read it: an answer with the same time changed nothing. */
  before?: Timestamp;
}

const sameInstant = (a: Timestamp, b: Timestamp) => a.seconds === b.seconds && a.nanos === b.nanos;

/** Changes the fields of a monitor that its update names in its mask. */
export function useUpdateMonitor(workspaceId: string) {
  const changed = useMonitorChanged(workspaceId);
  const transport = rpcTransport(workspaceId);
  return useTanStackMutation({
    meta: {
      // A save that changed nothing leaves the monitor's time of change as it was (the service records nothing).
      done: ({ before }: UpdateVariables, answer: { monitor?: { updatedAt?: Timestamp } } | undefined) =>
        before && answer?.monitor?.updatedAt && sameInstant(before, answer.monitor.updatedAt) ? 'Nothing changed: the monitor is as it was.' : 'Monitor saved.',
    },
    mutationFn: async ({ id, update }: UpdateVariables): Promise<unknown> => {
      const { updateMask } = update;
      switch (update.type) {
        case 'tcp':
          return callUnaryMethod(transport, MonitorService.method.updateTCPMonitor, { id, monitor: update.monitor, updateMask });
        case 'grpc':
          return callUnaryMethod(transport, MonitorService.method.updateGRPCMonitor, { id, monitor: update.monitor, updateMask });
        case 'http':
          return callUnaryMethod(transport, MonitorService.method.updateHTTPMonitor, { id, monitor: update.monitor, updateMask });
        case 'mcp':
          return callUnaryMethod(transport, MonitorService.method.updateMCPMonitor, { id, monitor: update.monitor, updateMask });
        case 'ping':
          return callUnaryMethod(transport, MonitorService.method.updatePingMonitor, { id, monitor: update.monitor, updateMask });
        case 'websocket':
          return callUnaryMethod(transport, MonitorService.method.updateWebSocketMonitor, { id, monitor: update.monitor, updateMask });
        case 'certificate':
          return callUnaryMethod(transport, MonitorService.method.updateCertificateMonitor, { id, monitor: update.monitor, updateMask });
        case 'dns':
          return callUnaryMethod(transport, MonitorService.method.updateDNSMonitor, { id, monitor: update.monitor, updateMask });
        case 'heartbeat':
          return callUnaryMethod(transport, MonitorService.method.updateHeartbeatMonitor, { id, monitor: update.monitor, updateMask });
      }
    },
    onSuccess: (_answer, { id }) => changed(id),
  });
}
