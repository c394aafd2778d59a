// The signed-in person's own account: their sessions (ended elsewhere from here) and passkeys
// (added with this browser's authenticator, removed), and the sign-in screen's passkey sign-in.
// The WebAuthn ceremony is SimpleWebAuthn's; the service checks every answer.
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DashboardAnswer } from '../../../contract/dashboard-api.ts';
import { ApiError } from './api-error.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';
import { keepSessionToken } from './session-fetch.ts';

export type Passkey = DashboardAnswer<'addPasskey'>['passkey'];
export type SessionInfo = DashboardAnswer<'sessions'>['sessions'][number];

/** What a person is told when the browser's passkey prompt ends without an answer. */
function ceremonyError(error: unknown, adding: boolean): ApiError {
  if (error instanceof ApiError) return error;
  const name = error instanceof WebAuthnError ? ((error.cause as Error | undefined)?.name ?? error.name) : error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError' || (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED')) {
    return new ApiError(
      0,
      'UNKNOWN',
      adding ? 'No passkey was made: the request was cancelled or timed out.' : 'No passkey was used: the request was cancelled or timed out.',
    );
  }
  if (adding && error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
    return new ApiError(0, 'UNKNOWN', 'This authenticator already holds a passkey of yours for Statusdesk.');
  }
  if (error instanceof WebAuthnError && error.code === 'ERROR_INVALID_DOMAIN') {
    return new ApiError(
      0,
      'UNKNOWN',
      `Passkeys need the dashboard at a name such as localhost, not at an IP address: open http://localhost:${location.port} instead.`,
    );
  }
  return new ApiError(0, 'UNKNOWN', error instanceof Error ? error.message : String(error));
}

/** The person's live sessions, the one of this window marked. */
export function useSessions() {
  return useQuery({
    queryKey: queryKeys.sessions,
    queryFn: ({ signal }) => callDashboard('sessions', {}, { signal }),
    select: ({ sessions }) => sessions,
  });
}

/** Signs one of the person's other sessions out. */
export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => callDashboard('endSession', { sessionId }),
    meta: { done: 'Session signed out.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}

export function usePasskeys() {
  return useQuery({
    queryKey: queryKeys.passkeys,
    queryFn: ({ signal }) => callDashboard('passkeys', {}, { signal }),
    select: ({ passkeys }) => passkeys,
  });
}

/** Makes a passkey with this browser's authenticator and adds it under `name`. */
export function useAddPasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string): Promise<Passkey> => {
      const { options } = await callDashboard('passkeyOptions', {});
      let response: object;
      try {
        response = await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      } catch (error) {
        throw ceremonyError(error, true);
      }
      const { passkey } = await callDashboard('addPasskey', {}, { body: { name, response: response as Record<string, unknown> } });
      return passkey;
    },
    meta: { done: (_name: string, passkey: Passkey) => `Passkey “${passkey.name}” added.` },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.passkeys }),
  });
}

export function useRemovePasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (passkeyId: string) => callDashboard('removePasskey', { passkeyId }),
    meta: { done: 'Passkey removed.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.passkeys }),
  });
}

/** The ways this service signs people in, for the sign-in screen. */
export function useSignInMethods() {
  return useQuery({
    queryKey: queryKeys.signInMethods,
    queryFn: ({ signal }) => callDashboard('signInMethods', {}, { signal }),
  });
}

/** Signs in with a passkey the authenticator offers; the session it opens becomes this tab's. */
export function useSignInWithPasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const { options } = await callDashboard('signInOptions', {});
      let response: object;
      try {
        response = await startAuthentication({ optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
      } catch (error) {
        throw ceremonyError(error, false);
      }
      return callDashboard('signInPasskey', {}, { body: { response: response as Record<string, unknown> } });
    },
    onSuccess: ({ token }) => {
      keepSessionToken(token);
      // Whatever this window was told of the session before (signed out) is old news.
      queryClient.removeQueries({ queryKey: queryKeys.session });
    },
  });
}
