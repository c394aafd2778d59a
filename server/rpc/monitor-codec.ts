import { create } from '@bufbuild/protobuf';
import { type Duration, durationFromMs, durationMs, type FieldMask, type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  type CheckResult as CheckResultMessage,
  CheckResultSchema,
  type GetMonitorStatusResponse,
  type GetMonitorSummaryResponse,
  type GRPCMonitor,
  GRPCMonitorSchema,
  HTTPMethod,
  type HTTPMonitor,
  HTTPMonitorSchema,
  MonitorStatus,
  NumberComparator,
  type OpenTelemetryConfig,
  Periodicity,
  StringComparator,
  SummaryWindow,
  type TCPMonitor,
  TCPMonitorSchema,
  TLSMode,
} from '../../proto/gen/monitor/v1/monitor_pb.js';
import { AppError } from '../errors.ts';
import { enumPairs } from './enum-pairs.ts';
import type { CheckResult, RegionHealth, SummaryWindow as DomainWindow } from '../domain/monitors/check-results.ts';
import type { GrpcMonitor, HttpMonitor, Monitor, TcpMonitor } from '../domain/monitors/monitors.ts';
import { httpMethods, numberComparators, stringComparators, tlsModes } from '../domain/monitors/monitor-rules.ts';
import { frequencies } from '../domain/plans.ts';
import { oncePerFrozen } from '../http/once-per-frozen.ts';

/**
 * Translation between the wire messages of monitor.v1 and the domain's monitors. No rules here:
 * a value the wire cannot express in the domain (an unspecified enum) becomes undefined, and the
 * domain's validation names it.
 */

export const periodicity = enumPairs(frequencies, [
  Periodicity.PERIODICITY_30S,
  Periodicity.PERIODICITY_1M,
  Periodicity.PERIODICITY_5M,
  Periodicity.PERIODICITY_10M,
  Periodicity.PERIODICITY_30M,
  Periodicity.PERIODICITY_1H,
]);
export const tls = enumPairs(tlsModes, [TLSMode.TLS_MODE_VERIFY, TLSMode.TLS_MODE_SKIP_VERIFY, TLSMode.TLS_MODE_PLAINTEXT]);
export const method = enumPairs(httpMethods, [
  HTTPMethod.HTTP_METHOD_GET,
  HTTPMethod.HTTP_METHOD_HEAD,
  HTTPMethod.HTTP_METHOD_POST,
  HTTPMethod.HTTP_METHOD_PUT,
  HTTPMethod.HTTP_METHOD_PATCH,
  HTTPMethod.HTTP_METHOD_DELETE,
  HTTPMethod.HTTP_METHOD_OPTIONS,
]);
export const numberComparator = enumPairs(numberComparators, [
  NumberComparator.EQUAL,
  NumberComparator.NOT_EQUAL,
  NumberComparator.GREATER_THAN,
  NumberComparator.GREATER_THAN_OR_EQUAL,
  NumberComparator.LESS_THAN,
  NumberComparator.LESS_THAN_OR_EQUAL,
]);
export const stringComparator = enumPairs(stringComparators, [
  StringComparator.CONTAINS,
  StringComparator.NOT_CONTAINS,
  StringComparator.EQUAL,
  StringComparator.NOT_EQUAL,
  StringComparator.EMPTY,
  StringComparator.NOT_EMPTY,
]);
export const summaryWindow = enumPairs(['1d', '7d', '14d'] as const satisfies readonly DomainWindow[], [
  SummaryWindow.SUMMARY_WINDOW_1D,
  SummaryWindow.SUMMARY_WINDOW_7D,
  SummaryWindow.SUMMARY_WINDOW_14D,
]);
export const regionHealth = enumPairs(['active', 'degraded', 'error'] as const satisfies readonly RegionHealth[], [
  MonitorStatus.ACTIVE,
  MonitorStatus.DEGRADED,
  MonitorStatus.ERROR,
]);
const ms = (duration: Duration | undefined) => (duration === undefined ? undefined : durationMs(duration));
export const timestamp = (iso: string) => timestampFromDate(new Date(iso));

// ---- wire to domain ------------------------------------------------------------------------

/** Every configurable field of a wire monitor, by its domain name; undefined where not given. */
type Fields = Record<string, unknown>;

function commonFields(m: TCPMonitor | GRPCMonitor | HTTPMonitor): Fields {
  return {
    name: m.name,
    description: m.description,
    active: m.active,
    periodicity: periodicity.domain(m.periodicity),
    regions: m.regions,
    privateLocations: m.privateLocations,
    timeout: ms(m.timeout),
    degraded: ms(m.degraded),
    retry: m.retry,
    openTelemetry: m.openTelemetry && { endpoint: m.openTelemetry.endpoint, headers: { ...m.openTelemetry.headers } },
    tags: m.tags,
  };
}

const fieldsOf = {
  tcp: (m: TCPMonitor): Fields => ({ ...commonFields(m), uri: m.uri }),
  grpc: (m: GRPCMonitor): Fields => ({
    ...commonFields(m),
    uri: m.uri,
    service: m.service,
    tls: tls.domain(m.tls),
    metadata: { ...m.metadata },
  }),
  http: (m: HTTPMonitor): Fields => ({
    ...commonFields(m),
    url: m.url,
    method: method.domain(m.method),
    headers: { ...m.headers },
    body: m.body,
    followRedirects: m.followRedirects,
    statusCodeAssertions: m.statusCodeAssertions.map((a) => ({ comparator: numberComparator.domain(a.comparator), target: a.target })),
    headerAssertions: m.headerAssertions.map((a) => ({ key: a.key, comparator: stringComparator.domain(a.comparator), target: a.target })),
    bodyAssertions: m.bodyAssertions.map((a) => ({ comparator: stringComparator.domain(a.comparator), target: a.target })),
  }),
};

const messageSchemas = { tcp: TCPMonitorSchema, grpc: GRPCMonitorSchema, http: HTTPMonitorSchema };

/** Whether a wire field was given: set, and not the empty string, list or map. */
function given(value: unknown): boolean {
  if (value === undefined || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return true;
}

/** The domain input of a create: the given fields only, so the domain fills the defaults. */
export function createInput<T extends keyof typeof fieldsOf>(type: T, monitor: Parameters<(typeof fieldsOf)[T]>[0] | undefined): Fields {
  const message = monitor ?? create(messageSchemas[type] as typeof TCPMonitorSchema);
  const fields = (fieldsOf[type] as (m: typeof message) => Fields)(message);
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => given(value)));
}

const snakeToCamel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The domain patch of an update (AIP-134). With a mask, exactly the named fields change, and a
 * named field left empty returns to its default (null). Without one, the given fields change.
 */
export function updatePatch<T extends keyof typeof fieldsOf>(
  type: T,
  monitor: Parameters<(typeof fieldsOf)[T]>[0] | undefined,
  mask: FieldMask | undefined,
): Fields {
  const message = monitor ?? create(messageSchemas[type] as typeof TCPMonitorSchema);
  const fields = (fieldsOf[type] as (m: typeof message) => Fields)(message);
  if (!mask || mask.paths.length === 0) return Object.fromEntries(Object.entries(fields).filter(([, value]) => given(value)));
  const patch: Fields = {};
  for (const path of mask.paths) {
    const name = snakeToCamel(path);
    if (!Object.hasOwn(fields, name)) {
      const rule = `"${path}" is not a field that can be changed; fields: ${Object.keys(fields).join(', ')}`;
      throw new AppError('VALIDATION', `update_mask: ${rule}`, [{ field: 'update_mask', rule }]);
    }
    const value = fields[name];
    patch[name] = given(value) ? value : null;
  }
  return patch;
}

/**
 * Runs a create or update, reporting refused configuration fields by their path in the request
 * (`monitor.uri`, not `uri`).
 */
export async function inMonitorField<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION') throw error;
    const violations = error.violations.map((v) => ({
      field: v.field === 'id' || v.field.startsWith('monitor') || v.field === 'update_mask' ? v.field : `monitor.${v.field}`,
      rule: v.rule,
    }));
    throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
  }
}

// ---- domain to wire ------------------------------------------------------------------------

function commonMessage(m: Monitor) {
  return {
    id: m.id,
    name: m.name,
    description: m.description,
    active: m.active,
    periodicity: periodicity.wire(m.periodicity),
    regions: m.regions,
    privateLocations: m.privateLocations,
    timeout: durationFromMs(m.timeout),
    degraded: m.degraded === null ? undefined : durationFromMs(m.degraded),
    retry: m.retry,
    openTelemetry: m.openTelemetry ? ({ endpoint: m.openTelemetry.endpoint, headers: m.openTelemetry.headers } as OpenTelemetryConfig) : undefined,
    tags: m.tags,
    createdAt: timestamp(m.createdAt),
    updatedAt: timestamp(m.updatedAt),
  };
}

export const toTcpMessage = oncePerFrozen((m: TcpMonitor): TCPMonitor => create(TCPMonitorSchema, { ...commonMessage(m), uri: m.uri }));

export const toGrpcMessage = oncePerFrozen(
  (m: GrpcMonitor): GRPCMonitor => create(GRPCMonitorSchema, { ...commonMessage(m), uri: m.uri, service: m.service, tls: tls.wire(m.tls), metadata: m.metadata }),
);

export const toHttpMessage = oncePerFrozen(
  (m: HttpMonitor): HTTPMonitor =>
  create(HTTPMonitorSchema, {
    ...commonMessage(m),
    url: m.url,
    method: method.wire(m.method),
    headers: m.headers,
    body: m.body,
    followRedirects: m.followRedirects,
    statusCodeAssertions: m.statusCodeAssertions.map((a) => ({ comparator: numberComparator.wire(a.comparator), target: a.target })),
    headerAssertions: m.headerAssertions.map((a) => ({ key: a.key, comparator: stringComparator.wire(a.comparator), target: a.target })),
    bodyAssertions: m.bodyAssertions.map((a) => ({ comparator: stringComparator.wire(a.comparator), target: a.target })),
  }),
);

export function toCheckResultMessage(r: CheckResult): CheckResultMessage {
  const timing = Object.fromEntries(Object.entries(r.timing).filter(([, v]) => v !== null));
  return create(CheckResultSchema, {
    monitorId: r.monitorId,
    region: r.region,
    runner: r.runner,
    startedAt: timestamp(r.startedAt),
    result: r.result,
    latencyMs: r.latencyMs,
    timing,
    attempts: r.attempts,
    message: r.message,
    grpcStatus: r.grpcStatus ?? '',
    statusCode: r.statusCode ?? undefined,
    responseHeaders: r.responseHeaders,
    assertionResults: r.assertionResults,
    url: r.url ?? '',
  });
}

export const regionHealthWire = (health: RegionHealth | null) => (health === null ? MonitorStatus.UNSPECIFIED : regionHealth.wire(health));

// ---- wire to words -------------------------------------------------------------------------

/**
 * A wire monitor in the words of the flags and MCP, for people and scripts: its `type`, its
 * `target` (host:port for TCP and gRPC, the URL for HTTP), `frequency` as `1m`, durations in ms,
 * and every default present (a field the service left unset shows as its default or null).
 */
export type MonitorType = 'tcp' | 'grpc' | 'http';

/** An ISO time, or null when the wire leaves it out. */
export const isoOf = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export function monitorWords(type: MonitorType, m: TCPMonitor | GRPCMonitor | HTTPMonitor) {
  const common = {
    id: m.id,
    type,
    name: m.name,
    description: m.description,
    target: type === 'http' ? (m as HTTPMonitor).url : (m as TCPMonitor | GRPCMonitor).uri,
    active: m.active ?? true,
    frequency: periodicity.domain(m.periodicity) ?? null,
    regions: [...m.regions],
    privateLocations: [...m.privateLocations],
    timeout: ms(m.timeout) ?? null,
    degraded: ms(m.degraded) ?? null,
    retry: m.retry ?? null,
    openTelemetry: m.openTelemetry ? { endpoint: m.openTelemetry.endpoint, headers: { ...m.openTelemetry.headers } } : null,
    tags: [...m.tags],
    createdAt: isoOf(m.createdAt),
    updatedAt: isoOf(m.updatedAt),
  };
  if (type === 'grpc') {
    const g = m as GRPCMonitor;
    return { ...common, service: g.service, tls: tls.domain(g.tls) ?? null, metadata: { ...g.metadata } };
  }
  if (type === 'http') {
    const h = m as HTTPMonitor;
    return {
      ...common,
      method: method.domain(h.method) ?? null,
      headers: { ...h.headers },
      body: h.body,
      followRedirects: h.followRedirects ?? null,
      statusCodeAssertions: h.statusCodeAssertions.map((a) => ({ comparator: numberComparator.domain(a.comparator) ?? null, target: a.target })),
      headerAssertions: h.headerAssertions.map((a) => ({ key: a.key, comparator: stringComparator.domain(a.comparator) ?? null, target: a.target })),
      bodyAssertions: h.bodyAssertions.map((a) => ({ comparator: stringComparator.domain(a.comparator) ?? null, target: a.target })),
    };
  }
  return common;
}

/** A monitor's health in words: `active`, `degraded` or `error`; null before its first check. */
export const healthWord = (status: MonitorStatus) => (regionHealth.domain(status) ?? null) as RegionHealth | null;

/** GetMonitorStatus in words, as MCP's get_monitor_status. */
export function statusWords(monitorId: string, r: GetMonitorStatusResponse) {
  return {
    monitorId,
    overall: healthWord(r.overall),
    regions: r.regions.map((region) => ({ region: region.region, status: healthWord(region.status), lastCheckedAt: isoOf(region.lastCheckedAt) })),
  };
}

/** GetMonitorSummary in words, as MCP's get_monitor_summary: every count a number, zero included. */
export function summaryWords(monitorId: string, r: GetMonitorSummaryResponse) {
  const l = r.latency;
  return {
    monitorId,
    window: summaryWindow.domain(r.window) ?? null,
    successCount: Number(r.successCount),
    degradedCount: Number(r.degradedCount),
    errorCount: Number(r.errorCount),
    latency: l ? { p50: l.p50, p75: l.p75, p90: l.p90, p95: l.p95, p99: l.p99 } : null,
    lastPingAt: isoOf(r.lastPingAt),
    gaps: r.gaps.map((g) => ({ startedAt: isoOf(g.startedAt), endedAt: isoOf(g.endedAt) })),
  };
}

/** A check result as every surface shows it: phases that did not happen are null. */
export function checkWords(r: CheckResultMessage) {
  const phase = (v: number | undefined) => v ?? null;
  const t = r.timing;
  return {
    monitorId: r.monitorId,
    region: r.region,
    runner: r.runner,
    startedAt: isoOf(r.startedAt),
    result: r.result,
    latencyMs: r.latencyMs,
    timing: { dns: phase(t?.dns), connect: phase(t?.connect), tls: phase(t?.tls), ttfb: phase(t?.ttfb), transfer: phase(t?.transfer), total: phase(t?.total) },
    attempts: r.attempts,
    message: r.message,
    grpcStatus: r.grpcStatus || null,
    statusCode: r.statusCode ?? null,
    url: r.url || null,
    responseHeaders: { ...r.responseHeaders },
    assertionResults: r.assertionResults.map(({ assertion, passed, actual }) => ({ assertion, passed, actual })),
  };
}
