import { create } from '@bufbuild/protobuf';
import { type StatusReport as StatusReportMessage, StatusReportSchema, StatusReportStatus } from '../../proto/gen/status_report/v1/status_report_pb.js';
import { reportStatuses } from '../domain/notifications/events.ts';
import type { StatusReport } from '../domain/reports/reports.ts';
import { enumPairs } from './enum-pairs.ts';
import { isoOf } from './monitor-codec.ts';
import { optionalTimestamp, timestamp } from './page-codec.ts';

/** The codec of status_report.v1: a report to its message, and its message in the words of the flags and MCP. No rules here. */

/** A status report's status: investigating, identified, monitoring, resolved. */
export const reportStatus = enumPairs(reportStatuses, [
  StatusReportStatus.INVESTIGATING,
  StatusReportStatus.IDENTIFIED,
  StatusReportStatus.MONITORING,
  StatusReportStatus.RESOLVED,
]);

export function toStatusReportMessage(report: StatusReport): StatusReportMessage {
  return create(StatusReportSchema, {
    id: report.id,
    pageId: report.pageId,
    title: report.title,
    status: reportStatus.wire(report.status),
    resolved: report.resolved,
    pageComponentIds: report.pageComponentIds,
    updates: report.updates.map((u) => ({ id: u.id, status: reportStatus.wire(u.status), message: u.message, createdAt: timestamp(u.createdAt) })),
    createdAt: timestamp(report.createdAt),
    updatedAt: timestamp(report.updatedAt),
    resolvedAt: optionalTimestamp(report.resolvedAt),
  });
}

/** A report in the words of the flags and MCP (see page-codec.ts). */
export const reportWords = (r: StatusReportMessage) => ({
  id: r.id,
  pageId: r.pageId,
  title: r.title,
  status: reportStatus.domain(r.status) ?? null,
  resolved: r.resolved,
  pageComponentIds: [...r.pageComponentIds],
  updates: r.updates.map((u) => ({ id: u.id, status: reportStatus.domain(u.status) ?? null, message: u.message, createdAt: isoOf(u.createdAt) })),
  createdAt: isoOf(r.createdAt),
  updatedAt: isoOf(r.updatedAt),
  resolvedAt: isoOf(r.resolvedAt),
});
