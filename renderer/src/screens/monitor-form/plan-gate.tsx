import type { ReactNode } from 'react';
import type { PlanAllowance } from '../../api.ts';
import { ErrorNote, Loading } from '../../components.tsx';
import type { Loaded } from '../../hooks.ts';

export type LoadedPlan = Loaded<PlanAllowance>;

/** What needs the plan (its frequencies and regions), drawn once the plan is loaded. */
export function PlanGate({ plan, children }: { plan: LoadedPlan; children: (plan: PlanAllowance) => ReactNode }) {
  if (plan.state === 'loading') return <Loading what="the plan's frequencies and regions" />;
  if (plan.state === 'error') return <ErrorNote>{plan.error.message}</ErrorNote>;
  return <>{children(plan.value)}</>;
}
