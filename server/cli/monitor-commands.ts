import { create, type Message } from '@bufbuild/protobuf';
import { durationFromMs, durationMs, FieldMaskSchema, timestampDate } from '@bufbuild/protobuf/wkt';
import { diffLines } from 'diff';
import { BulkMonitorAction, type MonitorBadges } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { StatusdeskClient } from '../../client/index.ts';
import type { DeclaredField, FieldFlag } from '../domain/declared-fields.ts';
import { inWords, isMonitorType, type MonitorType, monitorTypeNames, specOf, typesByTarget } from '../domain/monitors/monitor-types.ts';
import { frequencies, plans } from '../domain/plans.ts';
import {
  checkWords,
  monitorWords,
  type MonitorWords,
  periodicity,
  statusWords,
  summaryWindow,
  summaryWords,
  typeOfCase,
  wireFields,
  wireOf,
} from '../rpc/monitor-codec.ts';
import { confirmed, yes } from './confirm.ts';
import { fieldFlags } from './field-flags.ts';
import { optionOf, readFlag, usageOf } from './declared-flags.ts';
import {
  address,
  type Command,
  connection,
  count,
  dataDir,
  list,
  note,
  oneOf,
  type Options,
  pairs,
  parseBoolean,
  parseDuration,
  rejectFlags,
  str,
  type Values,
} from './flags.ts';
import { client } from './service-client.ts';
import { withLocalOwner } from './local.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk monitors ...`: the monitor API through the client library, as any program would
 * use it. The key comes from SERVICE_API_KEY, the address from --api-url or SERVICE_API_URL.
 * Every result is shown in the words of the flags (monitor-codec.ts: monitorWords), as a table or,
 * with --json, as that object. The flags of each type's own fields are those its declaration
 * gives (domain/monitors/types/).
 */

/** The types whose monitors get the plan's default regions when none are named, and the others. */
const defaulted = monitorTypeNames.filter((type) => specOf(type).regions.absent === undefined);
const undefaulted = monitorTypeNames.filter((type) => specOf(type).regions.absent !== undefined);

const scheduling = {
  name: { type: 'string', valueName: 'NAME', description: 'what the monitor is called' },
  description: { type: 'string', valueName: 'TEXT', description: 'a longer description' },
  active: { type: 'string', valueName: 'true|false', description: 'false pauses the checks (default true)' },
  frequency: { type: 'string', valueName: frequencies.join('|'), description: 'how often to check (required by create; the plan may allow fewer)' },
  regions: {
    type: 'string',
    valueName: 'a,b',
    // What the domain does with absent regions (monitors.ts: completeConfig; monitor-rules.ts: checkedFrom).
    description: `the regions to check from, comma-separated (left out by create: for ${inWords(defaulted)} the plan's default regions, the first ${plans.hobby.defaultTcpRegionCount} of the catalogue on hobby and ${plans.scale.defaultTcpRegionCount} on paid plans, or none with --private-location; ${inWords(undefaulted)} ${undefaulted.length === 1 ? 'needs' : 'need'} --regions or --private-location)`,
  },
  'private-location': {
    type: 'string',
    multiple: true,
    valueName: 'ID',
    description: "a private location to check from, by id (statusdesk locations list); on update, those given replace the monitor's",
  },
  timeout: { type: 'string', valueName: 'DURATION', description: 'give up after this long, e.g. 45s or 500ms (default 45s)' },
  degraded: { type: 'string', valueName: 'DURATION', description: 'a success slower than this is degraded, e.g. 2s' },
  'remind-every': { type: 'string', valueName: 'DURATION', description: 'while down or degraded, remind the channels this often, e.g. 1h (default: never)' },
  retry: { type: 'string', valueName: 'N', description: 'attempts after a failure before it counts (default 3)' },
  'otlp-endpoint': { type: 'string', valueName: 'URL', description: 'send check metrics to this OTLP/HTTP endpoint' },
  'otlp-header': { type: 'string', multiple: true, valueName: 'k=v', description: 'a header for the OTLP endpoint' },
  tag: { type: 'string', multiple: true, valueName: 'TAG', description: 'a tag' },
  group: { type: 'string', valueName: 'NAME', description: "the group the overview shows the monitor in ('' for none)" },
} as const satisfies Options;

const target = {
  target: {
    type: 'string',
    valueName: 'ADDRESS',
    description: `what is checked: ${typesByTarget()
      .map(([words, types]) => `${words} (${types.join(', ')})`)
      .join(' or ')}`,
  },
} as const satisfies Options;

/** The fields of a type that have flags of their own, with their flags. */
const flaggedFields = (type: MonitorType) =>
  Object.entries(specOf(type).fields()).flatMap(([name, field]) =>
    field.flag ? [{ name, field: field as DeclaredField & { flag: FieldFlag }, flag: field.flag }] : [],
  );

/** The flags of each type: `--target` and those of its own fields. */
const flagsByType = Object.fromEntries(
  monitorTypeNames.map((type) => [type, { ...target, ...Object.fromEntries(flaggedFields(type).map(({ field, flag }) => [flag.name, optionOf(field)])) }]),
) as unknown as Record<MonitorType, Options>;
/** The flags of every type; a flag two types share is the same flag. */
const typeFlags: Options = Object.assign({}, ...Object.values(flagsByType));

/** The service's field paths of a monitor and the flags that give them. */
const monitorFields = fieldFlags({
  ...Object.fromEntries(monitorTypeNames.map((type) => [`monitor.${specOf(type).target}`, '--target'])),
  'monitor.name': '--name',
  'monitor.description': '--description',
  'monitor.active': '--active',
  'monitor.periodicity': '--frequency',
  'monitor.regions': '--regions',
  'monitor.privateLocations': '--private-location',
  'monitor.timeout': '--timeout',
  'monitor.degraded': '--degraded',
  'monitor.remindEvery': '--remind-every',
  'monitor.retry': '--retry',
  'monitor.openTelemetry': '--otlp-endpoint',
  'monitor.openTelemetry.headers': '--otlp-header',
  'monitor.tags': '--tag',
  'monitor.group': '--group',
  ...Object.fromEntries(monitorTypeNames.flatMap((type) => flaggedFields(type).map(({ name, flag }) => [`monitor.${name}`, `--${flag.name}`]))),
  update_mask: '--clear',
});

/** Each type's own flags in the usage line: `(grpc: [--service NAME] [--metadata k=v]...)`. */
const typeUsage = monitorTypeNames
  .flatMap((type) => {
    const { regions } = specOf(type);
    const parts = [...(regions.absent ? ['--regions a,b or --private-location ID,'] : []), ...flaggedFields(type).map(({ field }) => usageOf(field))];
    return parts.length > 0 ? [`(${type}: ${parts.join(' ')})`] : [];
  })
  .join(' ');

const frequencyUsage = `--frequency ${frequencies.join('|')}`;
const optionalScheduling =
  '[--description D] [--active true|false] [--regions a,b] [--private-location ID]... [--timeout 45s] [--degraded 2s] [--remind-every 1h] [--retry N] [--otlp-endpoint URL] [--otlp-header k=v]... [--tag T]... [--group NAME]';

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
  if (frequency !== undefined) fields.periodicity = periodicity.wire(oneOf('frequency', frequency, frequencies));
  const regions = str(values, 'regions');
  if (regions !== undefined)
    fields.regions = regions
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
  if (list(values, 'private-location').length > 0) fields.privateLocations = list(values, 'private-location');
  const timeout = str(values, 'timeout');
  if (timeout !== undefined) fields.timeout = durationFromMs(parseDuration('timeout', timeout));
  const degraded = str(values, 'degraded');
  if (degraded !== undefined) fields.degraded = durationFromMs(parseDuration('degraded', degraded));
  const remindEvery = str(values, 'remind-every');
  if (remindEvery !== undefined) fields.remindEvery = durationFromMs(parseDuration('remind-every', remindEvery));
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
  const group = str(values, 'group');
  if (group !== undefined) fields.group = group;
  return fields;
}

/** The fields of the type's own from the flags that were given, as the wire carries them. */
function typeFields(type: MonitorType, values: Values): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const address = str(values, 'target');
  if (address !== undefined) fields[specOf(type).target] = address;
  for (const { name, field } of flaggedFields(type)) {
    const value = readFlag(field, values);
    if (value !== undefined) fields[name] = value;
  }
  return wireFields(type, fields);
}

type AnyMonitor = Message & { id: string; name: string; openTelemetry?: { headers: Record<string, string> } };
type Shown = MonitorWords;

const durationText = (ms: number | null) => (ms === null ? '-' : `${ms} ms`);
const listText = (values: string[]) => values.join(',') || '-';

function printMonitor(m: Shown): void {
  const rows: [string, string][] = [
    ['id', m.id],
    ['type', m.type],
    ['name', m.name],
    ['target', m.target],
    ['active', String(m.active)],
    ['frequency', m.frequency ?? '-'],
    ['regions', listText(m.regions)],
    ['private locations', listText(m.privateLocations)],
    ['timeout', durationText(m.timeout)],
    ['degraded', durationText(m.degraded)],
    ['remind every', durationText(m.remindEvery)],
    ['retry', String(m.retry ?? '-')],
  ];
  rows.push(...(specOf(m.type).rows?.(m) ?? []));
  rows.push(
    ['otlp endpoint', m.openTelemetry?.endpoint ?? '-'],
    ['tags', listText(m.tags)],
    ['group', m.group || '-'],
    ['created', m.createdAt ?? '-'],
    ['updated', m.updatedAt ?? '-'],
  );
  printTable(['FIELD', 'VALUE'], rows);
}

/** A monitor as --json prints it, or else as a FIELD/VALUE table. */
function showMonitor(values: Values, type: MonitorType, monitor: AnyMonitor): void {
  const shown = monitorWords(type, monitor);
  if (values.json) return printJson(shown);
  printMonitor(shown);
}

async function fetchMonitor(api: StatusdeskClient, id: string): Promise<{ kind: MonitorType; monitor: AnyMonitor }> {
  const { monitor } = await api.monitors.getMonitor({ id });
  const kind = typeOfCase(monitor.case);
  if (!kind) throw new Error(`monitor ${id} has a type this command does not know`);
  return { kind, monitor: monitor.value as AnyMonitor };
}

/**
 * `--url` names the service only where the command has no URL of its own: for an HTTP monitor it
 * could as well be the monitored URL, so it is refused there.
 */
function refuseAmbiguousUrl(kind: MonitorType, values: Values): void {
  if (specOf(kind).targetIsUrl && values.url !== undefined) {
    const { title } = specOf(kind);
    // `an HTTP`, `a WebSocket`: an initialism is read letter by letter.
    const article = /^([AEIOU]|[FHLMNRSX][A-Z])/.test(title) ? 'an' : 'a';
    throw new UsageError(`--url is ambiguous for ${article} ${title} monitor: give its URL as --target, and the service as --api-url`);
  }
}

const paging = {
  limit: { type: 'string', valueName: 'N', description: 'how many to show (default 50)' },
  offset: { type: 'string', valueName: 'N', description: 'how many of the newest to skip' },
} as const satisfies Options;

const monitorsList: Command = {
  usage: 'monitors list [--limit N] [--offset N] [--api-url URL] [--json]',
  summary: 'list the monitors, newest first',
  options: { ...connection, ...paging },
  fields: { limit: '--limit', offset: '--offset' },
  async run(values) {
    const response = await client(values).monitors.listMonitors({
      limit: count('limit', str(values, 'limit')),
      offset: count('offset', str(values, 'offset')) ?? 0,
    });
    const monitors = monitorTypeNames
      .flatMap((type) => (response[wireOf(type).listField] as Message[]).map((m) => monitorWords(type, m)))
      .sort((a, b) => Number(b.id) - Number(a.id));
    if (values.json) return printJson({ monitors, totalSize: response.totalSize });
    printTable(
      ['ID', 'TYPE', 'NAME', 'TARGET', 'FREQUENCY', 'REGIONS', 'ACTIVE'],
      monitors.map((m) => [m.id, m.type, m.name, m.target, m.frequency, m.regions.join(','), String(m.active)]),
    );
    note(`${monitors.length} of ${response.totalSize} monitors`);
  },
};

const monitorsGet: Command = {
  usage: 'monitors get ID [--api-url URL] [--json]',
  summary: "show a monitor's configuration",
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { kind, monitor } = await fetchMonitor(client(values), id!);
    showMonitor(values, kind, monitor);
  },
};

const monitorsCreate: Command = {
  usage: `monitors create ${monitorTypeNames.join('|')} --name N --target T ${frequencyUsage} ${typeUsage} ${optionalScheduling} [--api-url URL] [--json]`,
  summary: `create a ${inWords(monitorTypeNames.map((type) => specOf(type).title)).replace(/ and (?=[^,]*$)/, ' or ')} monitor`,
  options: { ...connection, ...scheduling, ...typeFlags },
  positionals: 1,
  fields: monitorFields,
  async run(values, [type]) {
    if (!isMonitorType(type)) throw new UsageError(`the monitor type must be ${inWords(monitorTypeNames).replace(/ and (?=[^,]*$)/, ' or ')}, got "${type}"`);
    const kind = type;
    refuseAmbiguousUrl(kind, values);
    rejectForeignFlags(kind, values);
    const fields = { ...schedulingFields(values), ...typeFields(kind, values) };
    const { monitor, pingUrl } = await createOf(client(values), kind, fields);
    if (values.json) return printJson({ ...monitorWords(kind, monitor), ...(pingUrl && { pingUrl }) });
    process.stdout.write(`${monitor.id}\n`);
    note(`Created ${kind} monitor ${monitor.id} (${monitor.name}).`);
    // A heartbeat's ping URL carries its token: this answer is the one time it is shown.
    if (pingUrl) {
      process.stdout.write(`${pingUrl}\n`);
      note(
        `Its ping URL, shown this once: call it when the job succeeds (see docs/guides/heartbeats.md). Lost, make a new one with: statusdesk monitors rotate-token ${monitor.id}`,
      );
    }
  },
};

/** Flags of another monitor type are mistakes, not options to ignore. */
function rejectForeignFlags(kind: MonitorType, values: Values): void {
  rejectFlags(values, [...Object.keys(connection), ...Object.keys(scheduling), ...Object.keys(flagsByType[kind]), 'clear'], `${kind} monitors`);
}

/** The monitor calls of a type, by the names of its message (`createGRPCMonitor`). */
type TypedCall = (request: { id?: string; updateMask?: unknown; monitor: Message }) => Promise<{ monitor?: AnyMonitor; pingUrl?: string }>;
const typedCall = (api: StatusdeskClient, method: string) => (api.monitors as unknown as Record<string, TypedCall>)[method]!.bind(api.monitors);

/** Creates a monitor; a heartbeat monitor's answer also carries its ping URL. */
async function createOf(api: StatusdeskClient, kind: MonitorType, fields: Record<string, unknown>): Promise<{ monitor: AnyMonitor; pingUrl?: string }> {
  const { createMethod, message } = wireOf(kind);
  const answer = await typedCall(api, createMethod)({ monitor: create(message, fields) });
  return { monitor: answer.monitor!, pingUrl: answer.pingUrl || undefined };
}

const monitorsUpdate: Command = {
  usage: `monitors update ID [the flags of create for the monitor's type] [--clear FIELD]... [--badge on|off|rotate] [--api-url URL] [--json]`,
  summary: 'change some fields of a monitor; the others keep their values',
  options: {
    ...connection,
    ...scheduling,
    ...typeFlags,
    clear: { type: 'string', multiple: true, valueName: 'FIELD', description: 'return a field to its default, e.g. degraded' },
    badge: {
      type: 'string',
      valueName: 'on|off|rotate',
      description: "the monitor's public status badges: on (keeps an earlier address), off (404 at once), or rotate (on, at a new address)",
    },
  },
  positionals: 1,
  fields: monitorFields,
  async run(values, [id]) {
    const api = client(values);
    const badge = values.badge as string | undefined;
    if (badge !== undefined && !['on', 'off', 'rotate'].includes(badge)) throw new UsageError(`--badge must be on, off or rotate, got "${badge}"`);
    const { kind, monitor: stored } = await fetchMonitor(api, id!);
    refuseAmbiguousUrl(kind, values);
    rejectFlags(values, [...Object.keys(connection), ...Object.keys(scheduling), ...Object.keys(flagsByType[kind]), 'clear', 'badge'], `${kind} monitors`);
    const fields = { ...schedulingFields(values), ...typeFields(kind, values) };
    if (badge !== undefined && Object.keys(fields).length === 0 && list(values, 'clear').length === 0) {
      // Only the badges change: the monitor itself is not saved.
      const { badges } = await api.monitors.updateMonitorBadges({ id: id!, enabled: badge !== 'off', rotate: badge === 'rotate' });
      return showBadges(values, badges!);
    }
    // A new endpoint without --otlp-header keeps the stored headers.
    const otlp = fields.openTelemetry as { headers: Record<string, string> } | undefined;
    if (otlp && Object.keys(otlp.headers).length === 0) otlp.headers = { ...stored.openTelemetry?.headers };
    // `--group ''` takes the monitor out of its group: an empty value the wire sends only by the mask.
    const cleared = [...list(values, 'clear'), ...(fields.group === '' ? ['group'] : [])];
    // Named fields without a value return to their defaults; the rest change only if given.
    const updateMask = cleared.length > 0 ? create(FieldMaskSchema, { paths: [...new Set([...Object.keys(fields), ...cleared])] }) : undefined;
    if (Object.keys(fields).length === 0 && !updateMask) throw new UsageError('nothing to change: give the flags of the fields to change, or --clear FIELD');
    const request = { id: id!, updateMask };
    const { updateMethod, message } = wireOf(kind);
    const monitor = (await typedCall(api, updateMethod)({ ...request, monitor: create(message, fields) })).monitor!;
    if (badge === undefined) return showMonitor(values, kind, monitor);
    const { badges } = await api.monitors.updateMonitorBadges({ id: id!, enabled: badge !== 'off', rotate: badge === 'rotate' });
    if (values.json) return printJson({ ...monitorWords(kind, monitor), badges: badgeWords(badges!) });
    showMonitor(values, kind, monitor);
    showBadges(values, badges!);
  },
};

/** A monitor's badge setting in the words --json prints. */
function badgeWords(badges: MonitorBadges) {
  if (!badges.enabled) return { enabled: false };
  return {
    enabled: true,
    badgeId: badges.badgeId,
    urls: {
      status: badges.statusUrl,
      uptime24h: badges.uptime24hUrl,
      uptime7d: badges.uptime7dUrl,
      uptime30d: badges.uptime30dUrl,
      latency: badges.latencyUrl,
    },
  };
}

function showBadges(values: Values, badges: MonitorBadges): void {
  if (values.json) return printJson({ badges: badgeWords(badges) });
  if (!badges.enabled) return void console.log('Badges: off (their address answers 404)');
  console.log('Badges: on');
  printTable(
    ['BADGE', 'URL'],
    [
      ['status', badges.statusUrl],
      ['uptime 24h', badges.uptime24hUrl],
      ['uptime 7d', badges.uptime7dUrl],
      ['uptime 30d', badges.uptime30dUrl],
      ['latency', badges.latencyUrl],
    ],
  );
}

const monitorsDelete: Command = {
  usage: 'monitors delete ID [--yes] [--api-url URL]',
  summary: 'delete a monitor and its check history (asks first; --yes when not on a terminal)',
  options: { ...address, ...yes },
  positionals: 1,
  async run(values, [id]) {
    const api = client(values);
    const go = await confirmed(values, async () => {
      const { monitor } = await fetchMonitor(api, id!);
      return `Delete monitor ${monitor.id} "${monitor.name}"?`;
    });
    if (!go) return 1;
    await api.monitors.deleteMonitor({ id: id! });
    note(`Deleted monitor ${id}.`);
  },
};

/** The actions of `monitors bulk`, by the word the command takes. */
const BULK_ACTIONS = {
  pause: BulkMonitorAction.PAUSE,
  resume: BulkMonitorAction.RESUME,
  delete: BulkMonitorAction.DELETE,
  tag: BulkMonitorAction.ADD_TAG,
  wire: BulkMonitorAction.WIRE_TO_CHANNEL,
  group: BulkMonitorAction.SET_GROUP,
} as const;

/** What `monitors bulk` says it did, by action. */
const BULK_DONE: Record<keyof typeof BULK_ACTIONS, string> = {
  pause: 'Paused',
  resume: 'Resumed',
  delete: 'Deleted',
  tag: 'Tagged',
  wire: 'Wired',
  group: 'Regrouped',
};

const monitorsBulk: Command = {
  usage:
    'monitors bulk pause|resume|delete|tag|wire|group (--id ID ... | [--query TEXT] [--state STATE] [--type TYPE] [--tag TAG] | --all) [--add-tag TAG] [--channel ID] [--set-group NAME] [--yes] [--api-url URL] [--json]',
  summary: 'do one thing to many monitors: by id, or every monitor the filter matches (as the overview filters), at most 10,000',
  options: {
    ...connection,
    ...yes,
    id: { type: 'string', multiple: true, valueName: 'ID', description: 'a monitor, by id' },
    query: { type: 'string', valueName: 'TEXT', description: 'monitors whose name, target or a tag holds this' },
    state: { type: 'string', valueName: 'up|degraded|down|pending|paused', description: 'monitors in this state' },
    type: { type: 'string', valueName: monitorTypeNames.join('|'), description: 'monitors of this type' },
    tag: { type: 'string', valueName: 'TAG', description: 'monitors with this tag' },
    all: { type: 'boolean', description: 'every monitor of the workspace' },
    'add-tag': { type: 'string', valueName: 'TAG', description: 'the tag `tag` adds' },
    channel: { type: 'string', valueName: 'ID', description: 'the channel `wire` wires the monitors to (statusdesk channels list)' },
    'set-group': { type: 'string', valueName: 'NAME', description: "the group `group` puts the monitors in ('' takes them out of theirs)" },
  },
  positionals: 1,
  fields: fieldFlags({
    ids: '--id',
    filter: '--query',
    'filter.query': '--query',
    'filter.state': '--state',
    'filter.type': '--type',
    'filter.tag': '--tag',
    tag: '--add-tag',
    channelId: '--channel',
    group: '--set-group',
  }),
  async run(values, [word]) {
    const action = oneOf('action', word!, Object.keys(BULK_ACTIONS) as (keyof typeof BULK_ACTIONS)[]);
    const ids = list(values, 'id');
    const filter = { query: str(values, 'query') ?? '', state: str(values, 'state') ?? '', type: str(values, 'type') ?? '', tag: str(values, 'tag') ?? '' };
    const filtered = Object.values(filter).some((v) => v !== '') || values.all === true;
    if (ids.length > 0 === filtered) throw new UsageError('name the monitors with --id, or with --query, --state, --type, --tag or --all, not both');
    const group = str(values, 'set-group');
    if (action === 'group' && group === undefined) throw new UsageError("group needs --set-group NAME (--set-group '' takes the monitors out of their group)");
    if (action === 'delete') {
      const go = await confirmed(
        values,
        async () => `Delete ${ids.length > 0 ? `${ids.length} monitors` : 'every monitor the filter matches'}, with their check history?`,
      );
      if (!go) return 1;
    }
    const answer = await client(values).monitors.bulkUpdateMonitors({
      action: BULK_ACTIONS[action],
      ids,
      filter: filtered ? filter : undefined,
      tag: str(values, 'add-tag') ?? '',
      channelId: str(values, 'channel') ?? '',
      group: group ?? '',
    });
    const result = { ids: answer.ids, changed: answer.changedCount, failures: answer.failures.map((f) => ({ id: f.id, reason: f.reason })) };
    if (values.json) return printJson(result);
    note(`${BULK_DONE[action]} ${result.changed} of ${result.ids.length} monitors.`);
    for (const f of result.failures) note(`monitor ${f.id}: ${f.reason}`);
    return result.failures.length > 0 ? 1 : undefined;
  },
};

const monitorsTrigger: Command = {
  usage: 'monitors trigger ID [--api-url URL] [--json]',
  summary: 'check a monitor now in each of its regions',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).monitors.triggerMonitor({ id: id! });
    const results = response.results.map(checkWords);
    if (values.json) return printJson({ results });
    printTable(
      ['REGION', 'RESULT', 'LATENCY', 'ATTEMPTS', 'MESSAGE'],
      results.map((r) => [r.region, r.result, `${r.latencyMs} ms`, String(r.attempts), r.message]),
    );
    for (const line of certificateLines(results)) process.stdout.write(`${line}\n`);
  },
};

/**
 * The certificates a check's TLS handshakes saw (certificate monitors, HTTPS, gRPC over TLS),
 * one line each: one check stands for several regions, and they saw the same one.
 */
function certificateLines(results: ReturnType<typeof checkWords>[]): string[] {
  const seen = new Map<string, NonNullable<ReturnType<typeof checkWords>['certificate']>>();
  for (const r of results) if (r.certificate) seen.set(`${r.runner} ${r.certificate.fingerprintSha256}`, r.certificate);
  return [...seen.values()].map((c) => {
    const left = c.daysLeft < 0 ? `expired ${-c.daysLeft} days ago` : `${c.daysLeft} days left`;
    const trust = c.error ? `not valid for this check: ${c.error}` : 'chain verified, name matches';
    return `Certificate for ${c.serverName}: ${c.subject}, issued by ${c.issuer}; valid until ${c.notAfter} (${left}); ${trust}`;
  });
}

const healthText = (health: string | null) => health ?? 'no check yet';

const monitorsStatus: Command = {
  usage: 'monitors status ID [--api-url URL] [--json]',
  summary: "a monitor's health in each region and overall: active, degraded or error",
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const status = statusWords(id!, await client(values).monitors.getMonitorStatus({ id: id! }));
    if (values.json) return printJson(status);
    const latest =
      status.regions
        .map((r) => r.lastCheckedAt)
        .filter((t) => t !== null)
        .sort()
        .at(-1) ?? null;
    printTable(
      ['REGION', 'STATUS', 'LAST CHECK'],
      [...status.regions.map((r) => [r.region, healthText(r.status), r.lastCheckedAt]), ['overall', healthText(status.overall), latest]],
    );
  },
};

const windows = ['1d', '7d', '14d'] as const;
const windowFlag = { window: { type: 'string', valueName: windows.join('|'), description: 'how far back to look (default 1d)' } } as const satisfies Options;

const monitorsSummary: Command = {
  usage: 'monitors summary ID [--window 1d|7d|14d] [--api-url URL] [--json]',
  summary: 'counts of successful, degraded and failed checks, and latency percentiles',
  options: { ...connection, ...windowFlag },
  positionals: 1,
  fields: { window: '--window' },
  async run(values, [id]) {
    const window = oneOf('window', str(values, 'window') ?? '1d', windows);
    const summary = summaryWords(id!, await client(values).monitors.getMonitorSummary({ id: id!, window: summaryWindow.wire(window) }));
    if (values.json) return printJson(summary);
    const l = summary.latency;
    printTable(
      ['WINDOW', 'SUCCESS', 'DEGRADED', 'ERROR', 'P50', 'P75', 'P90', 'P95', 'P99', 'LAST PING'],
      [
        [
          summary.window ?? window,
          String(summary.successCount),
          String(summary.degradedCount),
          String(summary.errorCount),
          ...(l ? [l.p50, l.p75, l.p90, l.p95, l.p99].map((v) => `${v} ms`) : ['-', '-', '-', '-', '-']),
          summary.lastPingAt ?? 'no check yet',
        ],
      ],
    );
    for (const gap of summary.gaps) process.stdout.write(`No checks ran from ${gap.startedAt} to ${gap.endedAt}.\n`);
  },
};

const monitorsLogs: Command = {
  usage: 'monitors logs ID [--window 1d|7d|14d] [--limit N] [--offset N] [--api-url URL] [--json]   (HTTP monitors)',
  summary: "an HTTP monitor's recent checks, newest first",
  options: { ...connection, ...windowFlag, ...paging },
  positionals: 1,
  fields: { window: '--window', limit: '--limit', offset: '--offset' },
  async run(values, [id]) {
    const window = oneOf('window', str(values, 'window') ?? '1d', windows);
    const response = await client(values).monitors.listResponseLogs({
      id: id!,
      window: summaryWindow.wire(window),
      limit: count('limit', str(values, 'limit')),
      offset: count('offset', str(values, 'offset')) ?? 0,
    });
    const results = response.results.map(checkWords);
    if (values.json) return printJson({ results });
    printTable(
      ['STARTED', 'REGION', 'RESULT', 'STATUS', 'LATENCY', 'MESSAGE'],
      results.map((r) => [r.startedAt, r.region, r.result, r.statusCode === null ? '-' : String(r.statusCode), `${r.latencyMs} ms`, r.message]),
    );
  },
};

/** A tool's text as people read it: its canonical JSON, indented, one member a line. */
const readableTool = (text: string) => (text === '' ? '' : `${JSON.stringify(JSON.parse(text), null, 2)}\n`);

/** Prints each change of a drift: the tool, and its text as a diff of the pinned against the found. */
function printChanges(changes: readonly { name: string; change: string; before: string; after: string }[]): void {
  for (const { name, change, before, after } of changes) {
    process.stdout.write(`\n${change} ${name}\n`);
    for (const part of diffLines(readableTool(before), readableTool(after))) {
      const sign = part.added ? '+' : part.removed ? '-' : ' ';
      for (const line of part.value.replace(/\n$/, '').split('\n')) process.stdout.write(`${sign} ${line}\n`);
    }
  }
}

const monitorsTools: Command = {
  usage: 'monitors tools ID [--api-url URL] [--json]   (MCP monitors)',
  summary: "an MCP monitor's pinned tools and, when its server changed them, what changed",
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const tools = await client(values).monitors.getMCPTools({ id: id! });
    const answer = {
      pinned: tools.pinned.map(({ name, fingerprint }) => ({ name, fingerprint })),
      pinnedAt: tools.pinnedAt ? timestampDate(tools.pinnedAt).toISOString() : null,
      drifted: tools.drifted,
      driftedAt: tools.driftedAt ? timestampDate(tools.driftedAt).toISOString() : null,
      changes: tools.changes.map(({ name, change, before, after }) => ({ name, change, before, after })),
    };
    if (values.json) return printJson(answer);
    if (answer.pinnedAt === null) return note(`Monitor ${id} has no pinned tools yet: its first check that lists them pins them.`);
    printTable(
      ['TOOL', 'FINGERPRINT'],
      answer.pinned.map((t) => [t.name, t.fingerprint.slice(0, 12)]),
    );
    if (!answer.drifted) return note(`Pinned at ${answer.pinnedAt}; the checks find the same tools.`);
    note(`The server changed its tools (first seen ${answer.driftedAt}). Review, then accept them with: statusdesk monitors accept-tools ${id}`);
    printChanges(answer.changes);
  },
};

const monitorsAcceptTools: Command = {
  usage: 'monitors accept-tools ID [--workspace SLUG] [--data-dir D]   (MCP monitors)',
  summary: "accept the tools an MCP monitor's server has now: they become its pinned set (a person, on the service's machine)",
  options: { ...dataDir, workspace: { type: 'string', valueName: 'SLUG', description: 'the workspace of the monitor, by its slug (default personal)' } },
  positionals: 1,
  async run(values, [id]) {
    // On the data folder, as its owner: a key (which an editor may hold) cannot accept tools.
    const accepted = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const workspace = await services.workspaces.getBySlug(owner, str(values, 'workspace') ?? 'personal');
      return services.toolPins.accept(owner, Number(workspace.id), id!);
    });
    note(`Monitor ${id}: ${accepted.pinned.length} tools pinned${accepted.pinnedAt ? ` at ${accepted.pinnedAt}` : ''}.`);
  },
};

const monitorsRotateToken: Command = {
  usage: 'monitors rotate-token ID [--yes] [--api-url URL]   (heartbeat monitors)',
  summary: 'give a heartbeat monitor a new ping URL, shown this once; the old one answers 404 at once (asks first; --yes when not on a terminal)',
  options: { ...address, ...yes },
  positionals: 1,
  async run(values, [id]) {
    const api = client(values);
    const go = await confirmed(values, async () => {
      const { monitor } = await fetchMonitor(api, id!);
      return `Give heartbeat monitor ${monitor.id} "${monitor.name}" a new ping URL? Jobs calling the old one fail from now on.`;
    });
    if (!go) return 1;
    const { pingUrl } = await api.monitors.rotateHeartbeatToken({ id: id! });
    process.stdout.write(`${pingUrl}\n`);
    note(`Monitor ${id} has a new ping URL, shown this once; the old one answers 404.`);
  },
};

/** A ping's body as one line of a table: its first line, cut short. */
const bodyLine = (body: string) => {
  const line = body.split('\n', 1)[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 60)}…` : line || '-';
};

const monitorsPings: Command = {
  usage: 'monitors pings ID [--limit N] [--api-url URL] [--json]   (heartbeat monitors)',
  summary: "a heartbeat monitor's latest pings, newest first, with what each job posted",
  options: { ...connection, limit: { type: 'string', valueName: 'N', description: 'how many to show, 1 to 100 (default 20)' } },
  positionals: 1,
  fields: { limit: '--limit' },
  async run(values, [id]) {
    const response = await client(values).monitors.listHeartbeatPings({ id: id!, limit: count('limit', str(values, 'limit')) });
    const pings = response.pings.map((p) => ({
      receivedAt: timestampDate(p.receivedAt!).toISOString(),
      kind: p.kind,
      exitStatus: p.exitStatus ?? null,
      runTimeMs: p.runTimeMs ?? null,
      method: p.method,
      address: p.address,
      userAgent: p.userAgent,
      body: p.body,
    }));
    if (values.json) return printJson({ pings });
    if (pings.length === 0) return note(`Monitor ${id} has received no ping yet.`);
    printTable(
      ['RECEIVED', 'KIND', 'EXIT', 'RUN TIME', 'FROM', 'BODY'],
      pings.map((p) => [
        p.receivedAt,
        p.kind,
        p.exitStatus === null ? '-' : String(p.exitStatus),
        p.runTimeMs === null ? '-' : `${Math.round(p.runTimeMs)} ms`,
        p.address,
        bodyLine(p.body),
      ]),
    );
  },
};

const monitorsIncidents: Command = {
  usage: 'monitors incidents ID [--api-url URL] [--json]',
  summary: 'the spans in which a monitor was down, newest first, the latest 100',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).monitors.listMonitorIncidents({ id: id! });
    const incidents = response.incidents.map((i) => ({
      id: i.id,
      startedAt: timestampDate(i.startedAt!).toISOString(),
      endedAt: i.endedAt ? timestampDate(i.endedAt).toISOString() : null,
      durationMs: durationMs(i.duration!),
      failedChecks: i.failedChecks,
      firstMessage: i.firstMessage,
    }));
    if (values.json) return printJson({ incidents });
    if (incidents.length === 0) return note(`Monitor ${id} has not been down.`);
    printTable(
      ['STARTED', 'ENDED', 'DURATION', 'FAILED CHECKS', 'FIRST FAILURE'],
      incidents.map((i) => [i.startedAt, i.endedAt ?? 'still down', `${Math.round(i.durationMs / 1000)} s`, String(i.failedChecks), i.firstMessage]),
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
  'monitors bulk': monitorsBulk,
  'monitors status': monitorsStatus,
  'monitors summary': monitorsSummary,
  'monitors logs': monitorsLogs,
  'monitors tools': monitorsTools,
  'monitors accept-tools': monitorsAcceptTools,
  'monitors rotate-token': monitorsRotateToken,
  'monitors pings': monitorsPings,
  'monitors incidents': monitorsIncidents,
};
