// The UI's one cache of what the service answered (TanStack Query), with the defaults every
// screen shares. `main.tsx` provides it at the root; the data hooks (data/*.ts) read through it.
import { QueryClient } from '@tanstack/react-query';
import type { ApiError } from './api-error.ts';

// Every call of the JSON API fails with an ApiError (dashboard-client.ts); connect-query's hooks
// name their own, ConnectError, which `asApiError` reads.
declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
  }
}

export const queryClient = new QueryClient({
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
