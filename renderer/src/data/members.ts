// A workspace's people: its members and their roles, the invitations that bring new ones, and an
// invitation link's two steps for a browser that may not be signed in (its preview, its acceptance).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DashboardAnswer, DashboardBody } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';
import { currentSessionToken, keepSessionToken } from './session-fetch.ts';

export type Member = DashboardAnswer<'members'>['members'][number];
export type Role = Member['role'];
export type Invitation = DashboardAnswer<'invitations'>['invitations'][number];
export type InvitationPreview = DashboardAnswer<'invitation'>;

/** The members, and the caller's own id and role. */
export function useMembers(workspaceId: string) {
  return useQuery({
    queryKey: queryKeys.members(workspaceId),
    queryFn: ({ signal }) => callDashboard('members', { workspaceId }, { signal }),
  });
}

/** The latest invitations; asked for only by people who may invite (`enabled`). */
export function useInvitations(workspaceId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.invitations(workspaceId),
    queryFn: ({ signal }) => callDashboard('invitations', { workspaceId }, { signal }),
    enabled,
  });
}

export function useInvite(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DashboardBody<'invite'>) => callDashboard('invite', { workspaceId }, { body }),
    meta: { done: 'Invitation created.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations(workspaceId) }),
  });
}

export function useRevokeInvitation(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) => callDashboard('revokeInvitation', { workspaceId, invitationId }),
    meta: { done: 'Invitation withdrawn.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations(workspaceId) }),
  });
}

export function useChangeRole(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) => callDashboard('changeRole', { workspaceId, userId }, { body: { role } }),
    meta: { done: (_: unknown, answer: DashboardAnswer<'changeRole'>) => `${answer.member.name} is now ${article(answer.member.role)} ${answer.member.role}.` },
    // Your own role may have changed, and with it what the session's screens offer.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.members(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.session }),
      ]),
  });
}

/** Removes a member; `leaving` when it is the caller, whose session then no longer has the workspace. */
export function useRemoveMember(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId }: { userId: string; name: string; leaving: boolean }) => callDashboard('removeMember', { workspaceId, userId }),
    meta: { done: ({ name, leaving }: { name: string; leaving: boolean }) => (leaving ? 'You left the workspace.' : `${name} was removed.`) },
    onSuccess: (_answer, { leaving }) =>
      leaving
        ? queryClient.invalidateQueries({ queryKey: queryKeys.session })
        : Promise.all([
            queryClient.invalidateQueries({ queryKey: queryKeys.members(workspaceId) }),
            queryClient.invalidateQueries({ queryKey: queryKeys.keys(workspaceId) }),
            queryClient.invalidateQueries({ queryKey: queryKeys.connections(workspaceId) }),
          ]),
  });
}

export const article = (role: Role) => (role === 'admin' || role === 'owner' ? 'an' : 'a');

/** An invitation link's preview, or why it cannot be used (the service's words). */
export function useInvitationPreview(token: string) {
  return useQuery({
    queryKey: queryKeys.invitationPreview(token),
    queryFn: ({ signal }) => callDashboard('invitation', { token }, { signal }),
  });
}

/**
 * Who is signed in in this browser, if anyone: asked only when this tab (or another of the
 * dashboard's) holds a page token, so a browser that never signed in is not told it is signed out.
 */
export function useSignedInPerson() {
  return useQuery({
    queryKey: [...queryKeys.session, 'if any'],
    queryFn: async ({ signal }) => {
      if (!(await currentSessionToken())) return null;
      try {
        return await callDashboard('session', {}, { signal });
      } catch {
        return null;
      }
    },
  });
}

/** Joins the workspace of an invitation; the session it opens becomes this tab's. */
export function useAcceptInvitation(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DashboardBody<'acceptInvitation'>) => callDashboard('acceptInvitation', { token }, { body }),
    onSuccess: (answer) => {
      keepSessionToken(answer.token);
      // The session's workspaces changed: the dashboard asks for them again.
      queryClient.removeQueries({ queryKey: queryKeys.session });
    },
  });
}
