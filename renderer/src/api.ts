// The types of the dashboard's JSON API as the screens name them: the contract's
// (contract/dashboard-api.ts), the one declaration the service's answers are checked against.
// The calls themselves are the data layer's (data/).
import type { Access } from '../../contract/dashboard-api.ts';
import { callDashboard } from './data/dashboard-client.ts';

export type {
  Access,
  ActivityEntry,
  ApiKey,
  AuditActorKind,
  AuditEntry,
  AuditQuery,
  CheckResult,
  Connection,
  ConsentRequest,
  ConsentStatus,
  LatencySeries,
  LiveEvent,
  MonitorState,
  MonitorType,
  Overview,
  OverviewQuery,
  OverviewRow,
  PagePreview,
  PlanAllowance,
  PreviewMaintenance,
  PublicState,
  RegionHealth,
  Session,
  Timing,
  Workspace,
} from '../../contract/dashboard-api.ts';
export { ApiError, type Violation } from './data/api-error.ts';

/** Calls made outside the query cache, by screens that load by themselves (the monitor form's plan). */
export const api = {
  plan: (workspaceId: string) => callDashboard('plan', { workspaceId }),
};

export const accessLabel = (access: Access) => (access === 'write' ? 'Read & write' : 'Read only');
