import type { Kysely } from 'kysely';
import { z } from 'zod';
import { writeTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { Database, WorkspaceRow } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { type Actor, isCredential, type Role } from '../actor.ts';
import { revokeGrant } from '../oauth/grants.ts';
import { liveGrantIdsOf } from '../oauth/grant-repository.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { type PlanName, planNames } from '../plans.ts';
import { insertUser } from '../users/user-repository.ts';
import { builtOnFirstUse, oneLine, parseInput } from '../validation.ts';
import {
  countOwners,
  deleteMembership,
  findMember,
  findWorkspaceRowBySlug,
  insertMembership,
  insertWorkspace,
  listWorkspaceRows,
} from './workspace-repository.ts';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  plan: PlanName;
  createdAt: string;
}

const slugSchema = builtOnFirstUse(() =>
  z
    .string()
    .min(2, 'must be 2 to 48 characters')
    .max(48, 'must be 2 to 48 characters')
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens, not at either end'),
);

const createWorkspaceInput = builtOnFirstUse(() =>
  z.object({
    name: oneLine(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')),
    slug: slugSchema(),
    plan: z.enum(planNames, { error: `must be one of ${planNames.join(', ')}` }).default('scale'),
  }),
);

export interface Member {
  userId: string;
  name: string;
  role: Role;
}

const addMemberInput = builtOnFirstUse(() =>
  z.object({
    name: oneLine(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')),
    role: z.enum(['owner', 'admin', 'member'], { error: 'must be owner, admin or member' }).default('member'),
  }),
);

export function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: String(row.id), name: row.name, slug: row.slug, plan: row.plan as PlanName, createdAt: row.created_at };
}

export function createWorkspaceService(db: Kysely<Database>) {
  return {
    /** Creates a workspace; a person creating it becomes its owner. */
    async create(actor: Actor, input: z.input<typeof createWorkspaceInput>): Promise<Workspace> {
      if (isCredential(actor)) throw new AppError('FORBIDDEN', 'an API credential cannot create workspaces');
      const values = parseInput(createWorkspaceInput(), input);
      return writeTransaction(db, async (trx) => {
        const now = new Date().toISOString();
        const row = await insertWorkspace(trx, { ...values, createdAt: now }).catch((error: unknown) => {
          if (isUniqueViolation(error, 'workspaces.slug'))
            throw new AppError('CONFLICT', `slug: a workspace with slug ${values.slug} already exists`, [{ field: 'slug', rule: 'must be unique' }]);
          throw error;
        });
        if (actor.type === 'user') await insertMembership(trx, row.id, actor.userId, 'owner', now);
        const workspace = toWorkspace(row);
        await recordAudit(trx, {
          workspaceId: row.id,
          entityType: 'workspace',
          entityId: row.id,
          action: 'workspace.create',
          actor,
          before: null,
          after: { ...workspace, ownerUserId: actor.type === 'user' ? String(actor.userId) : null },
        });
        return workspace;
      });
    },

    /** The workspaces the actor can see: its one for a key, its memberships for a person. */
    async list(actor: Actor): Promise<Workspace[]> {
      const only = isCredential(actor) ? { id: actor.workspaceId } : actor.type === 'user' ? { memberId: actor.userId } : {};
      return (await listWorkspaceRows(db, only)).map(toWorkspace);
    },

    async getBySlug(actor: Actor, slug: string): Promise<Workspace> {
      const row = await findWorkspaceRowBySlug(db, slug);
      if (!row) throw new AppError('NOT_FOUND', `workspace ${slug} does not exist`);
      await authorize(db, actor, row.id, 'read');
      return toWorkspace(row);
    },

    /** Adds a person to a workspace (a new local user of that name). Owners and admins only. */
    async addMember(actor: Actor, workspaceId: number, input: z.input<typeof addMemberInput>): Promise<Member> {
      const values = parseInput(addMemberInput(), input);
      return writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'manage');
        const now = new Date().toISOString();
        const userId = await insertUser(trx, values.name, now);
        await insertMembership(trx, workspaceId, userId, values.role, now);
        const member: Member = { userId: String(userId), name: values.name, role: values.role };
        await recordAudit(trx, {
          workspaceId,
          entityType: 'membership',
          entityId: userId,
          action: 'membership.create',
          actor,
          before: null,
          after: { ...member },
        });
        return member;
      });
    },

    /**
     * Removes a person from a workspace, and with them every connection they approved for it
     * (SPEC 3.4). The last owner stays.
     */
    async removeMember(actor: Actor, workspaceId: number, userId: number): Promise<void> {
      await writeTransaction(db, async (trx) => {
        await authorize(trx, actor, workspaceId, 'manage');
        const row = await findMember(trx, workspaceId, userId);
        if (!row) throw new AppError('NOT_FOUND', `user ${userId} is not a member of workspace ${workspaceId}`);
        if (row.role === 'owner' && (await countOwners(trx, workspaceId)) === 1) {
          throw new AppError('PRECONDITION_FAILED', 'the last owner of a workspace cannot be removed');
        }
        for (const grantId of await liveGrantIdsOf(trx, workspaceId, userId)) await revokeGrant(trx, grantId, actor, 'member_removed');
        await deleteMembership(trx, workspaceId, userId);
        const member: Member = { userId: String(userId), name: row.name, role: row.role };
        await recordAudit(trx, {
          workspaceId,
          entityType: 'membership',
          entityId: userId,
          action: 'membership.delete',
          actor,
          before: { ...member },
          after: null,
        });
      });
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
