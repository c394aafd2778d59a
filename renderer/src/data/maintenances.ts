// A status page's maintenance windows over maintenance.v1 (connect-query): listed, scheduled,
// changed and deleted. Each change refreshes every read of the service and what visitors see.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { MaintenanceService } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

/** Windows listed per page: the screen shows a page's whole calendar at once. */
const WINDOWS_LISTED = 200;

export function useMaintenances(workspaceId: string, pageId: string) {
  return useQuery(
    MaintenanceService.method.listMaintenances,
    { pageId, perPage: WINDOWS_LISTED },
    { transport: rpcTransport(workspaceId), select: (answer) => answer.maintenances },
  );
}

/** The occurrences of a page's windows (one-off and repeating) in a span of days: what the calendar shows. */
export function useMaintenanceOccurrences(workspaceId: string, pageId: string, from: string, to: string) {
  return useQuery(MaintenanceService.method.listOccurrences, { pageId, from, to }, { transport: rpcTransport(workspaceId) });
}

/** Refreshes what a change to a window touches: every read of maintenance.v1, and the previews. */
function useMaintenancesChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.maintenances) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.pagePreview(workspaceId) }),
    ]);
}

/** Schedules a window; answers whether its subscribers were told. */
export function useCreateMaintenance(workspaceId: string) {
  const changed = useMaintenancesChanged(workspaceId);
  return useMutation(MaintenanceService.method.createMaintenance, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

export function useUpdateMaintenance(workspaceId: string) {
  const changed = useMaintenancesChanged(workspaceId);
  return useMutation(MaintenanceService.method.updateMaintenance, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Maintenance saved.' },
    onSuccess: changed,
  });
}

export function useDeleteMaintenance(workspaceId: string) {
  const changed = useMaintenancesChanged(workspaceId);
  return useMutation(MaintenanceService.method.deleteMaintenance, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Maintenance deleted.' },
    onSuccess: changed,
  });
}
