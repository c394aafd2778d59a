// The workspace's notification channels over notification.v1 (connect-query): listed, created,
// changed, deleted, a test notice sent through one, and a channel's delivery log.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { NotificationService } from '../../../proto/gen/notification/v1/notification_pb.js';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

export function useChannels(workspaceId: string) {
  return useQuery(
    NotificationService.method.listNotificationChannels,
    { perPage: 200 },
    { transport: rpcTransport(workspaceId), select: (answer) => answer.channels },
  );
}

/** The first 200 channels with the list's pagination, so a reader can tell whether it holds them all. */
export function useChannelPage(workspaceId: string) {
  return useQuery(NotificationService.method.listNotificationChannels, { perPage: 200 }, { transport: rpcTransport(workspaceId) });
}

/** Refreshes every read of notification.v1 once a change is made. */
function useChannelsChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.notifications) });
}

export function useCreateChannel(workspaceId: string) {
  const changed = useChannelsChanged(workspaceId);
  return useMutation(NotificationService.method.createNotificationChannel, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Channel created.' },
    onSuccess: changed,
  });
}

export function useUpdateChannel(workspaceId: string) {
  const changed = useChannelsChanged(workspaceId);
  return useMutation(NotificationService.method.updateNotificationChannel, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Channel saved.' },
    onSuccess: changed,
  });
}

export function useDeleteChannel(workspaceId: string) {
  const changed = useChannelsChanged(workspaceId);
  return useMutation(NotificationService.method.deleteNotificationChannel, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Channel deleted.' },
    onSuccess: changed,
  });
}

/**
 * Sends a test notice through a channel; answers whether it was delivered (a refusal is an answer,
 * not a failure). The channel's health and delivery log then have news: they are asked again.
 */
export function useSendTest(workspaceId: string) {
  const changed = useChannelsChanged(workspaceId);
  return useMutation(NotificationService.method.sendTestNotification, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

/** One channel, credentials masked. */
export function useChannel(workspaceId: string, id: string) {
  return useQuery(NotificationService.method.getNotificationChannel, { id }, { transport: rpcTransport(workspaceId), select: (answer) => answer.channel });
}

/** A channel's delivery log, newest first: the latest 100 the service keeps. */
export function useChannelDeliveries(workspaceId: string, id: string) {
  return useQuery(
    NotificationService.method.listChannelDeliveries,
    { id, perPage: 100 },
    { transport: rpcTransport(workspaceId), select: (answer) => answer.deliveries },
  );
}

/**
 * Sets which channels alert one monitor, from its form: the service adds it to or removes it from
 * each channel's monitors in one change. Channels, and the overview that names a monitor's
 * channels, are asked again.
 */
export function useSetMonitorChannels(workspaceId: string) {
  const changed = useChannelsChanged(workspaceId);
  const queryClient = useQueryClient();
  return useMutation(NotificationService.method.setMonitorChannels, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Alert channels saved.' },
    onSuccess: () => Promise.all([changed(), queryClient.invalidateQueries({ queryKey: queryKeys.overview(workspaceId) })]),
  });
}
