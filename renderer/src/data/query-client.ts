// The UI's one cache of what the service answered (TanStack Query), with the defaults every
// screen shares. `main.tsx` provides it at the root; the data hooks (data/*.ts) read through it.
import { MutationCache, QueryClient } from '@tanstack/react-query';
import { announce } from './announcements.ts';
import type { ApiError } from './api-error.ts';

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

export const queryClient = new QueryClient({
  // Every change that says what it did (`meta.done`) is announced in one place, the toasts.
  mutationCache: new MutationCache({
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
