import { z } from 'zod';
import { grpcStatuses, summaryWindows } from '../domain/monitors/check-results.ts';
import { inWords, monitorTypeNames, specOf, targetOf, typesByTarget } from '../domain/monitors/monitor-types.ts';
import type { Monitor, MonitorPage } from '../domain/monitors/monitors.ts';
import { oncePerFrozen } from '../http/once-per-frozen.ts';
import { defineTool, pageInput, pagination, READ, record, type ToolContext } from './tool.ts';

const MAX_MONITORS_PER_PAGE = 50;
const DEFAULT_RESPONSE_LOGS = 25;
const MAX_RESPONSE_LOGS = 100;

const monitorId = z.number().int().positive().describe('The numeric monitor id, from list_monitors.');
const window = z.enum(summaryWindows).default('1d').describe('1d (default), 7d or 14d: how far back to look.');
const timing = z
  .object({
    dns: z.number().nullable(),
    connect: z.number().nullable(),
    tls: z.number().nullable(),
    ttfb: z.number().nullable(),
    transfer: z.number().nullable(),
    total: z.number().nullable(),
  })
  .describe('Phase durations in milliseconds; null for a phase that did not happen.');

const channelRef = z.object({ id: z.string(), name: z.string(), kind: z.string() });

const monitor = record({
  monitorId: z.number().int(),
  type: z.enum(monitorTypeNames),
  name: z.string(),
  description: z.string(),
  url: z.string().describe(
    `The target: ${typesByTarget()
      .map(([words, types]) => `${words} for ${inWords(types.map((t) => specOf(t).title))}`)
      .join(', ')}.`,
  ),
  active: z.boolean().describe('false while paused.'),
  periodicity: z.string().describe('Check frequency: 30s, 1m, 5m, 10m, 30m or 1h.'),
  regions: z.array(z.string()),
  privateLocations: z
    .array(z.string())
    .describe(
      "Ids of the workspace's private locations the monitor is also checked from (see list_private_locations); their results stand as regions named by the location.",
    ),
  timeout: z.number().describe('Milliseconds.'),
  degraded: z.number().nullable().describe('Milliseconds above which a success is degraded; null: never.'),
  remindEvery: z.number().nullable().describe('While down or degraded, how often its channels are reminded, in milliseconds; null: never.'),
  retry: z.number().int(),
  tags: z.array(z.string()),
  group: z.string().describe("The group the overview shows the monitor in; '' for none."),
  notificationChannels: z.array(channelRef).describe('The channels wired to the monitor.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const responseLog = record({
  id: z.string().describe('The response log id, for get_response_log.'),
  monitorId: z.number().int(),
  region: z.string(),
  runner: z.string().describe('The runner (private location) that ran the check for this region.'),
  startedAt: z.string(),
  result: z.enum(['up', 'degraded', 'down']),
  latencyMs: z.number(),
  timing,
  attempts: z.number().int(),
  message: z.string(),
  grpcStatus: z.enum(grpcStatuses).nullable(),
  statusCode: z.number().int().nullable(),
  url: z.string().nullable(),
  responseHeaders: z.record(z.string(), z.string()).describe('Response headers; credentials and cookies redacted.'),
  assertionResults: z.array(record({ assertion: z.string(), passed: z.boolean(), actual: z.string() })),
});

/**
 * The fields of a monitor as the tools show it (SPEC 2.6), once per frozen monitor: a frozen
 * monitor is one revision of it (the monitor service shares the ones it keeps).
 */
const shapeOf = oncePerFrozen((m: Monitor) => {
  const { id, workspaceId: _workspaceId, ...config } = m;
  return { monitorId: Number(id), ...config, url: targetOf(m) };
});

/**
 * A monitor as the tools show it (SPEC 2.6): a numeric monitorId, its target as `url`, and its
 * channels. Header and metadata values named like credentials come from the monitor service
 * already `[redacted]`, as on every surface (monitor-secrets.ts).
 */
function shown(m: Monitor, channels: readonly z.infer<typeof channelRef>[]) {
  return { ...shapeOf(m), notificationChannels: channels };
}

/**
 * The last list_monitors answer of each page the monitor service shares (one object until the
 * monitors table changes, and for one page and perPage), with the channels and open incidents it
 * shows (each one object until its tables change): a call that reads the same objects gets the
 * same frozen answer, whose JSON the server keeps (mcp-server.ts). Its arrays are copies and left
 * unfrozen: V8's JSON.stringify takes a slow path through a frozen array, which costs more than
 * keeping the answer's JSON saves.
 */
const listAnswers = new WeakMap<MonitorPage, { channels: object; incidents: object; answer: object }>();

/** Monitor ids are numbers in every tool (SPEC 2.6). */
const numericMonitorId = <T extends { monitorId: string }>(log: T) => ({ ...log, monitorId: Number(log.monitorId) });

async function channelsOf({ actor, workspaceId, services }: ToolContext, monitors: readonly Monitor[]) {
  return services.channels.ofMonitors(
    actor,
    workspaceId,
    monitors.map((m) => m.id),
  );
}

export const monitorTools = [
  defineTool({
    name: 'list_monitors',
    title: 'List monitors',
    description: `Monitors newest first (${inWords(monitorTypeNames.map((t) => specOf(t).title))}), each with its target, regions, private locations, frequency, channels and activeIncidentCount (1 while it is down, plus each unresolved status report on a component it drives). At most ${MAX_MONITORS_PER_PAGE} per page.`,
    access: 'read',
    annotations: READ,
    input: z.strictObject(pageInput(MAX_MONITORS_PER_PAGE)),
    output: z.object({ monitors: z.array(monitor.extend({ activeIncidentCount: z.number().int() })), pagination }),
    async run(context, { page, perPage }) {
      const { actor, workspaceId, services } = context;
      const listed = await services.monitors.list(actor, workspaceId, { limit: perPage, offset: (page - 1) * perPage });
      const { monitors, total } = listed;
      const [channels, incidents] = await Promise.all([channelsOf(context, monitors), services.monitors.activeIncidentCounts(actor, workspaceId, monitors)]);
      const kept = listAnswers.get(listed);
      if (kept && kept.channels === channels && kept.incidents === incidents) return kept.answer;
      const answer = Object.freeze({
        monitors: monitors.map((m) => Object.freeze({ ...shown(m, [...(channels.get(m.id) ?? [])]), activeIncidentCount: incidents.get(m.id) ?? 0 })),
        pagination: Object.freeze({ page, perPage, totalSize: total, totalPages: Math.ceil(total / perPage) }),
      });
      listAnswers.set(listed, { channels, incidents, answer });
      return answer;
    },
  }),
  defineTool({
    name: 'get_monitor',
    title: 'Get a monitor',
    description:
      'The full configuration of one monitor; header and metadata values named like credentials show as [redacted]; badges gives the addresses of its public status badges while they are on. It has no latency or health: use get_monitor_status and get_monitor_summary for those.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({ monitorId }),
    output: z.object({
      monitor,
      // The monitor's public status badges (SVG for a README), present only while they are on.
      badges: z
        .object({ status: z.string(), uptime24h: z.string(), uptime7d: z.string(), uptime30d: z.string(), latency: z.string() })
        .optional()
        .describe("the addresses of the monitor's public status badges, present only while its owner has them on"),
    }),
    async run(context, args) {
      const m = await context.services.monitors.get(context.actor, context.workspaceId, String(args.monitorId));
      const badges = await context.services.badges.get(context.actor, context.workspaceId, m.id);
      return { monitor: shown(m, (await channelsOf(context, [m])).get(m.id) ?? []), ...(badges.urls && { badges: badges.urls }) };
    },
  }),
  defineTool({
    name: 'get_monitor_status',
    title: 'Get monitor status',
    description:
      'The current health of a monitor in each of its regions, then in each of its private locations by name (active, degraded or error; null before its first check), and overall (the worst). No time window.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({ monitorId }),
    output: z.object({
      monitorId: z.number().int(),
      overall: z.enum(['active', 'degraded', 'error']).nullable(),
      regions: z.array(record({ region: z.string(), status: z.enum(['active', 'degraded', 'error']).nullable(), lastCheckedAt: z.string().nullable() })),
    }),
    async run({ actor, workspaceId, services }, args) {
      return { monitorId: args.monitorId, ...(await services.monitors.status(actor, workspaceId, String(args.monitorId))) };
    },
  }),
  defineTool({
    name: 'get_monitor_summary',
    title: 'Get monitor summary',
    description:
      'Counts of successful, degraded and failed checks, latency percentiles p50 to p99 (ms) and the last check time, over 1d (default), 7d or 14d; gaps lists spans in which nothing was checked.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({ monitorId, window }),
    output: z.object({
      monitorId: z.number().int(),
      window: z.enum(summaryWindows),
      successCount: z.number().int(),
      degradedCount: z.number().int(),
      errorCount: z.number().int(),
      latency: z.object({ p50: z.number(), p75: z.number(), p90: z.number(), p95: z.number(), p99: z.number() }).nullable(),
      lastPingAt: z.string().nullable(),
      gaps: z.array(z.object({ startedAt: z.string(), endedAt: z.string() })),
    }),
    async run({ actor, workspaceId, services }, args) {
      return { monitorId: args.monitorId, ...(await services.monitors.summary(actor, workspaceId, String(args.monitorId), args.window)) };
    },
  }),
  defineTool({
    name: 'list_response_logs',
    title: 'List response logs',
    description: `Recent check results of an HTTP monitor, newest first, one per region: status code, latency, timing breakdown, redacted response headers, error message and assertion results. HTTP monitors only. limit at most ${MAX_RESPONSE_LOGS}, with offset.`,
    access: 'read',
    annotations: READ,
    input: z.strictObject({
      monitorId,
      window,
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_RESPONSE_LOGS)
        .default(DEFAULT_RESPONSE_LOGS)
        .describe(`How many, 1 to ${MAX_RESPONSE_LOGS}. Default ${DEFAULT_RESPONSE_LOGS}.`),
      offset: z.number().int().min(0).default(0).describe('How many of the newest to skip. Default 0.'),
    }),
    output: z.object({ responseLogs: z.array(responseLog), window: z.enum(summaryWindows), limit: z.number().int(), offset: z.number().int() }),
    async run({ actor, workspaceId, services }, { monitorId, ...query }) {
      const logs = await services.monitors.responseLogs(actor, workspaceId, String(monitorId), query);
      return { responseLogs: logs.map(numericMonitorId), ...query };
    },
  }),
  defineTool({
    name: 'get_response_log',
    title: 'Get a response log',
    description: 'Every detail of one check in one region, by the id list_response_logs gave.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({ responseLogId: z.string().min(1).describe('A response log id from list_response_logs, e.g. 1234-iad.') }),
    output: z.object({ responseLog }),
    async run({ actor, workspaceId, services }, args) {
      return { responseLog: numericMonitorId(await services.monitors.responseLog(actor, workspaceId, args.responseLogId)) };
    },
  }),
];
