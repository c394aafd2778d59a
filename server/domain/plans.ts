import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { findWorkspaceRow } from './workspaces/workspace-repository.ts';

/**
 * Plans are a workspace setting with the entitlements of the interface (SPEC 8). A local
 * workspace starts on `scale`, which has every feature.
 */
export const planNames = ['hobby', 'starter', 'pro', 'scale'] as const;
export type PlanName = (typeof planNames)[number];

export const frequencies = ['30s', '1m', '5m', '10m', '30m', '1h'] as const;
export type Frequency = (typeof frequencies)[number];

export interface Plan {
  name: PlanName;
  /** Check frequencies a monitor of this workspace may use. */
  frequencies: readonly Frequency[];
  /** How many regions a TCP monitor gets when it names none: 4 on the free plan, 6 on paid plans. */
  defaultTcpRegionCount: number;
  /** The audit log is readable (list_audit_logs, get_audit_log). Entries are written on every plan. */
  auditLog: boolean;
  /** Status-page subscribers are notified; without it a dispatch is a silent no-op. */
  subscriberNotifications: boolean;
}

export const plans: Record<PlanName, Plan> = {
  hobby: {
    name: 'hobby',
    frequencies: ['10m', '30m', '1h'],
    defaultTcpRegionCount: 4,
    auditLog: false,
    subscriberNotifications: false,
  },
  starter: {
    name: 'starter',
    frequencies: ['1m', '5m', '10m', '30m', '1h'],
    defaultTcpRegionCount: 6,
    auditLog: false,
    subscriberNotifications: true,
  },
  pro: {
    name: 'pro',
    frequencies: frequencies,
    defaultTcpRegionCount: 6,
    auditLog: true,
    subscriberNotifications: true,
  },
  scale: {
    name: 'scale',
    frequencies: frequencies,
    defaultTcpRegionCount: 6,
    auditLog: true,
    subscriberNotifications: true,
  },
};

/** The plan a workspace is on. */
export async function planOfWorkspace(db: Kysely<Database>, workspaceId: number): Promise<Plan> {
  return planOf((await findWorkspaceRow(db, workspaceId)).plan);
}

export function planOf(name: string): Plan {
  if (!Object.hasOwn(plans, name)) throw new Error(`unknown plan ${name}`);
  return plans[name as PlanName];
}
