// The MCP servers this machine's AI editors are set up with, read by the service from the editors'
// files (nothing is run), and the monitors made of the ones the person picks. A pick names a
// server, never its values: the service reads them from the files again, so a command's
// environment and a credential header, shown here redacted, never pass through the page.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { McpServerPick } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';

/** What the editors' files name; read again each time the screen opens, since the files change outside Statusdesk. */
export function useFoundMcpServers() {
  return useQuery({
    queryKey: queryKeys.mcpServers,
    queryFn: ({ signal }) => callDashboard('mcpServers', {}, { signal }),
    staleTime: 0,
    refetchOnMount: 'always',
  });
}

/** Makes a monitor of each picked server; answers the new monitors. */
export function useImportMcpServers(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (picks: McpServerPick[]) => callDashboard('importMcpServers', { workspaceId }, { body: { picks } }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.monitors) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.monitorChoices(workspaceId) }),
      ]),
  });
}
