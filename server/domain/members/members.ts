import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import { authorize } from '../access.ts';
import type { Actor, Role } from '../actor.ts';
import { recordAudit, type Snapshot } from '../audit/audit.ts';
import { revokeKeyById } from '../keys/keys.ts';
import { liveGrantIdsOf } from '../oauth/grant-repository.ts';
import { revokeGrant } from '../oauth/grants.ts';
import { hashSecret, newSecret } from '../secrets.ts';
import { insertUser } from '../users/user-repository.ts';
import { builtOnFirstUse, oneLine, parseId, parseInput } from '../validation.ts';
import { countOwners, deleteMembership, findMember, insertMembership, roleOf } from '../workspaces/workspace-repository.ts';
import {
  findInvitation,
  insertInvitation,
  invitationByHash,
  invitationRows,
  liveKeyIdsOf,
  markInvitationRevoked,
  memberRows,
  takeInvitation,
  updateMembershipRole,
} from './member-repository.ts';

export const roles = ['owner', 'admin', 'member'] as const satisfies readonly Role[];

/** The secret of an invitation link starts with this, so a leaked one is recognised for what it is. */
export const INVITATION_PREFIX = 'inv_';
const HOUR_MS = 3_600_000;
/** An invitation works once, for this long unless its maker chose otherwise (1 hour to 30 days). */
export const INVITATION_TTL_HOURS = { default: 72, min: 1, max: 720 };
/** Invitations a workspace lists: the latest ones. */
const LISTED_INVITATIONS = 100;

export interface Member {
  userId: string;
  name: string;
  role: Role;
  joinedAt: string;
}

export type InvitationState = 'pending' | 'accepted' | 'expired' | 'revoked';

export interface Invitation {
  id: string;
  role: Role;
  note: string;
  state: InvitationState;
  createdAt: string;
  expiresAt: string;
  createdBy: string | null;
  acceptedAt: string | null;
  acceptedBy: string | null;
}

/** What the page of an invitation link shows before it is accepted. */
export interface InvitationPreview {
  workspaceName: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
}

const personName = () => oneLine(z.string(expectedName()).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'));
const expectedName = () => ({ error: 'must be a name' });

const addInput = builtOnFirstUse(() => z.object({ name: personName(), role: z.enum(roles, { error: 'must be owner, admin or member' }).default('member') }));

const inviteInput = builtOnFirstUse(() =>
  z.object({
    role: z.enum(roles, { error: 'must be owner, admin or member' }).default('member'),
    note: oneLine(z.string().trim().max(100, 'must be at most 100 characters')).default(''),
    expiresInHours: z
      .number({ error: 'must be a whole number of hours' })
      .int('must be a whole number of hours')
      .min(INVITATION_TTL_HOURS.min, `must be ${INVITATION_TTL_HOURS.min} to ${INVITATION_TTL_HOURS.max} hours`)
      .max(INVITATION_TTL_HOURS.max, `must be ${INVITATION_TTL_HOURS.min} to ${INVITATION_TTL_HOURS.max} hours`)
      .default(INVITATION_TTL_HOURS.default),
  }),
);

const roleInput = builtOnFirstUse(() => z.object({ role: z.enum(roles, { error: 'must be owner, admin or member' }) }));
const acceptInput = builtOnFirstUse(() => z.object({ name: personName() }));

function stateOf(row: { accepted_at: string | null; revoked_at: string | null; expires_at: string }, now: string): InvitationState {
  if (row.accepted_at) return 'accepted';
  if (row.revoked_at) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'pending';
}

/** Why a link cannot be used, in the words its page shows. */
const UNUSABLE: Record<Exclude<InvitationState, 'pending'>, string> = {
  accepted: 'this invitation was already used: an invitation works once. Ask for a new one',
  expired: 'this invitation expired. Ask whoever invited you for a new one',
  revoked: 'this invitation was withdrawn. Ask whoever invited you for a new one',
};

/** An owner is made, demoted or removed by an owner only: an admin cannot take over a workspace. */
async function requireOwnerFor(trx: Kysely<Database>, actor: Actor, workspaceId: number, roles: readonly Role[]): Promise<void> {
  if (roles.includes('owner')) await authorize(trx, actor, workspaceId, 'owner');
}

/**
 * The people of a workspace: who they are, their roles, and the invitations that bring new ones.
 * Owners and admins invite, change roles and remove; owners alone make, demote or remove owners;
 * the last owner stays. Removing a person revokes the OAuth connections they approved (SPEC 3.4)
 * and the API keys they made in the workspace, each audited.
 */
export function createMemberService(db: Kysely<Database>) {
  async function audit(
    trx: Kysely<Database>,
    actor: Actor,
    workspaceId: number,
    entity: { type: string; id: number },
    action: string,
    before: Snapshot | null,
    after: Snapshot | null,
  ) {
    await recordAudit(trx, { workspaceId, entityType: entity.type, entityId: entity.id, action, actor, before, after });
  }

  return {
    async list(actor: Actor, workspaceId: number): Promise<Member[]> {
      await authorize(db, actor, workspaceId, 'read');
      return (await memberRows(db, workspaceId)).map((r) => ({ userId: String(r.user_id), name: r.name, role: r.role as Role, joinedAt: r.created_at }));
    },

    /** Adds a person by name, with no way to sign in of their own: for the owner's local tools. */
    async add(actor: Actor, workspaceId: number, input: unknown): Promise<Member> {
      const values = parseInput(addInput(), input);
      return writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'admin');
        await requireOwnerFor(trx, actor, workspaceId, [values.role]);
        const now = new Date().toISOString();
        const userId = await insertUser(trx, values.name, now);
        await insertMembership(trx, workspaceId, userId, values.role, now);
        const member: Member = { userId: String(userId), name: values.name, role: values.role, joinedAt: now };
        await audit(trx, actor, workspaceId, { type: 'membership', id: userId }, 'membership.create', null, {
          userId: member.userId,
          name: member.name,
          role: member.role,
        });
        return member;
      });
    },

    async invitations(actor: Actor, workspaceId: number): Promise<Invitation[]> {
      await authorize(db, actor, workspaceId, 'admin');
      const now = new Date().toISOString();
      return (await invitationRows(db, workspaceId, LISTED_INVITATIONS)).map((r) => ({
        id: String(r.id),
        role: r.role,
        note: r.note,
        state: stateOf(r, now),
        createdAt: r.created_at,
        expiresAt: r.expires_at,
        createdBy: r.created_by_name,
        acceptedAt: r.accepted_at,
        acceptedBy: r.accepted_by_name,
      }));
    },

    /** A one-time invitation link's secret, returned here once and stored only as its hash. */
    async invite(actor: Actor, workspaceId: number, input: unknown): Promise<{ invitation: Invitation; token: string }> {
      const values = parseInput(inviteInput(), input);
      return writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'admin');
        await requireOwnerFor(trx, actor, workspaceId, [values.role]);
        const token = newSecret(INVITATION_PREFIX);
        const now = Date.now();
        const row = await insertInvitation(trx, {
          workspace_id: workspaceId,
          role: values.role,
          token_hash: hashSecret(token),
          note: values.note,
          created_by: actor.type === 'system' ? null : actor.userId,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + values.expiresInHours * HOUR_MS).toISOString(),
        });
        const invitation: Invitation = {
          id: String(row.id),
          role: row.role,
          note: row.note,
          state: 'pending',
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          createdBy: null,
          acceptedAt: null,
          acceptedBy: null,
        };
        await audit(trx, actor, workspaceId, { type: 'invitation', id: row.id }, 'invitation.create', null, {
          role: row.role,
          note: row.note,
          expiresAt: row.expires_at,
        });
        return { invitation, token };
      });
    },

    async revokeInvitation(actor: Actor, workspaceId: number, id: string): Promise<void> {
      const invitationId = parseId('id', 'invitation', id);
      await writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'admin');
        const row = await findInvitation(trx, workspaceId, invitationId);
        if (!row) throw notFound('invitation', id);
        const now = new Date().toISOString();
        const state = stateOf(row, now);
        if (state !== 'pending') throw new AppError('PRECONDITION_FAILED', `the invitation is already ${state}`);
        await markInvitationRevoked(trx, invitationId, now);
        await audit(
          trx,
          actor,
          workspaceId,
          { type: 'invitation', id: invitationId },
          'invitation.revoke',
          { role: row.role, note: row.note, state },
          { role: row.role, note: row.note, state: 'revoked' },
        );
      });
    },

    /** What an invitation link offers, or why it cannot be used (UNAUTHORIZED, in words for its page). */
    async preview(token: string): Promise<InvitationPreview> {
      const row = await invitationByHash(db, hashSecret(token));
      if (!row) throw new AppError('UNAUTHORIZED', 'this invitation link is not one of this service: check that it was copied whole');
      const state = stateOf(row, new Date().toISOString());
      if (state !== 'pending') throw new AppError('UNAUTHORIZED', UNUSABLE[state]);
      return { workspaceName: row.workspace_name, role: row.role, invitedBy: row.created_by_name, expiresAt: row.expires_at };
    },

    /**
     * Accepts an invitation: a new person named `name`, or (with `userId`) a person who already has
     * an account here joining one more workspace. Refused once used, revoked or expired; two
     * people opening one link cannot both join. Returns the person and the workspace.
     */
    async accept(token: string, person: { name: unknown } | { userId: number }): Promise<{ userId: number; workspaceId: number; created: boolean }> {
      const name = 'name' in person ? parseInput(acceptInput(), { name: person.name }).name : undefined;
      return writeTransaction(db, async (trx) => {
        const row = await invitationByHash(trx, hashSecret(token));
        if (!row) throw new AppError('UNAUTHORIZED', 'this invitation link is not one of this service: check that it was copied whole');
        const now = new Date().toISOString();
        const state = stateOf(row, now);
        if (state !== 'pending') throw new AppError('UNAUTHORIZED', UNUSABLE[state]);
        const userId = name === undefined ? (person as { userId: number }).userId : await insertUser(trx, name, now);
        if (name === undefined && (await roleOf(trx, row.workspace_id, userId))) {
          throw new AppError('CONFLICT', `you are already a member of ${row.workspace_name}`);
        }
        if (!(await takeInvitation(trx, row.id, userId, now))) throw new AppError('UNAUTHORIZED', UNUSABLE.accepted);
        await insertMembership(trx, row.workspace_id, userId, row.role, now);
        const joined: Actor = { type: 'user', userId, surface: 'dashboard' };
        const member = await findMember(trx, row.workspace_id, userId);
        await audit(trx, joined, row.workspace_id, { type: 'membership', id: userId }, 'membership.create', null, {
          userId: String(userId),
          name: member!.name,
          role: row.role,
          invitationId: String(row.id),
        });
        return { userId, workspaceId: row.workspace_id, created: name !== undefined };
      });
    },

    async changeRole(actor: Actor, workspaceId: number, userId: string, input: unknown): Promise<Member> {
      const id = parseId('userId', 'member', userId);
      const { role } = parseInput(roleInput(), input);
      return writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'admin');
        const row = await findMember(trx, workspaceId, id);
        if (!row) throw notFound('member', userId);
        await requireOwnerFor(trx, actor, workspaceId, [row.role, role]);
        if (row.role === 'owner' && role !== 'owner' && (await countOwners(trx, workspaceId)) === 1) {
          throw new AppError('PRECONDITION_FAILED', 'role: the last owner of a workspace cannot be demoted; make another member an owner first', [
            { field: 'role', rule: 'the workspace keeps at least one owner' },
          ]);
        }
        await updateMembershipRole(trx, workspaceId, id, role);
        await audit(
          trx,
          actor,
          workspaceId,
          { type: 'membership', id },
          'membership.update',
          { userId, name: row.name, role: row.role },
          { userId, name: row.name, role },
        );
        const joined = (await memberRows(trx, workspaceId)).find((r) => r.user_id === id)!.created_at;
        return { userId, name: row.name, role, joinedAt: joined };
      });
    },

    /**
     * Removes a person from a workspace: owners and admins remove others, anyone may leave. Their
     * OAuth connections to it (SPEC 3.4) and the API keys they made in it are revoked with them.
     */
    async remove(actor: Actor, workspaceId: number, userId: string): Promise<void> {
      const id = parseId('userId', 'member', userId);
      await writeTransaction(db, async (trx) => {
        const leaving = actor.type === 'user' && actor.userId === id;
        await authorize(trx, actor, workspaceId, leaving ? 'read' : 'admin');
        const row = await findMember(trx, workspaceId, id);
        if (!row) throw notFound('member', userId);
        if (!leaving) await requireOwnerFor(trx, actor, workspaceId, [row.role]);
        if (row.role === 'owner' && (await countOwners(trx, workspaceId)) === 1) {
          throw new AppError('PRECONDITION_FAILED', 'the last owner of a workspace cannot be removed; make another member an owner first');
        }
        for (const grantId of await liveGrantIdsOf(trx, workspaceId, id)) await revokeGrant(trx, grantId, actor, 'member_removed');
        for (const keyId of await liveKeyIdsOf(trx, workspaceId, id)) await revokeKeyById(trx, keyId, actor);
        await deleteMembership(trx, workspaceId, id);
        await audit(trx, actor, workspaceId, { type: 'membership', id }, 'membership.delete', { userId, name: row.name, role: row.role }, null);
      });
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
