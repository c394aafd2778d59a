// The workspace's audit log: a page of entries at a time, newest first, each page continuing
// below the last one's `next`.
import { type InfiniteData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { AuditQuery, DashboardAnswer } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

type AuditPage = DashboardAnswer<'audit'>;

export function useAuditLog(workspaceId: string, query: AuditQuery) {
  const queryClient = useQueryClient();
  const queryKey = queryKeys.audit(workspaceId, query);
  const log = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) => callDashboard('audit', { workspaceId }, { query: { ...query, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
  return {
    ...log,
    entries: log.data?.pages.flatMap((page) => page.entries) ?? [],
    /** Shows the newest entries again: the first page, asked for again; the pages loaded after it are dropped. */
    refreshFromTop: async () => {
      queryClient.setQueryData<InfiniteData<AuditPage, string | undefined>>(queryKey, (data) =>
        data ? { pages: data.pages.slice(0, 1), pageParams: data.pageParams.slice(0, 1) } : data,
      );
      await log.refetch();
    },
  };
}
