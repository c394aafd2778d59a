// The service's email settings over settings.v1 (connect-query): read, saved, and a test send.
// Saving changes whether email is available, which the session says (the subscribers tab and the
// channel form ask it), so a save asks for the session again.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { SettingsService } from '../../../proto/gen/settings/v1/settings_pb.js';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

export function useEmailSettings(workspaceId: string) {
  return useQuery(SettingsService.method.getEmailSettings, {}, { transport: rpcTransport(workspaceId) });
}

export function useUpdateEmailSettings(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation(SettingsService.method.updateEmailSettings, {
    transport: rpcTransport(workspaceId),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.settings) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.session }),
      ]),
  });
}

/** Sends a test message; the answer says what the mail server answered. Nothing is cached. */
export function useSendTestEmail(workspaceId: string) {
  return useMutation(SettingsService.method.sendTestEmail, { transport: rpcTransport(workspaceId) });
}
