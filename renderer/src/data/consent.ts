// Consent requests: one as the consent page follows it until it is decided, the pending ones a
// signed-in person may decide, and the decision.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Access, ConsentRequest } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

/** How often a waiting page asks whether the owner decided. */
const WAITING_POLL_MS = 1000;
/** A page that can decide asks less often: only to notice a decision made elsewhere. */
const DECIDING_POLL_MS = 3000;
/** Pending requests are asked for again this often while the window is visible. */
const PENDING_POLL_MS = 3000;

/**
 * When to ask about a request again: while it is pending, until it expires. The last ask, just
 * past the expiry, lets the service say so.
 */
function nextAsk(request: ConsentRequest | undefined): number | false {
  if (!request || request.status !== 'pending' || request.redirectTo) return false;
  const untilExpiry = new Date(request.expiresAt).getTime() - Date.now();
  if (untilExpiry <= 0) return false;
  return Math.min(request.canDecide ? DECIDING_POLL_MS : WAITING_POLL_MS, Math.max(50, untilExpiry + 50));
}

/** The request a consent page shows, followed until it is decided (in this tab or elsewhere). */
export function useConsentRequest(id: string) {
  return useQuery({
    queryKey: queryKeys.consentRequest(id),
    queryFn: ({ signal }) => callDashboard('consentRequest', { id }, { signal }),
    // The service restarting is not an answer: keep asking; anything it says is.
    retry: (_count, error) => error.status === 0,
    retryDelay: 2 * WAITING_POLL_MS,
    refetchInterval: (query) => nextAsk(query.state.data),
    // The browser waiting for the decision is often behind the window that decides.
    refetchIntervalInBackground: true,
  });
}

/** The requests the signed-in person may decide, asked for again while the window is visible. */
export function usePendingRequests() {
  return useQuery({
    queryKey: queryKeys.pendingRequests,
    queryFn: ({ signal }) => callDashboard('pendingRequests', {}, { signal }),
    select: ({ requests }) => requests.filter((r) => r.status === 'pending'),
    refetchInterval: PENDING_POLL_MS,
  });
}

/**
 * Shows a decision made in this tab: the request as decided, or, when the decision did not say
 * where to go next, as asked again, since the approving browser may be the one that started
 * the flow and the service gives it its way back.
 */
export function useShowDecided(id: string): (decided: ConsentRequest) => Promise<void> {
  const queryClient = useQueryClient();
  return async (decided) => {
    const shown = decided.redirectTo ? decided : await callDashboard('consentRequest', { id }).catch(() => decided);
    queryClient.setQueryData(queryKeys.consentRequest(id), shown);
  };
}

export type Decision = { decide: 'approve'; workspaceId: string; access: Access } | { decide: 'deny' };

/** Approves or denies a request; what it answers is the request as decided. */
export function useDecide(request: ConsentRequest) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (decision: Decision) => {
      const csrfToken = request.csrfToken ?? '';
      return decision.decide === 'approve'
        ? callDashboard('approve', { id: request.id }, { body: { workspaceId: decision.workspaceId, access: decision.access, csrfToken } })
        : callDashboard('deny', { id: request.id }, { body: { csrfToken } });
    },
    // Either way the request is no longer pending; an approval makes a connection in the workspace chosen.
    onSuccess: (_request, decision) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.pendingRequests }),
        decision.decide === 'approve' ? queryClient.invalidateQueries({ queryKey: queryKeys.connections(decision.workspaceId) }) : undefined,
      ]),
  });
}
