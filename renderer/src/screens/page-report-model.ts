import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  type AddStatusReportUpdateRequestSchema,
  type CreateStatusReportRequestSchema,
  type ResolveStatusReportRequestSchema,
  StatusReportStatus,
} from '../../../proto/gen/status_report/v1/status_report_pb.js';

// The status report forms' model: what a new report, an update and a resolution hold as typed,
// and the status_report.v1 requests they become. Plain TypeScript, tested in Node.

/** A new report as its form holds it. The notify choice starts unmade: the person makes it each time. */
export interface ReportFormValues {
  title: string;
  status: StatusReportStatus;
  message: string;
  pageComponentIds: string[];
  notify: boolean | undefined;
}

/** An update of a report's timeline, or its resolution (which has no status of its own). */
export interface ReportUpdateFormValues {
  status: StatusReportStatus;
  message: string;
  notify: boolean | undefined;
}

export const REPORT_STATUS_LABELS: Record<StatusReportStatus, string> = {
  [StatusReportStatus.UNSPECIFIED]: 'Unknown',
  [StatusReportStatus.INVESTIGATING]: 'Investigating',
  [StatusReportStatus.IDENTIFIED]: 'Identified',
  [StatusReportStatus.MONITORING]: 'Monitoring',
  [StatusReportStatus.RESOLVED]: 'Resolved',
};

/** The statuses an open incident moves through; resolving has its own action. */
export const OPEN_STATUSES = [StatusReportStatus.INVESTIGATING, StatusReportStatus.IDENTIFIED, StatusReportStatus.MONITORING] as const;

export const newReportForm = (): ReportFormValues => ({
  title: '',
  status: StatusReportStatus.INVESTIGATING,
  message: '',
  pageComponentIds: [],
  notify: undefined,
});

/** The form of an update to a report now at `status`: a resolved report's update starts from Monitoring. */
export const reportUpdateFormOf = (status: StatusReportStatus, message = ''): ReportUpdateFormValues => ({
  status: status === StatusReportStatus.RESOLVED ? StatusReportStatus.MONITORING : status,
  message,
  notify: undefined,
});

export function createReportRequest(pageId: string, form: ReportFormValues): MessageInitShape<typeof CreateStatusReportRequestSchema> {
  return { pageId, title: form.title.trim(), status: form.status, message: form.message.trim(), pageComponentIds: form.pageComponentIds, notify: form.notify };
}

export function reportUpdateRequest(id: string, form: ReportUpdateFormValues): MessageInitShape<typeof AddStatusReportUpdateRequestSchema> {
  return { id, status: form.status, message: form.message.trim(), notify: form.notify };
}

export function resolveReportRequest(id: string, form: ReportUpdateFormValues): MessageInitShape<typeof ResolveStatusReportRequestSchema> {
  return { id, message: form.message.trim(), notify: form.notify };
}
