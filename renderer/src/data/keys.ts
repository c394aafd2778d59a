// The workspace's API keys: listed, created (the secret shown once) and revoked. The file to
// imitate for a concept of the JSON API: a query and its key, and the changes, each refreshing
// what it changed before it resolves.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Access } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

/** The keys; `watchMs` asks again that often while the window is visible. */
export function useKeys(workspaceId: string, watchMs?: number) {
  return useQuery({
    queryKey: queryKeys.keys(workspaceId),
    queryFn: ({ signal }) => callDashboard('keys', { workspaceId }, { signal }),
    refetchInterval: watchMs,
  });
}

export function useCreateKey(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; scope: Access }) => callDashboard('createKey', { workspaceId }, { body }),
    meta: { done: 'API key created.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.keys(workspaceId) }),
  });
}

export function useRevokeKey(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => callDashboard('revokeKey', { keyId }),
    meta: { done: 'API key revoked.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.keys(workspaceId) }),
  });
}
