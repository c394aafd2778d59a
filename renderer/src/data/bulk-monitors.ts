// One action on many monitors (pause, resume, delete, tag, wire to a channel, put in a group or
// take out of one) over monitor.v1's BulkUpdateMonitors: by the ids chosen on the overview, or by
// its filter ("all matching").
import { useMutation } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { BulkMonitorAction, type BulkUpdateMonitorsResponse, MonitorService } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { OverviewFilters } from './overview.ts';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

export type BulkVerb = 'pause' | 'resume' | 'delete' | 'tag' | 'wire' | 'group';

export const BULK_ACTION: Record<BulkVerb, BulkMonitorAction> = {
  pause: BulkMonitorAction.PAUSE,
  resume: BulkMonitorAction.RESUME,
  delete: BulkMonitorAction.DELETE,
  tag: BulkMonitorAction.ADD_TAG,
  wire: BulkMonitorAction.WIRE_TO_CHANNEL,
  group: BulkMonitorAction.SET_GROUP,
};

const DONE: Record<BulkVerb, string> = { pause: 'Paused', resume: 'Resumed', delete: 'Deleted', tag: 'Tagged', wire: 'Wired', group: 'Regrouped' };

/** The overview's filter as the request names it. */
export const filterOf = (filters: OverviewFilters) => ({ query: filters.q, state: filters.state, type: filters.type, tag: filters.tag });

const verbOf = (action: BulkMonitorAction | undefined) => (Object.entries(BULK_ACTION).find(([, a]) => a === action)?.[0] ?? 'pause') as BulkVerb;

/** What a bulk action did, in words: "Paused 2 of 3 monitors (1 was already).", with any refusal. */
export function bulkDoneText(action: BulkMonitorAction | undefined, answer: BulkUpdateMonitorsResponse): string {
  const selected = answer.ids.length;
  const words = `${DONE[verbOf(action)]} ${answer.changedCount} of ${selected} ${selected === 1 ? 'monitor' : 'monitors'}.`;
  return answer.failures.length > 0 ? `${words} ${answer.failures.length} could not be changed.` : words;
}

export function useBulkUpdateMonitors(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation(MonitorService.method.bulkUpdateMonitors, {
    transport: rpcTransport(workspaceId),
    meta: { done: (variables: { action?: BulkMonitorAction }, answer: BulkUpdateMonitorsResponse) => bulkDoneText(variables.action, answer) },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.monitors) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.notifications) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.monitorChoices(workspaceId) }),
      ]),
  });
}
