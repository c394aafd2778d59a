// A status page's incident reports over status_report.v1 (connect-query): listed, opened, updated,
// resolved and deleted. Each change refreshes every read of the service and what visitors see.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { type StatusReport, StatusReportService } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import { queryKeys, RPC_SERVICES } from './query-keys.ts';
import { rpcTransport } from './rpc-transport.ts';

/** Reports listed per page: the screen shows a page's whole history at once. */
const REPORTS_LISTED = 200;

/** A page's reports, open and resolved, as `select` orders them. */
export function useStatusReports(workspaceId: string, pageId: string, select: (reports: StatusReport[]) => StatusReport[] = (reports) => reports) {
  return useQuery(
    StatusReportService.method.listStatusReports,
    { pageId, filter: 'all', perPage: REPORTS_LISTED },
    { transport: rpcTransport(workspaceId), select: (answer) => select(answer.statusReports) },
  );
}

/** Refreshes what a change to a report touches: every read of status_report.v1, and the previews. */
function useReportsChanged(workspaceId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.reports) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.pagePreview(workspaceId) }),
    ]);
}

/** Opens a report; answers whether its subscribers were told. */
export function useCreateStatusReport(workspaceId: string) {
  const changed = useReportsChanged(workspaceId);
  return useMutation(StatusReportService.method.createStatusReport, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

export function useAddStatusReportUpdate(workspaceId: string) {
  const changed = useReportsChanged(workspaceId);
  return useMutation(StatusReportService.method.addStatusReportUpdate, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

export function useResolveStatusReport(workspaceId: string) {
  const changed = useReportsChanged(workspaceId);
  return useMutation(StatusReportService.method.resolveStatusReport, { transport: rpcTransport(workspaceId), onSuccess: changed });
}

export function useDeleteStatusReport(workspaceId: string) {
  const changed = useReportsChanged(workspaceId);
  return useMutation(StatusReportService.method.deleteStatusReport, {
    transport: rpcTransport(workspaceId),
    meta: { done: 'Status report deleted.' },
    onSuccess: changed,
  });
}
