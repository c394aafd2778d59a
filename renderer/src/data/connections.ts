// The apps connected to the workspace through OAuth, what each changed, and revoking one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

/** The connections; `watchMs` asks again that often while the window is visible. */
export function useConnections(workspaceId: string, watchMs?: number) {
  return useQuery({
    queryKey: queryKeys.connections(workspaceId),
    queryFn: ({ signal }) => callDashboard('connections', { workspaceId }, { signal }),
    refetchInterval: watchMs,
  });
}

/** The changes a connection made, newest first. */
export function useActivity(connectionId: string) {
  return useQuery({
    queryKey: queryKeys.activity(connectionId),
    queryFn: ({ signal }) => callDashboard('activity', { connectionId }, { signal }),
  });
}

export function useRevokeConnection(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (connectionId: string) => callDashboard('revokeConnection', { connectionId }),
    meta: { done: 'Connection revoked.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.connections(workspaceId) }),
  });
}
