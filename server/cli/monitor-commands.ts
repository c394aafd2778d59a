import { create } from '@bufbuild/protobuf';
import { type Duration, durationFromMs, durationMs, FieldMaskSchema, timestampDate } from '@bufbuild/protobuf/wkt';
import {
  type GRPCMonitor,
  GRPCMonitorSchema,
  HTTPMethod,
  type HTTPMonitor,
  HTTPMonitorSchema,
  MonitorStatus,
  NumberComparator,
  Periodicity,
  StringComparator,
  SummaryWindow,
  type TCPMonitor,
  TCPMonitorSchema,
  TLSMode,
  type CheckResult as CheckResultMessage,
  GetMonitorStatusResponseSchema,
  GetMonitorSummaryResponseSchema,
  ListMonitorsResponseSchema,
  type StatusdeskClient,
} from '../../client/index.ts';
import { httpMethods, tlsModes } from '../domain/monitors/monitor-rules.ts';
import { frequencies } from '../domain/plans.ts';
import { address, client, type Command, connection, count, list, oneOf, type Options, pairs, parseBoolean, printJsonMessage, rejectFlags, str, timeText, type Values } from './flags.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk monitors ...`: the monitor API through the client library, as any program would
 * use it. The key comes from SERVICE_API_KEY, the address from --url or SERVICE_API_URL.
 */

const scheduling = {
  name: { type: 'string' },
  description: { type: 'string' },
  active: { type: 'string' },
  frequency: { type: 'string' },
  regions: { type: 'string' },
  timeout: { type: 'string' },
  degraded: { type: 'string' },
  retry: { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  'otlp-header': { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
} as const satisfies Options;

const tcpFlags = { target: { type: 'string' } } as const satisfies Options;
const grpcFlags = {
  target: { type: 'string' },
  service: { type: 'string' },
  tls: { type: 'string' },
  metadata: { type: 'string', multiple: true },
} as const satisfies Options;
const httpFlags = {
  url: { type: 'string' },
  method: { type: 'string' },
  header: { type: 'string', multiple: true },
  body: { type: 'string' },
  'follow-redirects': { type: 'string' },
  'assert-status': { type: 'string', multiple: true },
  'assert-header': { type: 'string', multiple: true },
  'assert-body-contains': { type: 'string', multiple: true },
} as const satisfies Options;

const schedulingUsage =
  '[--description D] [--active true|false] [--frequency 30s|1m|5m|10m|30m|1h] [--regions a,b] [--timeout 45s] [--degraded 2s] [--retry N] [--otlp-endpoint URL] [--otlp-header k=v]... [--tag T]...';

/** `45s`, `500ms`, `2m` as milliseconds. */
function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value.trim());
  if (!match) throw new UsageError(`--${flag} must be a duration like 500ms, 45s or 2m, got "${value}"`);
  return Math.round(Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm']);
}

const periodicityOf = (value: string) => Periodicity[`PERIODICITY_${oneOf('frequency', value, frequencies).toUpperCase()}` as keyof typeof Periodicity];
const tlsOf = (value: string) => TLSMode[`TLS_MODE_${oneOf('tls', value, tlsModes).toUpperCase().replace('-', '_')}` as keyof typeof TLSMode];
const methodOf = (value: string) => HTTPMethod[`HTTP_METHOD_${oneOf('method', value.toUpperCase(), httpMethods)}` as keyof typeof HTTPMethod];

const NUMBER_OPERATORS: [string, NumberComparator][] = [
  ['>=', NumberComparator.GREATER_THAN_OR_EQUAL],
  ['<=', NumberComparator.LESS_THAN_OR_EQUAL],
  ['!=', NumberComparator.NOT_EQUAL],
  ['>', NumberComparator.GREATER_THAN],
  ['<', NumberComparator.LESS_THAN],
  ['', NumberComparator.EQUAL],
];

/** `200`, `>=200`, `<400`, `!=503`. */
function statusAssertion(value: string) {
  const [operator, comparator] = NUMBER_OPERATORS.find(([op]) => value.startsWith(op))!;
  const target = value.slice(operator.length);
  if (!/^\d{3}$/.test(target)) throw new UsageError(`--assert-status takes a status code with an optional >=, <=, >, < or != before it, got "${value}"`);
  return { comparator, target: Number(target) };
}

/** The fields every monitor type shares, from the flags that were given. */
function schedulingFields(values: Values) {
  const fields: Record<string, unknown> = {};
  const name = str(values, 'name');
  if (name !== undefined) fields.name = name;
  const description = str(values, 'description');
  if (description !== undefined) fields.description = description;
  const active = str(values, 'active');
  if (active !== undefined) fields.active = parseBoolean('active', active);
  const frequency = str(values, 'frequency');
  if (frequency !== undefined) fields.periodicity = periodicityOf(frequency);
  const regions = str(values, 'regions');
  if (regions !== undefined) fields.regions = regions.split(',').map((r) => r.trim()).filter(Boolean);
  const timeout = str(values, 'timeout');
  if (timeout !== undefined) fields.timeout = durationFromMs(parseDuration('timeout', timeout));
  const degraded = str(values, 'degraded');
  if (degraded !== undefined) fields.degraded = durationFromMs(parseDuration('degraded', degraded));
  const retry = str(values, 'retry');
  if (retry !== undefined) {
    if (!/^-?\d+$/.test(retry)) throw new UsageError(`--retry must be a whole number, got "${retry}"`);
    fields.retry = Number(retry);
  }
  const otlpEndpoint = str(values, 'otlp-endpoint');
  const otlpHeaders = list(values, 'otlp-header');
  if (otlpEndpoint === undefined && otlpHeaders.length > 0) throw new UsageError('--otlp-header needs --otlp-endpoint: the headers belong to that endpoint');
  if (otlpEndpoint !== undefined) fields.openTelemetry = { endpoint: otlpEndpoint, headers: pairs('otlp-header', otlpHeaders) };
  if (list(values, 'tag').length > 0) fields.tags = list(values, 'tag');
  return fields;
}

const typeFields = {
  tcp(values: Values): Record<string, unknown> {
    const target = str(values, 'target');
    return target === undefined ? {} : { uri: target };
  },
  grpc(values: Values): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    const target = str(values, 'target');
    if (target !== undefined) fields.uri = target;
    const service = str(values, 'service');
    if (service !== undefined) fields.service = service;
    const tls = str(values, 'tls');
    if (tls !== undefined) fields.tls = tlsOf(tls);
    if (list(values, 'metadata').length > 0) fields.metadata = pairs('metadata', list(values, 'metadata'));
    return fields;
  },
  http(values: Values): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    const url = str(values, 'url');
    if (url !== undefined) fields.url = url;
    const method = str(values, 'method');
    if (method !== undefined) fields.method = methodOf(method);
    if (list(values, 'header').length > 0) fields.headers = pairs('header', list(values, 'header'));
    const body = str(values, 'body');
    if (body !== undefined) fields.body = body;
    const follow = str(values, 'follow-redirects');
    if (follow !== undefined) fields.followRedirects = parseBoolean('follow-redirects', follow);
    if (list(values, 'assert-status').length > 0) fields.statusCodeAssertions = list(values, 'assert-status').map(statusAssertion);
    if (list(values, 'assert-header').length > 0) {
      fields.headerAssertions = Object.entries(pairs('assert-header', list(values, 'assert-header'))).map(([key, target]) => ({
        key,
        comparator: StringComparator.EQUAL,
        target,
      }));
    }
    if (list(values, 'assert-body-contains').length > 0) {
      fields.bodyAssertions = list(values, 'assert-body-contains').map((target) => ({ comparator: StringComparator.CONTAINS, target }));
    }
    return fields;
  },
};

type AnyMonitor = TCPMonitor | GRPCMonitor | HTTPMonitor;
const schemas = { tcp: TCPMonitorSchema, grpc: GRPCMonitorSchema, http: HTTPMonitorSchema };
const flagsByType = { tcp: tcpFlags, grpc: grpcFlags, http: httpFlags };
type MonitorKind = keyof typeof schemas;

const durationText = (d: Duration | undefined) => (d ? `${durationMs(d)} ms` : '-');
const periodicityText = (p: Periodicity) => Periodicity[p]?.replace('PERIODICITY_', '').toLowerCase() ?? '-';

function targetOf(kind: MonitorKind, monitor: AnyMonitor): string {
  return kind === 'http' ? (monitor as HTTPMonitor).url : (monitor as TCPMonitor | GRPCMonitor).uri;
}

function printMonitor(kind: MonitorKind, monitor: AnyMonitor): void {
  const rows: [string, string][] = [
    ['id', monitor.id],
    ['type', kind],
    ['name', monitor.name],
    ['target', targetOf(kind, monitor)],
    ['active', String(monitor.active ?? true)],
    ['frequency', periodicityText(monitor.periodicity)],
    ['regions', monitor.regions.join(',')],
    ['timeout', durationText(monitor.timeout)],
    ['degraded', durationText(monitor.degraded)],
    ['retry', String(monitor.retry ?? '-')],
  ];
  if (kind === 'grpc') {
    const grpc = monitor as GRPCMonitor;
    rows.push(['service', grpc.service || '(overall health)'], ['tls', TLSMode[grpc.tls] ?? '-'], ['metadata', Object.keys(grpc.metadata).join(',') || '-']);
  }
  if (kind === 'http') {
    const http = monitor as HTTPMonitor;
    rows.push(['method', HTTPMethod[http.method] ?? '-'], ['assertions', String(http.statusCodeAssertions.length + http.headerAssertions.length + http.bodyAssertions.length)]);
  }
  rows.push(['otlp endpoint', monitor.openTelemetry?.endpoint ?? '-'], ['tags', monitor.tags.join(',') || '-'], ['created', timeText(monitor.createdAt)], ['updated', timeText(monitor.updatedAt)]);
  printTable(['FIELD', 'VALUE'], rows);
}

async function fetchMonitor(api: StatusdeskClient, id: string): Promise<{ kind: MonitorKind; monitor: AnyMonitor }> {
  const { monitor } = await api.monitors.getMonitor({ id });
  switch (monitor.case) {
    case 'tcpMonitor':
      return { kind: 'tcp', monitor: monitor.value };
    case 'grpcMonitor':
      return { kind: 'grpc', monitor: monitor.value };
    case 'httpMonitor':
      return { kind: 'http', monitor: monitor.value };
    default:
      throw new Error(`monitor ${id} has a type this command does not know`);
  }
}

const monitorsList: Command = {
  usage: 'monitors list [--limit N] [--offset N] [--url URL] [--json]',
  options: { ...connection, limit: { type: 'string' }, offset: { type: 'string' } },
  async run(values) {
    const response = await client(values).monitors.listMonitors({
      limit: count('limit', str(values, 'limit')),
      offset: count('offset', str(values, 'offset')) ?? 0,
    });
    if (values.json) return printJsonMessage(ListMonitorsResponseSchema, response);
    const all: [MonitorKind, AnyMonitor][] = [
      ...response.httpMonitors.map((m) => ['http', m] as [MonitorKind, AnyMonitor]),
      ...response.tcpMonitors.map((m) => ['tcp', m] as [MonitorKind, AnyMonitor]),
      ...response.grpcMonitors.map((m) => ['grpc', m] as [MonitorKind, AnyMonitor]),
    ].sort(([, a], [, b]) => Number(b.id) - Number(a.id));
    printTable(
      ['ID', 'TYPE', 'NAME', 'TARGET', 'FREQUENCY', 'REGIONS', 'ACTIVE'],
      all.map(([kind, m]) => [m.id, kind, m.name, targetOf(kind, m), periodicityText(m.periodicity), m.regions.join(','), String(m.active ?? true)]),
    );
    process.stderr.write(`${all.length} of ${response.totalSize} monitors\n`);
  },
};

const monitorsGet: Command = {
  usage: 'monitors get ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { kind, monitor } = await fetchMonitor(client(values), id!);
    if (values.json) return printJsonMessage(schemas[kind] as typeof TCPMonitorSchema, monitor as TCPMonitor);
    printMonitor(kind, monitor);
  },
};

const monitorsCreate: Command = {
  usage: `monitors create tcp|grpc|http --name N (tcp, grpc: --target host:port) (grpc: [--service S] [--tls verify|skip-verify|plaintext] [--metadata k=v]...) (http: --url U, the service then from --api-url or SERVICE_API_URL; [--method M] [--header k=v]... [--body B] [--follow-redirects true|false] [--assert-status 200]... [--assert-header k=v]... [--assert-body-contains T]...) ${schedulingUsage} [--url URL] [--json]`,
  options: { ...connection, ...scheduling, ...tcpFlags, ...grpcFlags, ...httpFlags },
  positionals: 1,
  async run(values, [type]) {
    if (!['tcp', 'grpc', 'http'].includes(type!)) throw new UsageError(`the monitor type must be tcp, grpc or http, got "${type}"`);
    const kind = type as MonitorKind;
    rejectForeignFlags(kind, values, 'create');
    const fields = { ...schedulingFields(values), ...typeFields[kind](values) };
    const monitor = await createOf(client(values, kind !== 'http'), kind, fields);
    if (values.json) return printJsonMessage(schemas[kind] as typeof TCPMonitorSchema, monitor as TCPMonitor);
    process.stdout.write(`${monitor.id}\n`);
    process.stderr.write(`Created ${kind} monitor ${monitor.id} (${monitor.name}).\n`);
  },
};

/**
 * Flags of another monitor type are mistakes, not options to ignore. In `update`, `--url` is only
 * the HTTP monitor's URL, so it is foreign to the other types.
 */
function rejectForeignFlags(kind: MonitorKind, values: Values, command: 'create' | 'update'): void {
  const connectionFlags = command === 'update' ? ['api-url', 'json', 'clear'] : Object.keys(connection);
  rejectFlags(values, [...connectionFlags, ...Object.keys(scheduling), ...Object.keys(flagsByType[kind])], `${kind} monitors`);
}

async function createOf(api: StatusdeskClient, kind: MonitorKind, fields: Record<string, unknown>): Promise<AnyMonitor> {
  switch (kind) {
    case 'tcp':
      return (await api.monitors.createTCPMonitor({ monitor: create(TCPMonitorSchema, fields) })).monitor!;
    case 'grpc':
      return (await api.monitors.createGRPCMonitor({ monitor: create(GRPCMonitorSchema, fields) })).monitor!;
    case 'http':
      return (await api.monitors.createHTTPMonitor({ monitor: create(HTTPMonitorSchema, fields) })).monitor!;
  }
}

const monitorsUpdate: Command = {
  usage: `monitors update ID [the flags of create for the monitor's type] [--clear FIELD]... [--api-url URL] [--json]`,
  options: { ...connection, ...scheduling, ...tcpFlags, ...grpcFlags, ...httpFlags, clear: { type: 'string', multiple: true } },
  positionals: 1,
  async run(values, [id]) {
    const api = client(values, false);
    const { kind, monitor: stored } = await fetchMonitor(api, id!);
    rejectForeignFlags(kind, values, 'update');
    const fields = { ...schedulingFields(values), ...typeFields[kind](values) };
    // A new endpoint without --otlp-header keeps the stored headers.
    const otlp = fields.openTelemetry as { headers: Record<string, string> } | undefined;
    if (otlp && Object.keys(otlp.headers).length === 0) otlp.headers = { ...stored.openTelemetry?.headers };
    const cleared = list(values, 'clear');
    // Named fields without a value return to their defaults; the rest change only if given.
    const updateMask = cleared.length > 0 ? create(FieldMaskSchema, { paths: [...Object.keys(fields), ...cleared] }) : undefined;
    if (Object.keys(fields).length === 0 && !updateMask) throw new UsageError('nothing to change: give the flags of the fields to change, or --clear FIELD');
    const request = { id: id!, updateMask };
    const monitor =
      kind === 'tcp'
        ? (await api.monitors.updateTCPMonitor({ ...request, monitor: create(TCPMonitorSchema, fields) })).monitor!
        : kind === 'grpc'
          ? (await api.monitors.updateGRPCMonitor({ ...request, monitor: create(GRPCMonitorSchema, fields) })).monitor!
          : (await api.monitors.updateHTTPMonitor({ ...request, monitor: create(HTTPMonitorSchema, fields) })).monitor!;
    if (values.json) return printJsonMessage(schemas[kind] as typeof TCPMonitorSchema, monitor as TCPMonitor);
    printMonitor(kind, monitor);
  },
};

const monitorsDelete: Command = {
  usage: 'monitors delete ID [--url URL]',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).monitors.deleteMonitor({ id: id! });
    process.stderr.write(`Deleted monitor ${id}.\n`);
  },
};

/** A check result as the record every surface shows: phases that did not happen are null. */
function checkRecord(r: CheckResultMessage) {
  const phase = (v: number | undefined) => v ?? null;
  const t = r.timing;
  return {
    monitorId: r.monitorId,
    region: r.region,
    runner: r.runner,
    startedAt: r.startedAt ? timestampDate(r.startedAt).toISOString() : null,
    result: r.result,
    latencyMs: r.latencyMs,
    timing: { dns: phase(t?.dns), connect: phase(t?.connect), tls: phase(t?.tls), ttfb: phase(t?.ttfb), transfer: phase(t?.transfer), total: phase(t?.total) },
    attempts: r.attempts,
    message: r.message,
    grpcStatus: r.grpcStatus || null,
    statusCode: r.statusCode ?? null,
    url: r.url || null,
    responseHeaders: r.responseHeaders,
    assertionResults: r.assertionResults.map(({ assertion, passed, actual }) => ({ assertion, passed, actual })),
  };
}

const monitorsTrigger: Command = {
  usage: 'monitors trigger ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).monitors.triggerMonitor({ id: id! });
    if (values.json) return printJson({ results: response.results.map(checkRecord) });
    printTable(
      ['REGION', 'RESULT', 'LATENCY', 'ATTEMPTS', 'MESSAGE'],
      response.results.map((r) => [r.region, r.result, `${r.latencyMs} ms`, String(r.attempts), r.message]),
    );
  },
};

const healthText = (status: MonitorStatus) => (status === MonitorStatus.UNSPECIFIED ? 'no check yet' : (MonitorStatus[status] ?? '-').toLowerCase());

const monitorsStatus: Command = {
  usage: 'monitors status ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).monitors.getMonitorStatus({ id: id! });
    if (values.json) return printJsonMessage(GetMonitorStatusResponseSchema, response);
    const latest = response.regions.map((r) => timeText(r.lastCheckedAt)).filter((t) => t !== '-').sort().at(-1) ?? '-';
    printTable(['REGION', 'STATUS', 'LAST CHECK'], [
      ...response.regions.map((r) => [r.region, healthText(r.status), timeText(r.lastCheckedAt)]),
      ['overall', healthText(response.overall), latest],
    ]);
  },
};

const windows = ['1d', '7d', '14d'] as const;

const monitorsSummary: Command = {
  usage: 'monitors summary ID [--window 1d|7d|14d] [--url URL] [--json]',
  options: { ...connection, window: { type: 'string' } },
  positionals: 1,
  async run(values, [id]) {
    const window = oneOf('window', str(values, 'window') ?? '1d', windows);
    const response = await client(values).monitors.getMonitorSummary({
      id: id!,
      window: SummaryWindow[`SUMMARY_WINDOW_${window.toUpperCase()}` as keyof typeof SummaryWindow],
    });
    if (values.json) return printJsonMessage(GetMonitorSummaryResponseSchema, response);
    const l = response.latency;
    printTable(
      ['WINDOW', 'SUCCESS', 'DEGRADED', 'ERROR', 'P50', 'P75', 'P90', 'P95', 'P99', 'LAST PING'],
      [
        [
          window,
          String(response.successCount),
          String(response.degradedCount),
          String(response.errorCount),
          ...(l ? [l.p50, l.p75, l.p90, l.p95, l.p99].map((v) => `${v} ms`) : ['-', '-', '-', '-', '-']),
          response.lastPingAt ? timeText(response.lastPingAt) : 'no check yet',
        ],
      ],
    );
    for (const gap of response.gaps) process.stdout.write(`No checks ran from ${timeText(gap.startedAt)} to ${timeText(gap.endedAt)}.\n`);
  },
};

const monitorsLogs: Command = {
  usage: 'monitors logs ID [--window 1d|7d|14d] [--limit N] [--offset N] [--url URL] [--json]   (HTTP monitors)',
  options: { ...connection, window: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' } },
  positionals: 1,
  async run(values, [id]) {
    const window = oneOf('window', str(values, 'window') ?? '1d', windows);
    const response = await client(values).monitors.listResponseLogs({
      id: id!,
      window: SummaryWindow[`SUMMARY_WINDOW_${window.toUpperCase()}` as keyof typeof SummaryWindow],
      limit: count('limit', str(values, 'limit')),
      offset: count('offset', str(values, 'offset')) ?? 0,
    });
    if (values.json) return printJson({ results: response.results.map(checkRecord) });
    printTable(
      ['STARTED', 'REGION', 'RESULT', 'STATUS', 'LATENCY', 'MESSAGE'],
      response.results.map((r) => [timeText(r.startedAt), r.region, r.result, r.statusCode === undefined ? '-' : String(r.statusCode), `${r.latencyMs} ms`, r.message]),
    );
  },
};

export const monitorCommands: Record<string, Command> = {
  'monitors list': monitorsList,
  'monitors get': monitorsGet,
  'monitors create': monitorsCreate,
  'monitors update': monitorsUpdate,
  'monitors delete': monitorsDelete,
  'monitors trigger': monitorsTrigger,
  'monitors status': monitorsStatus,
  'monitors summary': monitorsSummary,
  'monitors logs': monitorsLogs,
};
