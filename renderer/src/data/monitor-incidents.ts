// A monitor's incidents (the spans it was down) from the JSON API. Kept under the monitor's views'
// key, so a state change the live feed hears refreshes them with the rest of its screen.
import { useQuery as useRpcQuery } from '@connectrpc/connect-query';
import { useQuery } from '@tanstack/react-query';
import { StatusPageService } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

/** Newest first, at most 100. */
export function useMonitorIncidents(workspaceId: string, monitorId: string, refreshMs?: number) {
  return useQuery({
    queryKey: [...queryKeys.monitorViews(workspaceId, monitorId), 'incidents'],
    queryFn: ({ signal }) => callDashboard('incidents', { workspaceId, monitorId }, { signal }),
    refetchInterval: refreshMs,
  });
}

/** The components of the page a report from an incident goes on; nothing is asked before a page is chosen. */
export function useComponentsOfChosenPage(workspaceId: string, pageId: string) {
  return useRpcQuery(
    StatusPageService.method.listPageComponents,
    { pageId },
    { transport: rpcTransport(workspaceId), enabled: pageId !== '', select: (answer) => answer.components },
  );
}
