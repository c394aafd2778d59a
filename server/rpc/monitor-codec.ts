import { create, type DescEnum, type DescField, type DescMessage, type Message, type MessageInitShape } from '@bufbuild/protobuf';
import { type Duration, durationFromMs, durationMs, type FieldMask, type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { z } from 'zod';
import {
  type CheckResult as CheckResultMessage,
  CheckResultSchema,
  file_monitor_v1_monitor,
  type GetMonitorResponse,
  GetMonitorResponseSchema,
  type GetMonitorStatusResponse,
  type GetMonitorSummaryResponse,
  type ListMonitorsResponse,
  ListMonitorsResponseSchema,
  MonitorStatus,
  Periodicity,
  SummaryWindow,
} from '../../proto/gen/monitor/v1/monitor_pb.js';
import { AppError } from '../errors.ts';
import { enumPairs } from './enum-pairs.ts';
import { mcpCheckFromWire, mcpCheckToWire } from '../checks/check-runner.ts';
import { dnsCheckFromWire, dnsCheckToWire } from '../checks/dns-record.ts';
import { certificateFromWire, certificateToWire } from '../checks/certificate-wire.ts';
import { pingCheckFromWire, pingCheckToWire } from '../checks/ping-record.ts';
import { websocketCheckFromWire, websocketCheckToWire } from '../checks/websocket-record.ts';
import { heartbeatCheckFromWire, heartbeatCheckToWire } from '../checks/heartbeat-record.ts';
import type { CheckResult, RegionHealth, SummaryWindow as DomainWindow } from '../domain/monitors/check-results.ts';
import { choicesOf, innermost } from '../domain/declared-fields.ts';
import type { Monitor } from '../domain/monitors/monitors.ts';
import { configSchemas } from '../domain/monitors/monitor-rules.ts';
import { isMonitorType, type MonitorType, monitorTypeNames, specOf } from '../domain/monitors/monitor-types.ts';
import { frequencies } from '../domain/plans.ts';
import { oncePerFrozen } from '../http/once-per-frozen.ts';

/**
 * Translation between the wire messages of monitor.v1 and the domain's monitors. No rules here:
 * a value the wire cannot express in the domain (an unspecified enum) becomes undefined, and the
 * domain's validation names it.
 *
 * Each monitor type's message (its declaration's `message`, domain/monitors/types/) has the
 * fields of the domain's configuration under the same names, so one codec serves every type: it
 * walks the message's fields beside the type's schema. An enum value is the wire enum's prefix
 * and the domain value in upper snake case (`skip-verify` is `TLS_MODE_SKIP_VERIFY`); a Duration
 * is milliseconds; a map or a list of messages is copied field by field.
 */

export const periodicity = enumPairs(frequencies, [
  Periodicity.PERIODICITY_30S,
  Periodicity.PERIODICITY_1M,
  Periodicity.PERIODICITY_5M,
  Periodicity.PERIODICITY_10M,
  Periodicity.PERIODICITY_30M,
  Periodicity.PERIODICITY_1H,
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

// ---- the messages of each type --------------------------------------------------------------

/** How a type travels: its message, the fields carrying it in ListMonitors and GetMonitor, its calls. */
export interface MonitorWire {
  message: DescMessage;
  /** ListMonitorsResponse's list of the type (`grpcMonitors`). */
  listField: keyof ListMonitorsResponse & string;
  /** GetMonitorResponse's case of the type (`grpcMonitor`). */
  oneofCase: Exclude<GetMonitorResponse['monitor']['case'], undefined>;
  /** The methods of MonitorService that create and change one (`createGRPCMonitor`). */
  createMethod: string;
  updateMethod: string;
}

function wireOfType(type: MonitorType): MonitorWire {
  const name = specOf(type).message;
  const message = file_monitor_v1_monitor.messages.find((m) => m.name === name);
  if (!message) throw new Error(`monitor.v1 has no message ${name} for the ${type} monitor type`);
  const listField = ListMonitorsResponseSchema.fields.find((f) => f.fieldKind === 'list' && f.message === message);
  const oneofCase = GetMonitorResponseSchema.fields.find((f) => f.fieldKind === 'message' && f.message === message);
  if (!listField || !oneofCase) throw new Error(`ListMonitorsResponse and GetMonitorResponse must each carry ${name}`);
  return {
    message,
    listField: listField.localName as MonitorWire['listField'],
    oneofCase: oneofCase.localName as MonitorWire['oneofCase'],
    createMethod: `create${name}`,
    updateMethod: `update${name}`,
  };
}

const wires = new Map<MonitorType, MonitorWire>();
/** The wire of a monitor type, found by its message's name. */
export function wireOf(type: MonitorType): MonitorWire {
  let wire = wires.get(type);
  if (!wire) wires.set(type, (wire = wireOfType(type)));
  return wire;
}

/** The type of a GetMonitor answer's case; undefined for one this version does not know. */
export const typeOfCase = (oneofCase: string | undefined): MonitorType | undefined => monitorTypeNames.find((type) => wireOf(type).oneofCase === oneofCase);

/** A domain enum and a wire enum, value by value, by name. */
function enumByName(domain: readonly string[], wire: DescEnum) {
  const prefix = wire.values.find((v) => v.number === 0)!.name.replace(/UNSPECIFIED$/, '');
  const numbers = domain.map((value) => {
    const found = wire.values.find((v) => v.name === `${prefix}${value.toUpperCase().replace(/-/g, '_')}`);
    if (!found) throw new Error(`${wire.typeName} has no value for "${value}"`);
    return found.number;
  });
  return enumPairs(domain, numbers);
}

/** How one field goes between the wire and the domain. */
interface FieldCodec {
  name: string;
  toDomain(value: unknown): unknown;
  toWire(value: unknown): unknown;
}

const same = (value: unknown) => value;

/** The codec of one field of `message`, beside its domain schema (undefined for output-only fields). */
function fieldCodec(field: DescField, schema: z.ZodType | undefined): FieldCodec {
  const name = field.localName;
  const inner = schema && innermost(schema);
  switch (field.fieldKind) {
    case 'enum': {
      const pairs = enumByName(choicesOf(schema!), field.enum);
      return { name, toDomain: (v) => pairs.domain(v as number), toWire: (v) => (v === undefined ? undefined : pairs.wire(v as string)) };
    }
    case 'map':
      return { name, toDomain: (v) => ({ ...(v as object) }), toWire: same };
    case 'list': {
      if (field.listKind !== 'message') return { name, toDomain: same, toWire: same };
      const item = messageCodec(field.message, (inner as z.ZodArray<z.ZodType>).element);
      return { name, toDomain: (v) => (v as object[]).map(item.toDomain), toWire: (v) => (v as object[] | undefined)?.map(item.toWire) };
    }
    case 'message': {
      if (field.message.typeName === 'google.protobuf.Duration') {
        return {
          name,
          toDomain: (v) => (v === undefined ? undefined : durationMs(v as Duration)),
          toWire: (v) => (v === undefined || v === null ? undefined : durationFromMs(v as number)),
        };
      }
      if (field.message.typeName === 'google.protobuf.Timestamp') {
        return { name, toDomain: (v) => v, toWire: (v) => (v === undefined ? undefined : timestamp(v as string)) };
      }
      const nested = messageCodec(field.message, inner);
      return {
        name,
        toDomain: (v) => (v === undefined ? undefined : nested.toDomain(v as object)),
        toWire: (v) => (v === undefined || v === null ? undefined : nested.toWire(v as object)),
      };
    }
    default:
      return { name, toDomain: same, toWire: same };
  }
}

/** The codec of a message whose fields are those of a domain object (`schema`, a zod object). */
function messageCodec(message: DescMessage, schema: z.ZodType | undefined) {
  const shape = (schema as z.ZodObject | undefined)?.shape ?? {};
  const fields = message.fields.map((field) => fieldCodec(field, shape[field.localName] as z.ZodType | undefined));
  // Plain loops: ListMonitors encodes every monitor of a page it has not seen before.
  return {
    fields,
    toDomain(value: object) {
      const domain: Record<string, unknown> = {};
      for (const f of fields) domain[f.name] = f.toDomain((value as Record<string, unknown>)[f.name]);
      return domain;
    },
    toWire(value: object) {
      const wire: Record<string, unknown> = {};
      for (const f of fields) {
        const v = f.toWire((value as Record<string, unknown>)[f.name]);
        if (v !== undefined) wire[f.name] = v;
      }
      return wire;
    },
  };
}

/** Fields of a stored monitor that only answers carry. */
const OUTPUT_ONLY = new Set(['id', 'createdAt', 'updatedAt']);

const codecs = new Map<MonitorType, ReturnType<typeof typeCodec>>();
function typeCodec(type: MonitorType) {
  const { message } = wireOf(type);
  const codec = messageCodec(message, configSchemas()[type]);
  // The configuration's fields, in the order of the domain's schema.
  const order = Object.keys(configSchemas()[type].shape);
  const configFields = order.flatMap((name) => codec.fields.find((f) => f.name === name && !OUTPUT_ONLY.has(name)) ?? []);
  return { ...codec, configFields };
}
function codecOf(type: MonitorType) {
  let codec = codecs.get(type);
  if (!codec) codecs.set(type, (codec = typeCodec(type)));
  return codec;
}

// ---- wire to domain ------------------------------------------------------------------------

/** Every configurable field of a wire monitor, by its domain name; undefined where not given. */
type Fields = Record<string, unknown>;

function fieldsOf(type: MonitorType, message: object): Fields {
  return Object.fromEntries(codecOf(type).configFields.map((f) => [f.name, f.toDomain((message as Record<string, unknown>)[f.name])]));
}

const emptyMessage = (type: MonitorType) => create(wireOf(type).message);

/** Whether a wire field was given: set, and not the empty string, list or map. */
function given(value: unknown): boolean {
  if (value === undefined || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return true;
}

/** The domain input of a create: the given fields only, so the domain fills the defaults. */
export function createInput(type: MonitorType, monitor: Message | undefined): Fields {
  const fields = fieldsOf(type, monitor ?? emptyMessage(type));
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => given(value)));
}

const snakeToCamel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The domain patch of an update (AIP-134). With a mask, exactly the named fields change, and a
 * named field left empty returns to its default (null). Without one, the given fields change.
 */
export function updatePatch(type: MonitorType, monitor: Message | undefined, mask: FieldMask | undefined): Fields {
  const fields = fieldsOf(type, monitor ?? emptyMessage(type));
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

/**
 * The wire fields of some of a type's domain fields (a request's), those left out left out:
 * what `statusdesk monitors` sends from its flags.
 */
export function wireFields(type: MonitorType, fields: Fields): MessageInitShape<DescMessage> {
  const codec = codecOf(type);
  return Object.fromEntries(codec.fields.flatMap((f) => (f.name in fields ? [[f.name, f.toWire(fields[f.name])]] : []))) as MessageInitShape<DescMessage>;
}

/**
 * The wire message of a monitor, once per frozen monitor (the monitor service shares the ones it
 * keeps). A configuration without id or times (apply's) encodes as well: requests ignore them.
 */
export const toMonitorMessage = oncePerFrozen(
  (m: Monitor): Message => create(wireOf(m.type).message, codecOf(m.type).toWire(m) as MessageInitShape<DescMessage>),
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
    mcp: r.mcp ? mcpCheckToWire({ ...r.mcp, tools: r.mcp.tools.map(({ name, fingerprint }) => ({ name, fingerprint, text: '' })) }) : undefined,
    dns: r.dns ? dnsCheckToWire(r.dns) : undefined,
    certificate: r.certificate ? certificateToWire(r.certificate) : undefined,
    ping: r.ping ? pingCheckToWire(r.ping) : undefined,
    websocket: r.websocket ? websocketCheckToWire(r.websocket) : undefined,
    heartbeat: r.heartbeat ? heartbeatCheckToWire(r.heartbeat) : undefined,
  });
}

export const regionHealthWire = (health: RegionHealth | null) => (health === null ? MonitorStatus.UNSPECIFIED : regionHealth.wire(health));

// ---- wire to words -------------------------------------------------------------------------

export type { MonitorType };

/** An ISO time, or null when the wire leaves it out. */
export const isoOf = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

/** Undefined as null, all the way down: JSON shows what the wire left unset. */
function nullWhereUnset(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(nullWhereUnset);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullWhereUnset(v)]));
  return value;
}

/** The fields of every monitor in words, and its type's own fields by their domain names. */
export type MonitorWords = ReturnType<typeof commonWords> & Record<string, any>;

function commonWords(type: MonitorType, m: Record<string, any>) {
  return {
    id: m.id as string,
    type,
    name: m.name as string,
    description: m.description as string,
    target: m[specOf(type).target] as string,
    active: (m.active as boolean | undefined) ?? true,
    frequency: periodicity.domain(m.periodicity) ?? null,
    regions: [...(m.regions as string[])],
    privateLocations: [...(m.privateLocations as string[])],
    timeout: ms(m.timeout) ?? null,
    degraded: ms(m.degraded) ?? null,
    remindEvery: ms(m.remindEvery) ?? null,
    retry: (m.retry as number | undefined) ?? null,
    openTelemetry: m.openTelemetry ? { endpoint: m.openTelemetry.endpoint as string, headers: { ...m.openTelemetry.headers } as Record<string, string> } : null,
    tags: [...(m.tags as string[])],
    group: m.group as string,
    createdAt: isoOf(m.createdAt),
    updatedAt: isoOf(m.updatedAt),
  };
}

/**
 * A wire monitor in the words of the flags and MCP, for people and scripts: its `type`, its
 * `target` (host:port for TCP and gRPC, the URL for HTTP), `frequency` as `1m`, durations in ms,
 * and every default present (a field the service left unset shows as its default or null); then
 * its type's own fields.
 */
export function monitorWords(type: MonitorType, m: Message): MonitorWords {
  const words: Record<string, unknown> = commonWords(type, m as unknown as Record<string, any>);
  const spec = specOf(type);
  const own = fieldsOf(type, m);
  for (const name of Object.keys(spec.fields())) if (name !== spec.target) words[name] = nullWhereUnset(own[name]);
  return words as MonitorWords;
}

/** Whether a string names a monitor type (`statusdesk monitors create TYPE`). */
export { isMonitorType };

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
    ...(r.mcp && { mcp: mcpCheckFromWire(r.mcp) }),
    ...(r.dns && { dns: dnsCheckFromWire(r.dns) }),
    ...(r.certificate && { certificate: certificateFromWire(r.certificate) }),
    ...(r.ping && { ping: pingCheckFromWire(r.ping) }),
    ...(r.websocket && { websocket: websocketCheckFromWire(r.websocket) }),
    ...(r.heartbeat && { heartbeat: heartbeatCheckFromWire(r.heartbeat) }),
  };
}
