import { BADGE_KINDS, badgeSvg } from '../public/badge-svg.ts';
import type { BadgeSettings } from '../domain/monitors/badges.ts';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { durationFromMs, type FieldMask } from '@bufbuild/protobuf/wkt';
import { bulkActions } from '../domain/monitors/bulk-actions.ts';
import { enumPairs } from './enum-pairs.ts';
import {
  BulkMonitorAction,
  type HeartbeatMonitor,
  type ListMonitorsResponse,
  ListMonitorsResponseSchema,
  type MonitorService,
} from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { MonitorTools } from '../domain/monitors/tool-pins.ts';
import type { Services } from '../services.ts';
import { type MonitorType, monitorTypeNames } from '../domain/monitors/monitor-types.ts';
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
  toMonitorMessage,
  updatePatch,
  wireOf,
} from './monitor-codec.ts';

/** BulkMonitorAction's values and the bulk service's actions. */
const bulkAction = enumPairs(bulkActions, [
  BulkMonitorAction.PAUSE,
  BulkMonitorAction.RESUME,
  BulkMonitorAction.DELETE,
  BulkMonitorAction.ADD_TAG,
  BulkMonitorAction.WIRE_TO_CHANNEL,
  BulkMonitorAction.SET_GROUP,
]);

/** Checks that a monitor returned for a typed create or update is of that type. */
function as(monitor: Monitor, type: MonitorType): Monitor {
  if (monitor.type !== type) throw new Error(`expected a ${type} monitor, got ${monitor.type}`);
  return monitor;
}

/**
 * The answer to ListMonitors for a page: each type's monitors in the list of its message. The
 * monitor service hands out the same frozen page until a monitor changes, and the answer depends
 * on the page alone: it is built once per page, and encoded once per page for the binary formats.
 */
const listAnswer = oncePerFrozen(
  (page: MonitorPage): ListMonitorsResponse =>
    create(ListMonitorsResponseSchema, {
      ...Object.fromEntries(monitorTypeNames.map((type) => [wireOf(type).listField, page.monitors.filter((m) => m.type === type).map(toMonitorMessage)])),
      totalSize: page.total,
    }),
);
const encodedListAnswer = oncePerFrozen((page: MonitorPage) => encodedOnce(ListMonitorsResponseSchema, listAnswer(page)));

/** The calls of one type each: `createTCPMonitor`, `updateGRPCMonitor`, …. */
type TypedMethod = Extract<keyof ServiceImpl<typeof MonitorService>, `create${string}` | `update${string}`>;
type Request = { monitor?: object; id?: string; updateMask?: FieldMask };
type Handler = (req: Request, ctx: Parameters<ServiceImpl<typeof MonitorService>['getMonitor']>[1]) => Promise<{ monitor: object }>;

/**
 * The create and update calls of every monitor type (`CreateGRPCMonitor`, `UpdateGRPCMonitor`),
 * named by the type's message: the same two handlers for each.
 */
function typedCalls(services: Services): Record<string, Handler> {
  const monitors = services.monitors;
  return Object.fromEntries(
    monitorTypeNames.flatMap((type): [string, Handler][] => [
      [
        wireOf(type).createMethod,
        async (req, ctx) => {
          const { actor, workspaceId } = callerOf(ctx);
          const monitor = await inMonitorField(monitors.create(actor, workspaceId, type, createInput(type, req.monitor as never)));
          return { monitor: toMonitorMessage(as(monitor, type)) };
        },
      ],
      [
        wireOf(type).updateMethod,
        async (req, ctx) => {
          const { actor, workspaceId } = callerOf(ctx);
          const monitor = await inMonitorField(monitors.update(actor, workspaceId, type, req.id!, updatePatch(type, req.monitor as never, req.updateMask)));
          return { monitor: toMonitorMessage(as(monitor, type)) };
        },
      ],
    ]),
  );
}

/** GetMCPTools' answer: the pinned tools, and the open drift's changes. */
function toolsAnswer(tools: MonitorTools) {
  return {
    pinned: tools.pinned,
    pinnedAt: tools.pinnedAt === null ? undefined : timestamp(tools.pinnedAt),
    drifted: tools.drift !== null,
    driftedAt: tools.drift === null ? undefined : timestamp(tools.drift.detectedAt),
    changes: tools.drift?.changes ?? [],
  };
}

/** monitor.v1.MonitorService: decode, call the monitor service, encode. No rules here. */
export function monitorServiceImpl(services: Services): ServiceImpl<typeof MonitorService> {
  const monitors = services.monitors;
  return {
    ...(typedCalls(services) as unknown as Pick<ServiceImpl<typeof MonitorService>, TypedMethod>),
    async listMonitors(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const page = await monitors.list(actor, workspaceId, { limit: req.limit, offset: req.offset });
      return isBinaryCall(ctx) ? encodedListAnswer(page) : listAnswer(page);
    },

    async getMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const monitor = await monitors.get(actor, workspaceId, req.id);
      return { monitor: { case: wireOf(monitor.type).oneofCase, value: toMonitorMessage(monitor) } } as never;
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

    // The typed create of every type, but for heartbeats: the answer carries the ping URL, this once.
    async createHeartbeatMonitor(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const { monitor, pingToken } = await inMonitorField(monitors.createHeartbeat(actor, workspaceId, createInput('heartbeat', req.monitor)));
      return { monitor: toMonitorMessage(as(monitor, 'heartbeat')) as HeartbeatMonitor, pingUrl: services.heartbeats.pingUrlOf(pingToken) };
    },

    async getMonitorBadges(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const [settings, shown] = await Promise.all([services.badges.get(actor, workspaceId, req.id), services.badges.preview(actor, workspaceId, req.id)]);
      const previews = shown ? Object.fromEntries(BADGE_KINDS.map((kind) => [kind, badgeSvg(kind, shown)])) : {};
      return { badges: badgesMessage(settings), previews };
    },

    async updateMonitorBadges(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { badges: badgesMessage(await services.badges.update(actor, workspaceId, req.id, { enabled: req.enabled, rotate: req.rotate })) };
    },

    async bulkUpdateMonitors(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const f = req.filter;
      const result = await services.bulkMonitors.bulkUpdate(actor, workspaceId, {
        action: bulkAction.domain(req.action),
        // A request names its monitors by filter when it carries one, by ids otherwise.
        ids: f ? (req.ids.length > 0 ? req.ids : undefined) : req.ids,
        filter: f && { query: f.query, state: f.state || undefined, type: f.type || undefined, tag: f.tag },
        tag: req.tag || undefined,
        channelId: req.channelId || undefined,
        // Empty takes the monitors out of their group: a value only for the action that reads it.
        group: req.action === BulkMonitorAction.SET_GROUP ? req.group : undefined,
      });
      return { ids: result.ids, changedCount: result.changed, failures: result.failures };
    },

    async listMonitorIncidents(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const incidents = await services.monitorIncidents.list(actor, workspaceId, req.id);
      return {
        incidents: incidents.map((i) => ({
          id: i.id,
          startedAt: timestamp(i.startedAt),
          endedAt: i.endedAt === null ? undefined : timestamp(i.endedAt),
          duration: durationFromMs(i.durationMs),
          failedChecks: i.failedChecks,
          firstMessage: i.firstMessage,
        })),
      };
    },

    async rotateHeartbeatToken(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return services.heartbeats.rotateToken(actor, workspaceId, req.id);
    },

    async listHeartbeatPings(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const pings = await services.heartbeats.pings(actor, workspaceId, req.id, { limit: req.limit });
      return {
        pings: pings.map((p) => ({
          kind: p.kind,
          exitStatus: p.exitStatus ?? undefined,
          body: p.body,
          receivedAt: timestamp(p.receivedAt),
          runTimeMs: p.runTimeMs ?? undefined,
          address: p.address,
          userAgent: p.userAgent,
          method: p.method,
        })),
      };
    },

    async getMCPTools(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return toolsAnswer(await services.toolPins.get(actor, workspaceId, req.id));
    },

    async acceptMCPTools(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { pinned: (await services.toolPins.accept(actor, workspaceId, req.id)).pinned };
    },

    async listResponseLogs(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const results = await monitors.responseLogs(actor, workspaceId, req.id, {
        window: summaryWindow.domain(req.window),
        limit: req.limit,
        offset: req.offset,
      });
      return { results: results.map(toCheckResultMessage) };
    },
  };
}

/** A monitor's badge setting on the wire: empty strings for what it does not have. */
function badgesMessage(settings: BadgeSettings) {
  return {
    enabled: settings.enabled,
    badgeId: settings.badgeId ?? '',
    statusUrl: settings.urls?.status ?? '',
    uptime24hUrl: settings.urls?.uptime24h ?? '',
    uptime7dUrl: settings.urls?.uptime7d ?? '',
    uptime30dUrl: settings.urls?.uptime30d ?? '',
    latencyUrl: settings.urls?.latency ?? '',
  };
}
