import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { type ListMonitorsResponse, ListMonitorsResponseSchema, MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { Services } from '../services.ts';
import type { Monitor, MonitorPage } from '../domain/monitors/monitors.ts';
import { oncePerFrozen } from '../http/once-per-frozen.ts';
import { callerOf } from './auth.ts';
import { encodedOnce, isBinaryCall } from './encoded-once.ts';
import {
  createInput,
  inMonitorField,
  regionHealthWire,
  summaryWindow,
  timestamp,
  toCheckResultMessage,
  toGrpcMessage,
  toHttpMessage,
  toTcpMessage,
  updatePatch,
} from './monitor-codec.ts';

/** Narrows a monitor returned for a typed create or update. */
function as<T extends Monitor['type']>(monitor: Monitor, type: T): Extract<Monitor, { type: T }> {
  if (monitor.type !== type) throw new Error(`expected a ${type} monitor, got ${monitor.type}`);
  return monitor as Extract<Monitor, { type: T }>;
}

/**
 * The answer to ListMonitors for a page. The monitor service hands out the same frozen page until
 * a monitor changes, and the answer depends on the page alone: it is built once per page, and
 * encoded once per page for the binary formats.
 */
const listAnswer = oncePerFrozen((page: MonitorPage): ListMonitorsResponse =>
  create(ListMonitorsResponseSchema, {
    httpMonitors: page.monitors.filter((m) => m.type === 'http').map(toHttpMessage),
    tcpMonitors: page.monitors.filter((m) => m.type === 'tcp').map(toTcpMessage),
    grpcMonitors: page.monitors.filter((m) => m.type === 'grpc').map(toGrpcMessage),
    totalSize: page.total,
  }),
);
const encodedListAnswer = oncePerFrozen((page: MonitorPage) => encodedOnce(ListMonitorsResponseSchema, listAnswer(page)));

/** monitor.v1.MonitorService: decode, call the monitor service, encode. No rules here. */
export function monitorServiceImpl(services: Services): ServiceImpl<typeof MonitorService> {
  const monitors = services.monitors;
  return {
    async listMonitors(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const page = await monitors.list(actor, workspaceId, { limit: req.limit, offset: req.offset });
      return isBinaryCall(ctx) ? encodedListAnswer(page) : listAnswer(page);
    },

    async getMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await monitors.get(actor, workspaceId, req.id);
      switch (monitor.type) {
        case 'tcp':
          return { monitor: { case: 'tcpMonitor', value: toTcpMessage(monitor) } };
        case 'grpc':
          return { monitor: { case: 'grpcMonitor', value: toGrpcMessage(monitor) } };
        case 'http':
          return { monitor: { case: 'httpMonitor', value: toHttpMessage(monitor) } };
      }
    },

    async createTCPMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.create(actor, workspaceId, 'tcp', createInput('tcp', req.monitor)));
      return { monitor: toTcpMessage(as(monitor, 'tcp')) };
    },

    async createGRPCMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.create(actor, workspaceId, 'grpc', createInput('grpc', req.monitor)));
      return { monitor: toGrpcMessage(as(monitor, 'grpc')) };
    },

    async createHTTPMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.create(actor, workspaceId, 'http', createInput('http', req.monitor)));
      return { monitor: toHttpMessage(as(monitor, 'http')) };
    },

    async updateTCPMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.update(actor, workspaceId, 'tcp', req.id, updatePatch('tcp', req.monitor, req.updateMask)));
      return { monitor: toTcpMessage(as(monitor, 'tcp')) };
    },

    async updateGRPCMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.update(actor, workspaceId, 'grpc', req.id, updatePatch('grpc', req.monitor, req.updateMask)));
      return { monitor: toGrpcMessage(as(monitor, 'grpc')) };
    },

    async updateHTTPMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await inMonitorField(monitors.update(actor, workspaceId, 'http', req.id, updatePatch('http', req.monitor, req.updateMask)));
      return { monitor: toHttpMessage(as(monitor, 'http')) };
    },

    async deleteMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await monitors.delete(actor, workspaceId, req.id);
      return {};
    },

    async triggerMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const results = await monitors.trigger(actor, workspaceId, req.id);
      return { results: results.map(toCheckResultMessage) };
    },

    async getMonitorStatus(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const health = await monitors.status(actor, workspaceId, req.id);
      return {
        regions: health.regions.map((r) => ({
          region: r.region,
          status: regionHealthWire(r.status),
          lastCheckedAt: r.lastCheckedAt === null ? undefined : timestamp(r.lastCheckedAt),
        })),
        overall: regionHealthWire(health.overall),
      };
    },

    async getMonitorSummary(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const summary = await monitors.summary(actor, workspaceId, req.id, summaryWindow.domain(req.window));
      return {
        window: summaryWindow.wire(summary.window),
        successCount: BigInt(summary.successCount),
        degradedCount: BigInt(summary.degradedCount),
        errorCount: BigInt(summary.errorCount),
        latency: summary.latency ?? undefined,
        lastPingAt: summary.lastPingAt === null ? undefined : timestamp(summary.lastPingAt),
        gaps: summary.gaps.map((g) => ({ startedAt: timestamp(g.startedAt), endedAt: timestamp(g.endedAt) })),
      };
    },

    async listResponseLogs(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const results = await monitors.responseLogs(actor, workspaceId, req.id, { window: summaryWindow.domain(req.window), limit: req.limit, offset: req.offset });
      return { results: results.map(toCheckResultMessage) };
    },
  };
}
