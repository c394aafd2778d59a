import { type Duration, durationFromMs, durationMs } from '@bufbuild/protobuf/wkt';
import type { FieldViolation } from '../../../../contract/errors.ts';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import {
  type CertificateMonitor,
  CertificateMonitorSchema,
  type DNSMonitor,
  DNSMonitorSchema,
  type DNSRecordType,
  DNSRecordTypeSchema,
  type GetMonitorResponse,
  type GRPCMonitor,
  GRPCMonitorSchema,
  type HeartbeatMonitor,
  HeartbeatMonitorSchema,
  type HTTPMethod,
  HTTPMethodSchema,
  type HTTPMonitor,
  HTTPMonitorSchema,
  type MCPMonitor,
  MCPMonitorSchema,
  type MCPTransport,
  MCPTransportSchema,
  type PingMonitor,
  PingMonitorSchema,
  NumberComparator,
  Periodicity,
  StringComparator,
  type TCPMonitor,
  TCPMonitorSchema,
  type TLSMode,
  TLSModeSchema,
  type WebSocketMonitor,
  WebSocketMonitorSchema,
} from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import type {
  CertificateMonitorInit,
  DnsMonitorInit,
  GrpcMonitorInit,
  HeartbeatMonitorInit,
  HttpMonitorInit,
  McpMonitorInit,
  PingMonitorInit,
  TcpMonitorInit,
  WireMonitor,
  WireUpdate,
  WebSocketMonitorInit,
} from '../../data/monitor-messages.ts';
import { entriesOf, type KeyValueRow, rowKey, rowsOf } from '../../key-value-rows.ts';
import { type ChoiceOf, defaultOf, MCP_TRANSPORT_FIELDS, type McpTransport, type MonitorType, specOf, wireEnum, wordOf } from './type-fields.ts';

// The monitor form's model: what the form holds (text as typed), how a stored monitor fills it,
// and how it becomes the monitor.v1 messages of a create or an update, typed by the generated
// schemas. Plain TypeScript without React, tested in Node (test/monitor-form-model.test.ts). A
// type's own plain fields hold what the contract declares (a choice as its word, `skip-verify`),
// and start at the service's defaults.

export type { MonitorType };

/** The words of the choice fields, as the contract lists them. */
export type TlsWord = ChoiceOf<'grpc', 'tls'>;
export type MethodWord = ChoiceOf<'http', 'method'>;
const TLS_WORDS = specOf('grpc', 'tls').schema.enum;
const METHOD_WORDS = specOf('http', 'method').schema.enum;
const TRANSPORT_WORDS = specOf('mcp', 'transport').schema.enum;
const RECORD_TYPE_WORDS = specOf('dns', 'recordType').schema.enum;
/** A DNS record type as the contract lists it (`A`, `MX`). */
export type RecordTypeWord = ChoiceOf<'dns', 'recordType'>;

/** What the service shows in place of a credential-like header or metadata value. */
export const REDACTED = '[redacted]';

export interface StatusCodeRow {
  key: string;
  comparator: NumberComparator;
  target: string;
}
export interface HeaderAssertionRow {
  key: string;
  name: string;
  comparator: StringComparator;
  target: string;
}
export interface BodyAssertionRow {
  key: string;
  comparator: StringComparator;
  target: string;
}

/** Everything the form shows, as typed: numbers stay text until submit. */
export interface MonitorFormValues {
  name: string;
  description: string;
  tags: string[];
  /** The group the monitor is shown in on the overview, as typed; empty: none. */
  group: string;
  active: boolean;
  host: string;
  port: string;
  service: string;
  tls: TlsWord;
  metadata: KeyValueRow[];
  url: string;
  method: MethodWord;
  headers: KeyValueRow[];
  body: string;
  followRedirects: boolean;
  /** MCP: the URL (http) or the command (stdio). */
  server: string;
  transport: McpTransport;
  /** MCP stdio: the command's arguments, one per line. */
  args: string;
  /** MCP stdio: the command's whole environment; every stored value is hidden by the service. */
  env: KeyValueRow[];
  cwd: string;
  allowCommand: boolean;
  /** WebSocket: the subprotocol asked for; empty for none. */
  subprotocol: string;
  /** WebSocket: the text message sent once the socket is open. */
  sendText: string;
  /** WebSocket: the text the first message received must contain. */
  expectText: string;
  /** Certificate: the name sent in SNI; empty for the host. */
  serverName: string;
  /** Certificate: the days before expiry below which a check is degraded, as typed. */
  minDaysLeft: string;
  /** DNS: the record type asked for (the name asked about is `host`). */
  recordType: RecordTypeWord;
  /** DNS: the resolver, `192.168.1.1` or `[::1]:5353`; empty for the system's. */
  resolver: string;
  /** DNS: the values the answers must contain, one per line. */
  contains: string;
  /** DNS: the values the answers must be exactly, one per line. */
  equals: string;
  /** DNS: the fewest and the most answers accepted, as typed. */
  minAnswers: string;
  maxAnswers: string;
  /** Ping: the echo requests per check, as typed (the host pinged is `host`). */
  count: string;
  /** Ping: how long each echo request is waited for, in milliseconds, as typed. */
  packetTimeout: string;
  /** Ping: the loss in percent above which an answered check is degraded, as typed. */
  degradedLoss: string;
  /** Heartbeat: whether pings are expected a period after each success, or on a cron expression. */
  scheduleKind: ScheduleKind;
  /** Heartbeat: the period, as a count (typed) of a unit. */
  periodCount: string;
  periodUnit: DurationUnit;
  /** Heartbeat: the cron expression, as typed. */
  cron: string;
  /** Heartbeat: the IANA time zone the cron expression is read in. */
  timezone: string;
  /** Heartbeat: the grace time, as a count (typed) of a unit. */
  graceCount: string;
  graceUnit: DurationUnit;
  statusCodeAssertions: StatusCodeRow[];
  headerAssertions: HeaderAssertionRow[];
  bodyAssertions: BodyAssertionRow[];
  periodicity: Periodicity;
  regions: string[];
  /** Ids of the workspace's private locations. */
  privateLocations: string[];
  timeoutSeconds: string;
  degradedMs: string;
  retry: string;
  /** While down or degraded, how often the channels are reminded, in minutes as typed; empty: never. */
  remindMinutes: string;
  otlpEndpoint: string;
  otlpHeaders: KeyValueRow[];
}

/** How a heartbeat monitor's schedule is written: a period after each success, or a cron expression. */
export type ScheduleKind = 'period' | 'cron';
/** The units a heartbeat's period and grace time are typed in, with their length. */
export const DURATION_UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** A span as a count of the largest unit that divides it (`1d`, `90m`); a span of no whole minutes in minutes. */
export function countOf(ms: number): { count: string; unit: DurationUnit } {
  const unit = (['w', 'd', 'h', 'm'] as const).find((u) => ms > 0 && ms % DURATION_UNITS[u] === 0) ?? 'm';
  return { count: String(ms / DURATION_UNITS[unit]), unit };
}

/** A heartbeat's schedule as the form holds it: a cron expression as written, a period (`1h30m`) as one count of a unit. */
export function scheduleOf(schedule: string): Pick<MonitorFormValues, 'scheduleKind' | 'periodCount' | 'periodUnit' | 'cron'> {
  const text = schedule.trim();
  const parts = [...text.matchAll(/(\d+)([mhdw])/g)];
  if (/\s/.test(text) || text.startsWith('@') || parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    return { scheduleKind: 'cron', cron: text, periodCount: '1', periodUnit: 'd' };
  }
  const ms = parts.reduce((sum, [, count, unit]) => sum + Number(count) * DURATION_UNITS[unit as DurationUnit], 0);
  const { count, unit } = countOf(ms);
  return { scheduleKind: 'period', periodCount: count, periodUnit: unit, cron: '' };
}

/** The lists of assertion rows, by the form's name for them (the wire's too). */
export type AssertionList = 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions';

/** A new heartbeat monitor's schedule before anything is typed: once a day. */
const defaultSchedule = '1d';
const graceOf = (ms: number) => {
  const { count, unit } = countOf(ms);
  return { graceCount: count, graceUnit: unit };
};

/** A new monitor: every field unset, so the service's defaults apply; the choices and switches at the service's defaults. */
export function emptyForm(): MonitorFormValues {
  return {
    name: '',
    description: '',
    tags: [],
    group: '',
    active: true,
    host: '',
    port: '',
    service: defaultOf('grpc', 'service'),
    tls: defaultOf('grpc', 'tls'),
    metadata: [],
    url: '',
    method: defaultOf('http', 'method'),
    headers: [],
    body: defaultOf('http', 'body'),
    followRedirects: defaultOf('http', 'followRedirects'),
    server: '',
    transport: defaultOf('mcp', 'transport'),
    args: defaultOf('mcp', 'args').join('\n'),
    env: [],
    cwd: defaultOf('mcp', 'cwd'),
    allowCommand: defaultOf('mcp', 'allowCommand'),
    subprotocol: defaultOf('websocket', 'subprotocol'),
    sendText: defaultOf('websocket', 'sendText'),
    expectText: defaultOf('websocket', 'expectText'),
    serverName: defaultOf('certificate', 'serverName'),
    minDaysLeft: String(defaultOf('certificate', 'minDaysLeft')),
    recordType: defaultOf('dns', 'recordType'),
    resolver: defaultOf('dns', 'resolver'),
    contains: '',
    equals: '',
    minAnswers: String(defaultOf('dns', 'minAnswers')),
    maxAnswers: String(defaultOf('dns', 'maxAnswers')),
    count: String(defaultOf('ping', 'count')),
    packetTimeout: String(defaultOf('ping', 'packetTimeout')),
    degradedLoss: String(defaultOf('ping', 'degradedLoss')),
    ...scheduleOf(defaultSchedule),
    timezone: defaultOf('heartbeat', 'timezone'),
    ...graceOf(defaultOf('heartbeat', 'grace')),
    statusCodeAssertions: [],
    headerAssertions: [],
    bodyAssertions: [],
    periodicity: Periodicity.PERIODICITY_UNSPECIFIED,
    regions: [],
    privateLocations: [],
    timeoutSeconds: '',
    degradedMs: '',
    remindMinutes: '',
    retry: '',
    otlpEndpoint: '',
    otlpHeaders: [],
  };
}

/** New rows of each assertion list, as the form adds them. */
export const newStatusCodeRow = (): StatusCodeRow => ({ key: rowKey(), comparator: NumberComparator.EQUAL, target: '' });
export const newHeaderAssertionRow = (): HeaderAssertionRow => ({ key: rowKey(), name: '', comparator: StringComparator.CONTAINS, target: '' });
export const newBodyAssertionRow = (): BodyAssertionRow => ({ key: rowKey(), comparator: StringComparator.CONTAINS, target: '' });

/** These comparators take no target: the service wants it empty. */
export const takesNoTarget = (comparator: StringComparator) => comparator === StringComparator.EMPTY || comparator === StringComparator.NOT_EMPTY;

// ---- a stored monitor ---------------------------------------------------------------------------

export type StoredMonitor =
  | { type: 'tcp'; monitor: TCPMonitor }
  | { type: 'grpc'; monitor: GRPCMonitor }
  | { type: 'http'; monitor: HTTPMonitor }
  | { type: 'mcp'; monitor: MCPMonitor }
  | { type: 'websocket'; monitor: WebSocketMonitor }
  | { type: 'certificate'; monitor: CertificateMonitor }
  | { type: 'dns'; monitor: DNSMonitor }
  | { type: 'ping'; monitor: PingMonitor }
  | { type: 'heartbeat'; monitor: HeartbeatMonitor };

/** The monitor of a GetMonitor answer with its type; undefined when the answer carries none. */
export function storedMonitorOf(answer: GetMonitorResponse['monitor']): StoredMonitor | undefined {
  switch (answer.case) {
    case 'tcpMonitor':
      return { type: 'tcp', monitor: answer.value };
    case 'grpcMonitor':
      return { type: 'grpc', monitor: answer.value };
    case 'httpMonitor':
      return { type: 'http', monitor: answer.value };
    case 'mcpMonitor':
      return { type: 'mcp', monitor: answer.value };
    case 'pingMonitor':
      return { type: 'ping', monitor: answer.value };
    case 'websocketMonitor':
      return { type: 'websocket', monitor: answer.value };
    case 'certificateMonitor':
      return { type: 'certificate', monitor: answer.value };
    case 'dnsMonitor':
      return { type: 'dns', monitor: answer.value };
    case 'heartbeatMonitor':
      return { type: 'heartbeat', monitor: answer.value };
    default:
      return undefined;
  }
}

/** `host:port` split for two inputs; an IPv6 address loses its brackets, which the target gets back on submit. */
export function splitTarget(uri: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\]:(.*)$/.exec(uri);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! };
  const colon = uri.lastIndexOf(':');
  return colon < 0 ? { host: uri, port: '' } : { host: uri.slice(0, colon), port: uri.slice(colon + 1) };
}

/** The two inputs as one `host:port`; an IPv6 address gets its brackets; empty when both are. */
export function joinTarget(host: string, port: string): string {
  const h = host.trim();
  const p = port.trim();
  if (!h && !p) return '';
  const bracketed = h.includes(':') && !h.includes('://') && !h.startsWith('[') ? `[${h}]` : h;
  return `${bracketed}:${p}`;
}

const secondsText = (duration: Duration | undefined) => (duration ? String(durationMs(duration) / 1000) : '');
const msText = (duration: Duration | undefined) => (duration ? String(durationMs(duration)) : '');
const keptSecret = (_name: string, value: string) => value === REDACTED;

/**
 * The arguments typed one per line, as the list the command gets: empty lines are left out (an
 * empty argument cannot be told from a blank line), the rest kept as they are.
 */
export const argsOf = (text: string): string[] => text.split(/\r?\n/).filter((line) => line !== '');

/** The form prefilled with a stored monitor. */
export function formOf(stored: StoredMonitor): MonitorFormValues {
  const m = stored.monitor;
  const common: MonitorFormValues = {
    ...emptyForm(),
    name: m.name,
    description: m.description,
    tags: [...m.tags],
    group: m.group,
    active: m.active ?? true,
    periodicity: m.periodicity,
    regions: [...m.regions],
    privateLocations: [...m.privateLocations],
    timeoutSeconds: secondsText(m.timeout),
    degradedMs: msText(m.degraded),
    remindMinutes: m.remindEvery === undefined ? '' : String(durationMs(m.remindEvery) / 60_000),
    retry: m.retry === undefined ? '' : String(m.retry),
    otlpEndpoint: m.openTelemetry?.endpoint ?? '',
    otlpHeaders: rowsOf(m.openTelemetry?.headers ?? {}, keptSecret),
  };
  switch (stored.type) {
    case 'tcp':
      return { ...common, ...splitTarget(stored.monitor.uri) };
    case 'grpc':
      return {
        ...common,
        ...splitTarget(stored.monitor.uri),
        service: stored.monitor.service,
        tls: wordOf(TLSModeSchema, stored.monitor.tls, TLS_WORDS) ?? defaultOf('grpc', 'tls'),
        metadata: rowsOf(stored.monitor.metadata, keptSecret),
      };
    case 'http': {
      const h = stored.monitor;
      return {
        ...common,
        url: h.url,
        method: wordOf(HTTPMethodSchema, h.method, METHOD_WORDS) ?? defaultOf('http', 'method'),
        headers: rowsOf(h.headers, keptSecret),
        body: h.body,
        followRedirects: h.followRedirects ?? defaultOf('http', 'followRedirects'),
        statusCodeAssertions: h.statusCodeAssertions.map((a) => ({ key: rowKey(), comparator: a.comparator, target: String(a.target) })),
        headerAssertions: h.headerAssertions.map((a) => ({ key: rowKey(), name: a.key, comparator: a.comparator, target: a.target })),
        bodyAssertions: h.bodyAssertions.map((a) => ({ key: rowKey(), comparator: a.comparator, target: a.target })),
      };
    }
    case 'mcp': {
      const m = stored.monitor;
      return {
        ...common,
        server: m.server,
        transport: wordOf(MCPTransportSchema, m.transport, TRANSPORT_WORDS) ?? defaultOf('mcp', 'transport'),
        headers: rowsOf(m.headers, keptSecret),
        args: m.args.join('\n'),
        env: rowsOf(m.env, keptSecret),
        cwd: m.cwd,
        allowCommand: m.allowCommand ?? defaultOf('mcp', 'allowCommand'),
      };
    }
    case 'ping': {
      const p = stored.monitor;
      return {
        ...common,
        host: p.host,
        count: String(p.count ?? defaultOf('ping', 'count')),
        packetTimeout: p.packetTimeout ? String(durationMs(p.packetTimeout)) : String(defaultOf('ping', 'packetTimeout')),
        degradedLoss: String(p.degradedLoss ?? defaultOf('ping', 'degradedLoss')),
      };
    }
    case 'websocket': {
      const w = stored.monitor;
      return { ...common, url: w.url, headers: rowsOf(w.headers, keptSecret), subprotocol: w.subprotocol, sendText: w.sendText, expectText: w.expectText };
    }
    case 'certificate': {
      const c = stored.monitor;
      return {
        ...common,
        ...splitTarget(c.uri),
        serverName: c.serverName,
        minDaysLeft: String(c.minDaysLeft ?? defaultOf('certificate', 'minDaysLeft')),
      };
    }
    case 'dns': {
      const d = stored.monitor;
      return {
        ...common,
        host: d.host,
        recordType: wordOf(DNSRecordTypeSchema, d.recordType, RECORD_TYPE_WORDS) ?? defaultOf('dns', 'recordType'),
        resolver: d.resolver,
        contains: d.contains.join('\n'),
        equals: d.equals.join('\n'),
        minAnswers: String(d.minAnswers ?? defaultOf('dns', 'minAnswers')),
        maxAnswers: String(d.maxAnswers ?? defaultOf('dns', 'maxAnswers')),
      };
    }
    case 'heartbeat': {
      const h = stored.monitor;
      return {
        ...common,
        ...scheduleOf(h.schedule),
        timezone: h.timezone || defaultOf('heartbeat', 'timezone'),
        ...graceOf(h.grace ? durationMs(h.grace) : defaultOf('heartbeat', 'grace')),
      };
    }
  }
}

/**
 * A list whose order means nothing (regions, private locations) put back in its stored order
 * when it holds the stored values again, so ticking a box off and on is no change to save.
 */
export function keptOrder(next: string[], stored: readonly string[]): string[] {
  const same = next.length === stored.length && stored.every((value) => next.includes(value));
  return same ? [...stored] : next;
}

// ---- from the form to the wire ------------------------------------------------------------------

export type {
  CertificateMonitorInit,
  GrpcMonitorInit,
  HeartbeatMonitorInit,
  HttpMonitorInit,
  McpMonitorInit,
  TcpMonitorInit,
  WebSocketMonitorInit,
  PingMonitorInit,
};

export type { WireMonitor, WireUpdate };

/** The fields every type has, typed once (the three messages declare them alike). */
type CommonInit = Pick<
  TcpMonitorInit,
  | 'name'
  | 'description'
  | 'active'
  | 'periodicity'
  | 'regions'
  | 'privateLocations'
  | 'timeout'
  | 'degraded'
  | 'remindEvery'
  | 'retry'
  | 'openTelemetry'
  | 'tags'
  | 'group'
>;

const statusCodeRule = `must be a status code from ${MONITOR_LIMITS.statusCode.min} to ${MONITOR_LIMITS.statusCode.max}`;

/** A number the person typed; undefined when left empty. */
const typedNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

/**
 * The monitor as monitor.v1 carries it, with the violations of values the wire cannot carry at
 * all (a fraction where an integer goes), named as the service would name them.
 */
export function wireOf(type: MonitorType, form: MonitorFormValues): { wire: WireMonitor; local: FieldViolation[] } {
  const local: FieldViolation[] = [];
  const whole = (field: string, text: string, rule: string): number | undefined => {
    const value = typedNumber(text);
    if (value !== undefined && !Number.isInteger(value)) local.push({ field, rule });
    return value;
  };
  const timeoutSeconds = typedNumber(form.timeoutSeconds);
  const degraded = whole('monitor.degraded', form.degradedMs, 'must be whole milliseconds');
  const remindMinutes = whole('monitor.remindEvery', form.remindMinutes, 'must be whole minutes');
  const otlpHeaders = entriesOf(form.otlpHeaders, REDACTED);
  const otlpEndpoint = form.otlpEndpoint.trim();
  const common: CommonInit = {
    name: form.name,
    description: form.description,
    active: form.active,
    periodicity: form.periodicity,
    regions: form.regions,
    privateLocations: form.privateLocations,
    timeout: timeoutSeconds === undefined || Number.isNaN(timeoutSeconds) ? undefined : durationFromMs(Math.round(timeoutSeconds * 1000)),
    degraded: degraded === undefined || Number.isNaN(degraded) ? undefined : durationFromMs(degraded),
    remindEvery: remindMinutes === undefined || Number.isNaN(remindMinutes) ? undefined : durationFromMs(remindMinutes * 60_000),
    retry: whole('monitor.retry', form.retry, 'must be a whole number'),
    openTelemetry: otlpEndpoint || Object.keys(otlpHeaders).length > 0 ? { endpoint: otlpEndpoint, headers: otlpHeaders } : undefined,
    tags: form.tags,
    group: form.group.trim(),
  };
  const uri = joinTarget(form.host, form.port);
  switch (type) {
    case 'tcp':
      return { wire: { type, monitor: { ...common, uri } }, local };
    case 'grpc':
      return {
        wire: {
          type,
          monitor: {
            ...common,
            uri,
            service: form.service.trim(),
            tls: wireEnum<TLSMode>(TLSModeSchema, form.tls),
            metadata: entriesOf(form.metadata, REDACTED),
          },
        },
        local,
      };
    case 'http': {
      const monitor: HttpMonitorInit = {
        ...common,
        url: form.url.trim(),
        method: wireEnum<HTTPMethod>(HTTPMethodSchema, form.method),
        headers: entriesOf(form.headers, REDACTED),
        body: form.body,
        followRedirects: form.followRedirects,
        statusCodeAssertions: form.statusCodeAssertions.map((a, i) => ({
          comparator: a.comparator,
          target: whole(`monitor.statusCodeAssertions.${i}.target`, a.target, statusCodeRule) ?? 0,
        })),
        headerAssertions: form.headerAssertions.map((a) => ({
          key: a.name.trim(),
          comparator: a.comparator,
          target: takesNoTarget(a.comparator) ? '' : a.target,
        })),
        bodyAssertions: form.bodyAssertions.map((a) => ({ comparator: a.comparator, target: takesNoTarget(a.comparator) ? '' : a.target })),
      };
      return { wire: { type, monitor }, local };
    }
    case 'mcp': {
      // The fields of the other transport are not sent: the service refuses them.
      const transport = form.transport;
      const monitor: McpMonitorInit = {
        ...common,
        server: form.server.trim(),
        transport: wireEnum<MCPTransport>(MCPTransportSchema, transport),
        ...(transport === 'http'
          ? { headers: entriesOf(form.headers, REDACTED) }
          : { args: argsOf(form.args), env: entriesOf(form.env, REDACTED), cwd: form.cwd.trim(), allowCommand: form.allowCommand }),
      };
      return { wire: { type, monitor }, local };
    }
    case 'ping': {
      const packetTimeout = whole('monitor.packetTimeout', form.packetTimeout, 'must be whole milliseconds');
      const monitor: PingMonitorInit = {
        ...common,
        host: form.host.trim(),
        count: whole('monitor.count', form.count, 'must be a whole number'),
        packetTimeout: packetTimeout === undefined || Number.isNaN(packetTimeout) ? undefined : durationFromMs(packetTimeout),
        degradedLoss: whole('monitor.degradedLoss', form.degradedLoss, 'must be a whole number'),
      };
      return { wire: { type, monitor }, local };
    }
    case 'websocket': {
      const monitor: WebSocketMonitorInit = {
        ...common,
        url: form.url.trim(),
        headers: entriesOf(form.headers, REDACTED),
        subprotocol: form.subprotocol.trim(),
        // Sent and compared as typed: spaces may be part of the message.
        sendText: form.sendText,
        expectText: form.expectText,
      };
      return { wire: { type, monitor }, local };
    }
    case 'certificate': {
      const monitor: CertificateMonitorInit = {
        ...common,
        uri,
        serverName: form.serverName.trim(),
        minDaysLeft: whole('monitor.minDaysLeft', form.minDaysLeft, 'must be a whole number of days'),
      };
      return { wire: { type, monitor }, local };
    }
    case 'dns': {
      const monitor: DnsMonitorInit = {
        ...common,
        host: form.host.trim(),
        recordType: wireEnum<DNSRecordType>(DNSRecordTypeSchema, form.recordType),
        resolver: form.resolver.trim(),
        // One value per line, as typed: a TXT value's spaces count.
        contains: argsOf(form.contains),
        equals: argsOf(form.equals),
        minAnswers: whole('monitor.minAnswers', form.minAnswers, 'must be a whole number'),
        maxAnswers: whole('monitor.maxAnswers', form.maxAnswers, 'must be a whole number'),
      };
      return { wire: { type, monitor }, local };
    }
    case 'heartbeat': {
      // A heartbeat runs no check: it has no timeout, degraded threshold, retries or private
      // locations (the service refuses them), and a period takes no time zone.
      const { timeout: _t, degraded: _d, retry: _r, privateLocations: _p, ...rest } = common;
      const period = whole('monitor.schedule', form.periodCount, 'the period must be a whole number of its unit');
      const grace = whole('monitor.grace', form.graceCount, 'must be a whole number of its unit');
      const monitor: HeartbeatMonitorInit = {
        ...rest,
        schedule: form.scheduleKind === 'cron' ? form.cron.trim() : period === undefined ? '' : `${period}${form.periodUnit}`,
        timezone: form.scheduleKind === 'cron' ? form.timezone.trim() : '',
        grace: grace === undefined || Number.isNaN(grace) ? undefined : durationFromMs(grace * DURATION_UNITS[form.graceUnit]),
      };
      return { wire: { type, monitor }, local };
    }
  }
}

/** The monitor of a create: switches left at the service's default are not sent, so the service fills them. */
export function createOf(type: MonitorType, form: MonitorFormValues): { wire: WireMonitor; local: FieldViolation[] } {
  const { wire, local } = wireOf(type, form);
  if (wire.monitor.active === true) wire.monitor.active = undefined;
  if (wire.type === 'http' && wire.monitor.followRedirects === defaultOf('http', 'followRedirects')) wire.monitor.followRedirects = undefined;
  if (wire.type === 'mcp' && wire.monitor.allowCommand === defaultOf('mcp', 'allowCommand')) wire.monitor.allowCommand = undefined;
  return { wire, local };
}

/** A field of a monitor message, by its name in the generated code. */
type WireField = Exclude<
  | keyof TcpMonitorInit
  | keyof GrpcMonitorInit
  | keyof HttpMonitorInit
  | keyof McpMonitorInit
  | keyof PingMonitorInit
  | keyof WebSocketMonitorInit
  | keyof CertificateMonitorInit
  | keyof DnsMonitorInit
  | keyof HeartbeatMonitorInit,
  '$typeName'
>;

/** The wire field each field of the form is sent in. */
const SENT_IN = {
  name: 'name',
  description: 'description',
  tags: 'tags',
  group: 'group',
  active: 'active',
  host: 'uri',
  port: 'uri',
  service: 'service',
  tls: 'tls',
  metadata: 'metadata',
  url: 'url',
  method: 'method',
  headers: 'headers',
  body: 'body',
  followRedirects: 'followRedirects',
  server: 'server',
  transport: 'transport',
  args: 'args',
  env: 'env',
  cwd: 'cwd',
  allowCommand: 'allowCommand',
  subprotocol: 'subprotocol',
  sendText: 'sendText',
  expectText: 'expectText',
  serverName: 'serverName',
  minDaysLeft: 'minDaysLeft',
  recordType: 'recordType',
  resolver: 'resolver',
  contains: 'contains',
  equals: 'equals',
  minAnswers: 'minAnswers',
  maxAnswers: 'maxAnswers',
  count: 'count',
  packetTimeout: 'packetTimeout',
  degradedLoss: 'degradedLoss',
  scheduleKind: 'schedule',
  periodCount: 'schedule',
  periodUnit: 'schedule',
  cron: 'schedule',
  timezone: 'timezone',
  graceCount: 'grace',
  graceUnit: 'grace',
  statusCodeAssertions: 'statusCodeAssertions',
  headerAssertions: 'headerAssertions',
  bodyAssertions: 'bodyAssertions',
  periodicity: 'periodicity',
  regions: 'regions',
  privateLocations: 'privateLocations',
  timeoutSeconds: 'timeout',
  degradedMs: 'degraded',
  remindMinutes: 'remindEvery',
  retry: 'retry',
  otlpEndpoint: 'openTelemetry',
  otlpHeaders: 'openTelemetry',
} as const satisfies Record<keyof MonitorFormValues, WireField>;

/** Where a type sends a field of the form in a wire field of another name: a DNS monitor's name to look up, and the host a ping monitor pings, are `host` itself, not the host of a `uri`. */
const SENT_IN_OF: Partial<Record<MonitorType, Partial<Record<keyof MonitorFormValues, WireField>>>> = { dns: { host: 'host' }, ping: { host: 'host' } };

const SCHEMAS = {
  tcp: TCPMonitorSchema,
  grpc: GRPCMonitorSchema,
  http: HTTPMonitorSchema,
  mcp: MCPMonitorSchema,
  ping: PingMonitorSchema,
  websocket: WebSocketMonitorSchema,
  certificate: CertificateMonitorSchema,
  dns: DNSMonitorSchema,
  heartbeat: HeartbeatMonitorSchema,
} as const;

/**
 * Which fields of the form were changed, as react-hook-form marks them (`formState.dirtyFields`:
 * true, or for a list or a row an array or object of marks).
 */
export type ChangedFields = Partial<Record<keyof MonitorFormValues, unknown>>;

/** Whether a mark of `dirtyFields` says something under it changed. */
function marked(mark: unknown): boolean {
  if (mark === true) return true;
  if (Array.isArray(mark)) return mark.some(marked);
  return typeof mark === 'object' && mark !== null && Object.values(mark).some(marked);
}

/**
 * The update of a stored monitor: the fields of the form that changed, as the wire fields they
 * are sent in, each named in the mask by its proto name (as the schema declares it). A field
 * emptied there returns to the service's default, and a hidden credential sent back as
 * [redacted] keeps its value. An MCP monitor moved to another transport also empties the fields
 * of the one it left (named in the mask, absent from the message), which the service would
 * otherwise refuse as given for the wrong transport. Undefined when nothing changed.
 */
export function updateOf(type: MonitorType, form: MonitorFormValues, changed: ChangedFields): { update: WireUpdate | undefined; local: FieldViolation[] } {
  const { wire, local } = wireOf(type, form);
  // The type's fields by their name in the generated code, each with its proto name.
  const declared: Readonly<Record<string, { name: string } | undefined>> = SCHEMAS[type].field;
  const paths = new Map<WireField, string>();
  // In the form's order, so the same changes make the same mask however they were made.
  for (const name of Object.keys(SENT_IN) as (keyof MonitorFormValues)[]) {
    const field = SENT_IN_OF[type]?.[name] ?? SENT_IN[name];
    const proto = declared[field]?.name;
    if (proto !== undefined && marked(changed[name])) paths.set(field, proto);
  }
  if (type === 'mcp' && marked(changed.transport)) {
    const left = (Object.keys(MCP_TRANSPORT_FIELDS) as McpTransport[]).filter((t) => t !== form.transport);
    for (const field of left.flatMap((t) => MCP_TRANSPORT_FIELDS[t])) paths.set(field, declared[field]!.name);
  }
  // A heartbeat's time zone goes with its schedule: a period takes none (it returns to UTC).
  if (type === 'heartbeat' && paths.has('schedule')) paths.set('timezone', declared.timezone!.name);
  if (paths.size === 0) return { update: undefined, local };
  const fields = new Set(paths.keys());
  const updateMask = { paths: [...paths.values()] };
  // The message keeps its type: it is the wire message of `type` with fewer fields set.
  const monitor = Object.fromEntries(Object.entries(wire.monitor).filter(([field]) => fields.has(field as WireField)));
  return { update: { ...wire, monitor, updateMask } as WireUpdate, local };
}
