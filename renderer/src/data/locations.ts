// The places a workspace's monitors are checked from, over private_location.v1 (connect-query):
// listed, created and changed, their runner's token rotated, deleted.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { PrivateLocationService } from '../../../proto/gen/private_location/v1/private_location_pb.js';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

export function useLocations(workspaceId: string) {
  return useQuery(
    PrivateLocationService.method.listPrivateLocations,
    { perPage: 100 },
    { transport: rpcTransport(workspaceId), select: (answer) => answer.privateLocations },
  );
}

/** Refreshes every read of private_location.v1 once a change is made (the live feed does not announce locations). */
function useLocationsChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.privateLocations) });
}

/** Creates a location; answers it with its runner's token, shown once. */
export function useCreateLocation(workspaceId: string) {
  const changed = useLocationsChanged(workspaceId);
  return useMutation(PrivateLocationService.method.createPrivateLocation, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Private location created.' },
    onSuccess: changed,
  });
}

export function useUpdateLocation(workspaceId: string) {
  const changed = useLocationsChanged(workspaceId);
  return useMutation(PrivateLocationService.method.updatePrivateLocation, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Private location saved.' },
    onSuccess: changed,
  });
}

/** Issues a new token: the runner holding the old one stops. */
export function useRotateToken(workspaceId: string) {
  const changed = useLocationsChanged(workspaceId);
  return useMutation(PrivateLocationService.method.rotatePrivateLocationToken, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

export function useDeleteLocation(workspaceId: string) {
  const changed = useLocationsChanged(workspaceId);
  return useMutation(PrivateLocationService.method.deletePrivateLocation, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Private location deleted.' },
    onSuccess: changed,
  });
}
