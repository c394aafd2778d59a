import type { Kysely } from 'kysely';
import { z } from 'zod';
import { writeTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { Database, WorkspaceRow } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { type Actor, isCredential, type Role } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { type PlanName, planNames } from '../plans.ts';
import { builtOnFirstUse, oneLine, parseInput } from '../validation.ts';
import { findWorkspaceRowBySlug, insertMembership, insertWorkspace, listWorkspaceRows, memberWorkspaceRows } from './workspace-repository.ts';

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

    /** A person's workspaces, each with their role in it (what an app they connect may do there). */
    async listWithRoles(actor: Extract<Actor, { type: 'user' }>): Promise<{ id: string; name: string; slug: string; role: Role }[]> {
      return (await memberWorkspaceRows(db, actor.userId)).map((r) => ({ id: String(r.id), name: r.name, slug: r.slug, role: r.role as Role }));
    },

    async getBySlug(actor: Actor, slug: string): Promise<Workspace> {
      const row = await findWorkspaceRowBySlug(db, slug);
      if (!row) throw new AppError('NOT_FOUND', `workspace ${slug} does not exist`);
      await authorize(db, actor, row.id, 'read');
      return toWorkspace(row);
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
