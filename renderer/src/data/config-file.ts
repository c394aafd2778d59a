// The workspace as a file (`statusdesk export`'s format): its download, the plan of an uploaded
// file, and applying it. The service reads, plans and applies with the same code as the commands,
// acting as the signed-in person (server/dashboard/config-routes.ts).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';

/** The workspace's file as it is now: a change, not a query, since each press asks again. */
export function useExportConfig(workspaceId: string) {
  return useMutation({ mutationFn: () => callDashboard('configExport', { workspaceId }) });
}

/** What a file would change; changes nothing. */
export function usePlanConfig(workspaceId: string) {
  return useMutation({ mutationFn: (file: string) => callDashboard('configPlan', { workspaceId }, { body: { file } }) });
}

/** Applies a file: what it changes of monitors and pages is read again, as the audit log (written with each change). */
export function useApplyConfig(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: string) => callDashboard('configApply', { workspaceId }, { body: { file } }),
    meta: {
      done: (_file: string, answer: { applied: number; error: string | null }) =>
        answer.error === null
          ? `File applied: ${answer.applied} ${answer.applied === 1 ? 'change' : 'changes'} made.`
          : `File applied in part: stopped at a refusal after ${answer.applied} ${answer.applied === 1 ? 'change' : 'changes'}.`,
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.monitors) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.pages) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.monitorChoices(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.pagePreview(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.audit(workspaceId) }),
      ]),
  });
}
