import type { SecureContext } from 'node:tls';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { MCPCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { RunnerCheck, RunnerCheckSchema } from '../../proto/gen/runner/v1/runner_pb.js';
import { createDestinationPolicy, type DestinationPolicy } from '../domain/destinations.ts';
import { grpcStatuses, type McpCheck, type McpStatus, type McpTool, mcpStatuses, type ProbeResult } from '../domain/monitors/check-results.ts';
import { isMonitorType, type MonitorType } from '../domain/monitors/monitor-types.ts';
import type { Monitor } from '../domain/monitors/monitors.ts';
import { builtOnFirstUse, ID_PATTERN, parseInput } from '../domain/validation.ts';
import { AppError } from '../errors.ts';
import { emptyTiming, trustStore } from './connection.ts';
import { createOtlpExport } from './otlp-export.ts';
import { probeResult } from './outcome.ts';
import { type Probe, type ProbeContext, probes, type ScheduledOf } from './probes.ts';
import type { StoredCheck } from './result-store.ts';
import { createScheduler } from './scheduler.ts';
import type { HeartbeatEvaluator } from './heartbeat-watch.ts';
import { dnsCheckFromWire, dnsCheckToWire, reportedDnsCheck } from './dns-record.ts';
import { pingCheckFromWire, pingCheckToWire, reportedPingCheck } from './ping-record.ts';
import { certificateFromWire, certificateToWire, reportedCertificateCheck } from './certificate-wire.ts';
import { reportedWebSocketCheck, websocketCheckFromWire, websocketCheckToWire } from './websocket-record.ts';

/**
 * What every runner does, the embedded one of the service and `statusdesk runner` alike: keeps
 * the monitors it is given, checks them on their schedule through the probes, and exports their
 * metrics. Where results go is the caller's: the engine stores them, a remote runner buffers and
 * uploads them. Below it, the forms a monitor and a check take between the service and a remote
 * runner (runner.v1): the proto code is imported for its types alone, so the engine loads none.
 */

/**
 * A scheduled monitor as a runner keeps it, for as long as it is scheduled: what its checks and
 * metrics read, without what only people read (description, tags, times) nor where else it is
 * checked from (its private locations). At 100,000 monitors every field kept costs megabytes.
 */
export type ScheduledMonitor = { [K in MonitorType]: ScheduledOf<K> }[MonitorType];

/** Who runs the checks, and the regions each check stands for. */
export interface Place {
  runner: string;
  /** The same for every check (a private location stands as its own region); absent: each monitor's own. */
  regions?: string[];
}

export interface CheckRunnerOptions {
  log: Logger;
  version: string;
  place: Place;
  /** Most checks in flight at once. */
  concurrency?: number;
  /** How often metrics go to each OTLP endpoint. */
  otlpIntervalMs?: number;
  /** PEM certificates trusted besides Node's and the system's roots. */
  extraCa?: string[];
  /** Whether it runs the programs of stdio MCP monitors (probes.ts: ProbeContext.allowCommands); absent: it does not. */
  allowCommands?: boolean;
  /** Where checks and metric exports may connect (domain/destinations.ts); absent: the policy without an allow-list. */
  destinations?: DestinationPolicy;
  now?: () => number;
  /** How the probe of heartbeat monitors evaluates them (the engine's, heartbeat-watch.ts); absent on a remote runner. */
  heartbeats?: HeartbeatEvaluator;
  /** Each scheduled check once it ran (not after close). */
  onCheck(stored: StoredCheck): void;
  /** A span of wall time in which nothing ran (the machine slept, the clock moved). */
  onGap(from: number, to: number): void;
}

const DEFAULT_CONCURRENCY = 500;
const DEFAULT_OTLP_INTERVAL_MS = 60_000;
export const PERIOD_MS: Record<Monitor['periodicity'], number> = {
  '30s': 30_000,
  '1m': 60_000,
  '5m': 300_000,
  '10m': 600_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
};

/** What a monitor is scheduled as: without the fields its checks do not read. */
export function scheduledForm(monitor: Monitor | ScheduledMonitor): ScheduledMonitor {
  const {
    description: _description,
    tags: _tags,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    privateLocations: _privateLocations,
    ...scheduled
  } = monitor as Monitor;
  return scheduled as ScheduledMonitor;
}

export function createCheckRunner(options: CheckRunnerOptions) {
  const { log } = options;
  const now = options.now ?? Date.now;
  let place = options.place;
  const destinations = options.destinations ?? createDestinationPolicy();
  const otlp = createOtlpExport({ intervalMs: options.otlpIntervalMs ?? DEFAULT_OTLP_INTERVAL_MS, log, version: options.version, destinations });
  /** Aborted on close: ends the checks in flight. */
  const stopping = new AbortController();
  // Built on the first check: reading the trust stores takes a moment the CLI need not spend.
  let probeOptions: { trust: SecureContext; userAgent: string; stop: AbortSignal; destinations: DestinationPolicy } | undefined;
  const probeSettings = () =>
    (probeOptions ??= { trust: trustStore(options.extraCa), userAgent: `statusdesk/${options.version}`, stop: stopping.signal, destinations });
  /** Scheduled monitors by id, with their revision and the last round (sync or full assignment) that saw them. */
  const monitors = new Map<number, { revision: number; monitor: ScheduledMonitor; seen: number }>();
  /** One array per distinct list of regions, shared by the monitors that list them. */
  const regionLists = new Map<string, Monitor['regions']>();
  let closed = false;

  /** Passes a scheduled check on, unless the runner closed while it ran (or it had nothing to record). */
  const passOn = (stored: StoredCheck | null) => {
    if (stored && !closed) options.onCheck(stored);
  };

  const scheduler = createScheduler({
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    now,
    // The check's own promise, with no async function around it: one promise and one turn fewer per check.
    run: (id) => {
      const entry = monitors.get(id);
      return entry ? check(entry.monitor).then(passOn) : Promise.resolve();
    },
    onGap: options.onGap,
  });

  const probeContext: ProbeContext = {
    stop: stopping.signal,
    allowCommands: options.allowCommands ?? false,
    destinations,
    secure: probeSettings,
    heartbeats: options.heartbeats,
  };

  /** The probe's own promise, not one wrapping it: the check awaits it directly. */
  function probe(monitor: ScheduledMonitor): Promise<ProbeResult | null> {
    return (probes[monitor.type] as Probe<MonitorType>)(monitor, probeContext);
  }

  /**
   * Runs one check of `monitor` now. Never rejects: a fault of the probe itself is a down result.
   * Null when there is nothing to record yet (a heartbeat monitor waiting for its first deadline).
   */
  async function check(monitor: ScheduledMonitor): Promise<StoredCheck | null> {
    const startedAt = now();
    let result: ProbeResult | null;
    try {
      result = await probe(monitor);
    } catch (error) {
      log.error({ err: error, monitorId: monitor.id }, 'a check failed unexpectedly');
      result = probeResult('down', now() - startedAt, emptyTiming(), 0, `the check itself failed: ${(error as Error).message}`);
    }
    if (result === null) return null;
    const { runner, regions = monitor.regions } = place;
    // Made whole, field by field, rather than as `{ ...result, monitorId, ... }`: a copy by spread
    // that V8 then grows by five more fields, one at a time, on every check.
    const stored: StoredCheck = {
      result: result.result,
      latencyMs: result.latencyMs,
      timing: result.timing,
      attempts: result.attempts,
      message: result.message,
      grpcStatus: result.grpcStatus,
      statusCode: result.statusCode,
      url: result.url,
      responseHeaders: result.responseHeaders,
      assertionResults: result.assertionResults,
      mcp: result.mcp ?? null,
      dns: result.dns ?? null,
      ping: result.ping ?? null,
      certificate: result.certificate ?? null,
      websocket: result.websocket ?? null,
      heartbeat: result.heartbeat ?? null,
      monitorId: Number(monitor.id),
      workspaceId: Number(monitor.workspaceId),
      runner,
      regions,
      startedAt,
    };
    if (closed) return stored; // finished after close: the exporters are gone
    try {
      otlp.record(monitor, stored);
    } catch (error) {
      log.warn({ err: error, monitorId: monitor.id }, 'recording metrics failed');
    }
    return stored;
  }

  function forget(id: number): void {
    monitors.delete(id);
    scheduler.unschedule(id);
    otlp.forget(id);
  }

  return {
    check,
    forget,
    scheduler,

    /** Schedules a monitor (anew, if it changed), seen in `round`; a paused one is forgotten. */
    track(monitor: Monitor | ScheduledMonitor, revision: number, round = 0): void {
      const id = Number(monitor.id);
      if (!monitor.active) return forget(id);
      const scheduled = scheduledForm(monitor);
      const key = scheduled.regions.join(',');
      const regions = regionLists.get(key);
      if (regions) scheduled.regions = regions;
      else regionLists.set(key, scheduled.regions);
      monitors.set(id, { revision, monitor: scheduled, seen: round });
      scheduler.schedule(id, PERIOD_MS[monitor.periodicity]);
    },

    /** Marks a scheduled monitor as seen in `round`; returns the revision it is scheduled at (undefined: not scheduled). */
    mark(id: number, round: number): number | undefined {
      const entry = monitors.get(id);
      if (!entry) return undefined;
      entry.seen = round;
      return entry.revision;
    },

    /** Forgets every monitor `round` did not see (deleted, paused or unassigned since), and the lists of regions no monitor holds now. */
    sweep(round: number): void {
      for (const [id, entry] of monitors) if (entry.seen < round) forget(id);
      const held = new Set<Monitor['regions']>();
      for (const { monitor } of monitors.values()) held.add(monitor.regions);
      for (const [key, regions] of regionLists) if (!held.has(regions)) regionLists.delete(key);
    },

    /** Forgets every monitor whose id `drop` picks (checked by another process from now on). */
    forgetWhere(drop: (id: number) => boolean): void {
      for (const id of monitors.keys()) if (drop(id)) forget(id);
    },

    /** A scheduled monitor by id. */
    monitor(id: number): ScheduledMonitor | undefined {
      return monitors.get(id)?.monitor;
    },

    /** From now on, checks are made under this runner name and regions (a location renamed). */
    moveTo(next: Place): void {
      place = next;
    },

    start(): void {
      scheduler.start();
    },

    /** Stops scheduling and ends the checks in flight; what ends after this is not passed on. */
    stop(): void {
      scheduler.stop();
      stopping.abort();
      closed = true;
    },

    /** Closes the exporters (after `stop`). */
    close(): Promise<void> {
      return otlp.close();
    },
  };
}

export type CheckRunner = ReturnType<typeof createCheckRunner>;

// ---- between the service and a remote runner ----------------------------------------------------

/** A monitor as `AssignedMonitor.definition` carries it: its scheduled form as JSON, credentials opened. */
export function encodeDefinition(monitor: Monitor): Uint8Array {
  return Buffer.from(JSON.stringify(scheduledForm(monitor)));
}

/** A definition the service sent; an AppError when it is not one of this version's. */
export function decodeDefinition(bytes: Uint8Array): ScheduledMonitor {
  let monitor: Partial<ScheduledMonitor> | null;
  try {
    monitor = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<ScheduledMonitor> | null;
  } catch {
    monitor = null;
  }
  const valid =
    typeof monitor === 'object' &&
    monitor !== null &&
    typeof monitor.id === 'string' &&
    typeof monitor.type === 'string' &&
    isMonitorType(monitor.type) &&
    typeof monitor.periodicity === 'string' &&
    Object.hasOwn(PERIOD_MS, monitor.periodicity) &&
    Array.isArray(monitor.regions);
  if (!valid) throw new AppError('VALIDATION', 'definition: must be a monitor as this version of Statusdesk checks it');
  return monitor as ScheduledMonitor;
}

/** A check as a runner reports it; the runner and regions are the service's to say. */
export function toRunnerCheck(sequence: number, stored: StoredCheck): MessageInitShape<typeof RunnerCheckSchema> {
  const phase = (ms: number | null) => ms ?? undefined;
  const t = stored.timing;
  return {
    sequence: BigInt(sequence),
    monitorId: String(stored.monitorId),
    startedAtMs: BigInt(stored.startedAt),
    result: stored.result,
    latencyMs: stored.latencyMs,
    timing: { dns: phase(t.dns), connect: phase(t.connect), tls: phase(t.tls), ttfb: phase(t.ttfb), transfer: phase(t.transfer), total: phase(t.total) },
    attempts: stored.attempts,
    message: stored.message,
    grpcStatus: stored.grpcStatus ?? '',
    statusCode: stored.statusCode ?? undefined,
    url: stored.url ?? '',
    responseHeaders: stored.responseHeaders,
    assertionResults: stored.assertionResults,
    mcp: stored.mcp ? mcpCheckToWire(stored.mcp) : undefined,
    dns: stored.dns ? dnsCheckToWire(stored.dns) : undefined,
    ping: stored.ping ? pingCheckToWire(stored.ping) : undefined,
    certificate: stored.certificate ? certificateToWire(stored.certificate) : undefined,
    websocket: stored.websocket ? websocketCheckToWire(stored.websocket) : undefined,
  };
}

/** An MCP check as monitor.v1.MCPCheck carries it (empty strings and absent counts for nulls). */
export function mcpCheckToWire(mcp: McpCheck): MessageInitShape<typeof MCPCheckSchema> {
  return {
    status: mcp.status,
    protocolVersion: mcp.protocolVersion ?? '',
    serverName: mcp.serverName ?? '',
    serverVersion: mcp.serverVersion ?? '',
    tools: mcp.tools,
    prompts: mcp.prompts ?? undefined,
    resources: mcp.resources ?? undefined,
    warnings: mcp.warnings,
    exitCode: mcp.exitCode ?? undefined,
    stderrTail: mcp.stderrTail,
    signIn: mcp.signIn ?? '',
  };
}

/** Bounds of what a runner may report: a check's own text is short, and the probes make no more than this. */
const MAX_TEXT = 1_000;
const MAX_URL = 4_096;
const MAX_HEADER_NAME = 256;
const MAX_ENTRIES = 50;
const MAX_ATTEMPTS = 100;
/** The most tools an MCP check lists (mcp-probe.ts stops at its page limit well before). */
const MAX_TOOLS = 10_000;
const MAX_TOOL_TEXT = 256 * 1024;

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
/** A check a runner reported, as hostile as it may be; built with the first report (see builtOnFirstUse). */
const runnerCheck = builtOnFirstUse(() => {
  const duration = z.number('must be a finite number of milliseconds').min(0, 'must not be negative');
  const phase = duration.optional();

  return z.object({
    monitorId: z.string().regex(ID_PATTERN, 'must be a monitor id (a positive whole number)'),
    startedAtMs: z.bigint().min(1n, 'must be a time after 1970').max(BigInt(Number.MAX_SAFE_INTEGER), 'must be a time in epoch milliseconds'),
    result: z.enum(['up', 'degraded', 'down'], 'must be one of up, degraded, down'),
    latencyMs: duration,
    timing: z.object({ dns: phase, connect: phase, tls: phase, ttfb: phase, transfer: phase, total: phase }).optional(),
    attempts: z.number().int().min(0, 'must not be negative').max(MAX_ATTEMPTS, `must be at most ${MAX_ATTEMPTS}`),
    message: text(MAX_TEXT),
    grpcStatus: z.union([z.literal(''), z.enum(grpcStatuses)], `must be empty or one of ${grpcStatuses.join(', ')}`),
    statusCode: z.number().int().min(100, 'must be an HTTP status code').max(999, 'must be an HTTP status code').optional(),
    url: text(MAX_URL),
    responseHeaders: z
      .record(text(MAX_HEADER_NAME), text(MAX_TEXT))
      .refine((headers) => Object.keys(headers).length <= MAX_ENTRIES, `must have at most ${MAX_ENTRIES} headers`),
    assertionResults: z
      .array(z.object({ assertion: text(MAX_TEXT), passed: z.boolean(), actual: text(MAX_TEXT) }))
      .max(MAX_ENTRIES, `must have at most ${MAX_ENTRIES} assertions`),
    mcp: z
      .object({
        status: z.enum(mcpStatuses, `must be one of ${mcpStatuses.join(', ')}`),
        protocolVersion: text(64),
        serverName: text(MAX_TEXT),
        serverVersion: text(MAX_TEXT),
        tools: z
          .array(z.object({ name: text(MAX_TEXT), fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex'), text: text(MAX_TOOL_TEXT) }))
          .max(MAX_TOOLS, `must have at most ${MAX_TOOLS} tools`),
        prompts: z.number().int().min(0).optional(),
        resources: z.number().int().min(0).optional(),
        warnings: z.array(text(MAX_TEXT)).max(MAX_TOOLS, `must have at most ${MAX_TOOLS} warnings`),
        exitCode: z.number().int().optional(),
        stderrTail: text(8 * 1024),
        signIn: text(MAX_TEXT),
      })
      .optional(),
    dns: reportedDnsCheck(),
    ping: reportedPingCheck(),
    websocket: reportedWebSocketCheck(),
    certificate: reportedCertificateCheck(),
  });
});

/** monitor.v1.MCPCheck as the domain holds it (nulls for empty strings and absent counts). */
export function mcpCheckFromWire(m: {
  status: string;
  protocolVersion: string;
  serverName: string;
  serverVersion: string;
  tools: McpTool[];
  prompts?: number;
  resources?: number;
  warnings: string[];
  exitCode?: number;
  stderrTail: string;
  signIn: string;
}): McpCheck {
  return {
    status: m.status as McpStatus,
    protocolVersion: m.protocolVersion || null,
    serverName: m.serverName || null,
    serverVersion: m.serverVersion || null,
    tools: m.tools.map(({ name, fingerprint, text }) => ({ name, fingerprint, text })),
    prompts: m.prompts ?? null,
    resources: m.resources ?? null,
    warnings: m.warnings,
    exitCode: m.exitCode ?? null,
    stderrTail: m.stderrTail,
    signIn: m.signIn || null,
  };
}

/**
 * A check a remote runner reported, as the service stores it, made by `runner` for `regions`; a
 * VALIDATION AppError naming the field when it breaks a rule (a runner is not trusted).
 */
export function fromRunnerCheck(message: RunnerCheck, where: { runner: string; regions: string[]; workspaceId: number }): StoredCheck {
  const c = parseInput(runnerCheck(), message);
  const t = c.timing;
  const phaseOf = (ms: number | undefined) => ms ?? null;
  return {
    monitorId: Number(c.monitorId),
    workspaceId: where.workspaceId,
    runner: where.runner,
    regions: where.regions,
    startedAt: Number(c.startedAtMs),
    result: c.result,
    latencyMs: c.latencyMs,
    timing: {
      dns: phaseOf(t?.dns),
      connect: phaseOf(t?.connect),
      tls: phaseOf(t?.tls),
      ttfb: phaseOf(t?.ttfb),
      transfer: phaseOf(t?.transfer),
      total: phaseOf(t?.total),
    },
    attempts: c.attempts,
    message: c.message,
    grpcStatus: c.grpcStatus || null,
    statusCode: c.statusCode ?? null,
    url: c.url || null,
    responseHeaders: c.responseHeaders,
    assertionResults: c.assertionResults,
    ...(c.mcp && { mcp: mcpCheckFromWire(c.mcp) }),
    ...(c.dns && { dns: dnsCheckFromWire(c.dns) }),
    ...(c.ping && { ping: pingCheckFromWire(c.ping) }),
    ...(c.certificate && { certificate: certificateFromWire(c.certificate) }),
    ...(c.websocket && { websocket: websocketCheckFromWire(c.websocket) }),
  };
}
