// A workspace's status pages over status_page.v1 (connect-query): the list with each page's
// number of components, one page, its components and its subscribers, and the changes made to
// them; and what the JSON API makes of a page: its preview and its export.
import { callUnaryMethod, createQueryOptions, useMutation, useQuery } from '@connectrpc/connect-query';
import { useMutation as useTanStackMutation, useQueries, useQuery as useTanStackQuery, useQueryClient } from '@tanstack/react-query';
import { StatusPageService } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { callDashboard, downloadFile } from './dashboard-client.ts';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

/** The pages, each with how many components it has (the list does not say: each page's are asked for at once). */
export function useStatusPages(workspaceId: string) {
  const transport = rpcTransport(workspaceId);
  const list = useQuery(StatusPageService.method.listStatusPages, {}, { transport });
  const pages = list.data?.statusPages ?? [];
  return useQueries({
    queries: pages.map((page) => createQueryOptions(StatusPageService.method.listPageComponents, { pageId: page.id }, { transport })),
    combine: (counts) => {
      const error = list.error ?? counts.find((count) => count.error)?.error ?? null;
      const ready = list.data !== undefined && counts.every((count) => count.data !== undefined);
      return { error, data: ready ? pages.map((page, i) => ({ page, components: counts[i]?.data?.components.length ?? 0 })) : undefined };
    },
  });
}

export function useStatusPage(workspaceId: string, pageId: string) {
  return useQuery(StatusPageService.method.getStatusPage, { page: pageId }, { transport: rpcTransport(workspaceId), select: (answer) => answer.statusPage! });
}

/** A page's components, in display order (position, then id), as the service lists them. */
export function usePageComponents(workspaceId: string, pageId: string) {
  return useQuery(StatusPageService.method.listPageComponents, { pageId }, { transport: rpcTransport(workspaceId), select: (answer) => answer.components });
}

/** Refreshes what a change to the workspace's pages touches: every read of status_page.v1, and the previews. */
export function usePagesChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.pages) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.pagePreview(workspaceId) }),
    ]);
}

export function useCreateStatusPage(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.createStatusPage, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Status page created.' },
    onSuccess: changed,
  });
}

/** Changes a page's title, slug, description, branding or custom domain: the fields set change, the others stay. */
export function useUpdateStatusPage(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.updateStatusPage, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Status page saved.' },
    onSuccess: changed,
  });
}

export function useDeleteStatusPage(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.deleteStatusPage, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Status page deleted.' },
    onSuccess: changed,
  });
}

export function useAddPageComponent(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.addPageComponent, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Component added.' },
    onSuccess: changed,
  });
}

export function useUpdatePageComponent(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.updatePageComponent, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Component saved.' },
    onSuccess: changed,
  });
}

export function useRemovePageComponent(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.removePageComponent, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Component removed.' },
    onSuccess: changed,
  });
}

/**
 * Saves new positions of a page's components, one UpdatePageComponent each, without refreshing:
 * a screen that reorders saves several times in a row and refreshes once the last has landed
 * (`usePagesChanged`), so a refresh never shows an order from between two saves.
 */
export function useMovePageComponents(workspaceId: string) {
  const transport = rpcTransport(workspaceId);
  return useTanStackMutation({
    mutationFn: (moves: { id: string; position: number }[]) =>
      Promise.all(moves.map((move) => callUnaryMethod(transport, StatusPageService.method.updatePageComponent, move))),
  });
}

export function useSubscribers(workspaceId: string, pageId: string) {
  return useQuery(StatusPageService.method.listSubscribers, { pageId }, { transport: rpcTransport(workspaceId), select: (answer) => answer.subscribers });
}

export function useAddSubscriber(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.addSubscriber, { transport: rpcTransport(workspaceId), meta: { done: 'Subscriber added.' }, onSuccess: changed });
}

export function useRemoveSubscriber(workspaceId: string) {
  const changed = usePagesChanged(workspaceId);
  return useMutation(StatusPageService.method.removeSubscriber, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Subscriber removed.' },
    onSuccess: changed,
  });
}

/**
 * What the page's visitors see now (its public summary). `shape` names what the page is made of
 * (its components, their monitors and groups): another shape is another preview.
 */
export function usePagePreview(workspaceId: string, pageId: string, shape: string) {
  return useTanStackQuery({
    queryKey: [...queryKeys.pagePreview(workspaceId, pageId), shape],
    queryFn: ({ signal }) => callDashboard('pagePreview', { workspaceId, pageId }, { signal }),
  });
}

/** The static copy of a page, as a zip file's bytes and name. */
export function useExportPage(workspaceId: string) {
  return useTanStackMutation({
    mutationFn: (pageId: string) => downloadFile('exportPage', { workspaceId, pageId }, 'status-page.zip'),
  });
}
