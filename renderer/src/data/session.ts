// The signed-in session: the person, their workspaces and the service's addresses. Asked for
// before React's first render (`startSession`), read by the app's root (`useSession`).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { callDashboard, signOutOfService } from './dashboard-client.ts';
import { queryClient } from './query-client.ts';
import { queryKeys } from './query-keys.ts';
import { forgetSessionToken } from './session-fetch.ts';

const sessionQuery = queryOptions({
  queryKey: queryKeys.session,
  queryFn: ({ signal }) => callDashboard('session', {}, { signal }),
  // The answer asked for at start is the answer, a refusal too: a window that is not signed in is
  // told so once.
  retryOnMount: false,
});

/** Asks for the session now, so the answer is in (or on its way) by the first render. */
export function startSession(): void {
  void queryClient.prefetchQuery(sessionQuery);
}

/** The session; `asking` false once the window is signed out, so a 401 is not asked again and again. */
export function useSession(asking: boolean) {
  return useQuery({ ...sessionQuery, enabled: asking });
}

/** Ends the session on the service and forgets it in every tab of the dashboard. */
export function signOut(): Promise<void> {
  return signOutOfService().finally(forgetSessionToken);
}
