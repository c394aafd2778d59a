// The UI's one cache of what the service answered (TanStack Query), with the defaults every
// screen shares. `main.tsx` provides it at the root; the data hooks (data/*.ts) read through it.
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { announce } from './announcements.ts';
import { type ApiError, asApiError } from './api-error.ts';
import { queryKeys } from './query-keys.ts';

/** What a change says once it succeeded: a sentence, or one made from what was asked and answered. */
export interface ChangeMeta extends Record<string, unknown> {
  // Loosely typed on purpose: each change's hook knows its own variables and answer; the cache only passes them through.
  done?: string | ((variables: any, answer: any) => string);
}

// Every call of the JSON API fails with an ApiError (dashboard-client.ts); connect-query's hooks
// name their own, ConnectError, which `asApiError` reads.
declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
    mutationMeta: ChangeMeta;
  }
}

/**
 * A workspace the person is no longer a member of (they were removed, or left in another window)
 * answers as one that does not exist: the session is asked again, so the window shows the
 * workspaces the person has left, or that they have none.
 */
function afterFailure(error: unknown): void {
  const failure = asApiError(error);
  if (failure.code === 'NOT_FOUND' && /^workspace \d+ does not exist/.test(failure.message)) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.session, exact: true });
  }
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: afterFailure }),
  // Every change that says what it did (`meta.done`) is announced in one place, the toasts.
  mutationCache: new MutationCache({
    onError: afterFailure,
    onSuccess: (answer, variables, _context, mutation) => {
      const done = mutation.meta?.done;
      if (done) announce(typeof done === 'function' ? done(variables, answer) : done);
    },
  }),
  defaultOptions: {
    queries: {
      // A refusal (not found, not allowed, a bad filter) is shown at once, as the service said it;
      // the live feed and the screens' own refreshes bring what changes.
      retry: false,
      // A screen opened again shows what it showed, and asks again (staleness is TanStack's
      // default: at once); while it is open, the live feed (live-queries.ts), the changes made
      // here and each screen's own refresh interval say when to ask again, not the window's focus.
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
    },
    mutations: { retry: false },
  },
});
