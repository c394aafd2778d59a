// The types of the dashboard's JSON API as the screens name them: the contract's
// (contract/dashboard-api.ts), the one declaration the service's answers are checked against.
// The calls themselves are the data layer's (data/).
import type { Access } from '../../contract/dashboard-api.ts';

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
  OverviewGroup,
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

export const accessLabel = (access: Access) => (access === 'write' ? 'Read & write' : 'Read only');
