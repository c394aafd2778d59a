import type { ServiceImpl } from '@connectrpc/connect';
import type { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { count, list, maskedPatch, text } from './page-codec.ts';
import { reportStatus, toStatusReportMessage } from './status-report-codec.ts';

/** status_report.v1.StatusReportService: decode, call the report service, encode. No rules here. */
export function statusReportServiceImpl(services: Services): ServiceImpl<typeof StatusReportService> {
  const reports = services.reports;
  return {
    async listStatusReports(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await reports.list(actor, workspaceId, {
        filter: text(req.filter),
        pageId: req.pageId,
        page: count(req.page),
        perPage: count(req.perPage),
      });
      return { statusReports: result.reports.map(toStatusReportMessage), pagination: result.pagination };
    },

    async getStatusReport(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { statusReport: toStatusReportMessage(await reports.get(actor, workspaceId, req.id)) };
    },

    async createStatusReport(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { report, notified } = await reports.create(actor, workspaceId, {
        pageId: text(req.pageId),
        title: text(req.title),
        status: reportStatus.domain(req.status),
        message: text(req.message),
        pageComponentIds: list(req.pageComponentIds),
        notify: req.notify,
      });
      return { statusReport: toStatusReportMessage(report), notified };
    },

    async addStatusReportUpdate(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { report, notified } = await reports.addUpdate(actor, workspaceId, req.id, {
        status: reportStatus.domain(req.status),
        message: text(req.message),
        notify: req.notify,
      });
      return { statusReport: toStatusReportMessage(report), notified };
    },

    async updateStatusReport(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const patch = maskedPatch(
        {
          title: { name: 'title', value: req.title, empty: '' },
          status: { name: 'status', value: reportStatus.domain(req.status), empty: '' },
          page_component_ids: { name: 'pageComponentIds', value: list(req.pageComponentIds), empty: [] },
        },
        req.updateMask,
      );
      return { statusReport: toStatusReportMessage(await reports.update(actor, workspaceId, req.id, patch)) };
    },

    async resolveStatusReport(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { report, notified } = await reports.resolve(actor, workspaceId, req.id, { message: text(req.message), notify: req.notify });
      return { statusReport: toStatusReportMessage(report), notified };
    },

    async deleteStatusReport(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await reports.delete(actor, workspaceId, req.id);
      return {};
    },
  };
}
