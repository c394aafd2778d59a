import { randomBytes } from 'node:crypto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { notificationV1 } from '../../client/index.ts';
import { isRequired } from '../domain/declared-fields.ts';
import type { ChannelField } from '../delivery/channels/channel.ts';
import { channelKindNames, channelSpecOf, isChannelKind, wordOf } from '../delivery/channels/registry.ts';
import type { ChannelKind } from '../domain/notifications/channel-rules.ts';
import { alertTopics } from '../domain/notifications/events.ts';
import { configCaseOf } from '../rpc/channel-config.ts';
import { channelWords, deliveryWords } from '../rpc/notification-codec.ts';
import { confirmed, yes } from './confirm.ts';
import { optionOf, readFlag, usageOf } from './declared-flags.ts';
import { fieldFlags } from './field-flags.ts';
import { address, type Command, connection, int32, list, note, oneOf, type Options, printFields, rejectFlags, required, str, type Values } from './flags.ts';
import { client } from './service-client.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk channels ...`: where monitor alerts go, through the client library
 * (notification.v1), shown in the words of notification-codec.ts (channelWords). Credentials go
 * in and never come back: the service answers with them masked. The flags of each kind are those
 * its declaration gives (delivery/channels/).
 */

type ChannelConfig = MessageInitShape<typeof notificationV1.CreateNotificationChannelRequestSchema>['config'];
type Shown = ReturnType<typeof channelWords> & Record<string, unknown>;

const kinds = channelKindNames;
type Kind = ChannelKind;

const fieldsOf = (kind: Kind): [string, ChannelField][] => Object.entries(channelSpecOf(kind).fields());

/** The flags of each kind. */
const kindFlags = Object.fromEntries(
  kinds.map((kind) => [kind, Object.fromEntries(fieldsOf(kind).map(([, field]) => [field.flag.name, optionOf(field)]))]),
) as Record<Kind, Options>;

/**
 * The flags of every kind, each once: its help names the kinds that take it, and what leaving it
 * out means (`the sender (email; default: the service's STATUSDESK_MAIL_FROM)`).
 */
const allKindFlags: Options = (() => {
  const byFlag = new Map<string, { field: ChannelField; kinds: Kind[] }>();
  for (const kind of kinds) {
    for (const [, field] of fieldsOf(kind)) {
      const seen = byFlag.get(field.flag.name);
      if (seen) seen.kinds.push(kind);
      else byFlag.set(field.flag.name, { field, kinds: [kind] });
    }
  }
  return Object.fromEntries(
    [...byFlag].map(([name, { field, kinds: taking }]) => [
      name,
      optionOf(field, `${field.flag.description} (${taking.join(', ')}${field.flag.default ? `; default: ${field.flag.default}` : ''})`),
    ]),
  );
})();

/** The flags a kind needs on `add`: those of its fields without a default. */
const requiredFlags = (kind: Kind) => fieldsOf(kind).flatMap(([, field]) => (isRequired(field.schema) ? [field.flag.name] : []));

/** Each kind's flags in the usage line, kinds that take the same ones together: `(slack, discord: --webhook-url URL)`. */
const kindFlagsUsage = (() => {
  const byUsage = new Map<string, Kind[]>();
  for (const kind of kinds) {
    const fields = fieldsOf(kind);
    if (fields.length === 0) continue;
    const usage = fields.map(([, field]) => usageOf(field, isRequired(field.schema))).join(' ');
    byUsage.set(usage, [...(byUsage.get(usage) ?? []), kind]);
  }
  return [...byUsage].map(([usage, taking]) => `(${taking.join(', ')}: ${usage})`).join(' ');
})();

/** The service's field paths of a channel and the flags that give them. */
const channelFields = fieldFlags({
  name: '--name',
  monitorIds: '--monitor',
  events: '--event',
  allMonitors: '--all-monitors',
  defaultForNew: '--default-for-new',
  ...Object.fromEntries(kinds.flatMap((kind) => fieldsOf(kind).map(([name, field]) => [`${kind}.${name}`, `--${field.flag.name}`]))),
});

/** Whether any flag of the kind was given. */
const hasKindFlags = (kind: Kind, values: Values) => Object.keys(kindFlags[kind]).some((flag) => values[flag] !== undefined);

/** The kind's settings from the flags given; a credential left out is empty, which an update reads as "keep". */
function configOf(kind: Kind, values: Values): ChannelConfig {
  return { case: configCaseOf(kind), value: Object.fromEntries(fieldsOf(kind).map(([name, field]) => [name, readFlag(field, values)])) } as ChannelConfig;
}

const entries = (map: object) =>
  Object.entries(map)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
/** `smtpUrl` as `smtp url`. */
const label = (word: string) => word.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

/** A setting in a row: a list joined, a map as k=v, what a value left out means where the flag says. */
function settingText(value: unknown, field: ChannelField): string | undefined {
  if (value === null || value === undefined) return field.flag.default === undefined ? undefined : `(${field.flag.default})`;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return entries(value);
  return String(value);
}

/** The kind's settings as rows, by the names of their flags; credentials as the service masked them. */
function settingRows(c: Shown): [string, string | undefined][] {
  if (!isChannelKind(c.kind)) return [];
  return fieldsOf(c.kind).map(([name, field]) => {
    const word = wordOf(name, field);
    return [label(word), settingText(c[word], field)];
  });
}

/** Where the channel sends, for a list. */
function targetOf(c: Shown): string | undefined {
  return isChannelKind(c.kind) ? channelSpecOf(c.kind).target?.(c) : undefined;
}

function printChannel(channel: Shown): void {
  printFields([
    ['id', channel.id],
    ['name', channel.name],
    ['kind', channel.kind],
    ['monitors', channel.monitorIds.join(',') || '(none)'],
    ['events', channel.events.join(',') || '(every event)'],
    ['all monitors', channel.allMonitors ? 'yes: every monitor, those created later too' : 'no'],
    ['default for new', channel.defaultForNew ? 'yes: new monitors are wired to it' : 'no'],
    ...settingRows(channel),
    ['delivery', healthText(channel)],
    ...(channel.health.lastError ? ([['last error', `${channel.health.lastError} (${channel.health.lastFailedAt})`]] as [string, string][]) : []),
    ['created', channel.createdAt],
    ['updated', channel.updatedAt],
  ]);
}

/** How the channel's deliveries fare, in a few words. */
function healthText({ health }: Shown): string {
  if (health.backoffUntil) return `backed off until ${health.backoffUntil} after ${health.failures} failures in a row`;
  if (health.failures) return `failing: ${health.failures} in a row`;
  return health.lastSentAt ? `ok, last sent ${health.lastSentAt}` : 'ok';
}

/** A channel as --json prints it, or else as a FIELD/VALUE table. */
function showChannel(values: Values, channel: notificationV1.NotificationChannel): void {
  const shown = channelWords(channel);
  if (values.json) return printJson(shown);
  printChannel(shown);
}

/** A webhook (signed or custom) has a URL of its own: there `--url` could be either, so it is refused. */
function refuseAmbiguousUrl(kind: Kind, values: Values): void {
  if ((kind === 'webhook' || kind === 'custom_webhook') && values.url !== undefined) {
    throw new UsageError(`--url is ambiguous for a ${kind} channel: give the webhook's address as --webhook-url, and the service as --api-url`);
  }
}

const common = {
  name: { type: 'string', valueName: 'NAME', description: 'what the channel is called' },
  monitor: { type: 'string', multiple: true, valueName: 'ID', description: 'a monitor whose alerts it receives' },
  event: {
    type: 'string',
    multiple: true,
    valueName: alertTopics.join('|'),
    description: 'an event it receives (default: every event)',
  },
  'all-monitors': { type: 'boolean', description: 'it receives the alerts of every monitor, those created later too' },
  'default-for-new': { type: 'boolean', description: 'each monitor created from now on is wired to it' },
  'generate-secret': { type: 'boolean', description: 'webhook: a random signing secret instead of --secret, printed once' },
} as const satisfies Options;

/** The flags that turn `all-monitors` and `default-for-new` off again (update). */
const offFlags = {
  'no-all-monitors': { type: 'boolean', description: 'it receives the alerts of the monitors wired to it only' },
  'no-default-for-new': { type: 'boolean', description: 'new monitors are no longer wired to it' },
} as const satisfies Options;

/** `--X` true, `--no-X` false, neither undefined; both a mistake. */
function switchOf(values: Values, flag: string): boolean | undefined {
  const on = values[flag] === true;
  const off = values[`no-${flag}`] === true;
  if (on && off) throw new UsageError(`give one of --${flag}/--no-${flag}, not both`);
  return on ? true : off ? false : undefined;
}

/**
 * `--generate-secret`: a signing secret made here, 32 random bytes as base64url (43 characters),
 * given to the service like a typed one and shown once, on stderr (in --json, as `generatedSecret`):
 * the service only ever shows it masked.
 */
function generatedSecret(kind: Kind, values: Values): string | undefined {
  if (values['generate-secret'] !== true) return undefined;
  if (kind !== 'webhook') throw new UsageError(`--generate-secret applies to webhook channels, not ${kind} channels`);
  if (values.secret !== undefined) throw new UsageError('give --secret or --generate-secret, not both');
  return randomBytes(32).toString('base64url');
}

/** Prints the channel, and a generated secret once. */
function showWithSecret(values: Values, channel: notificationV1.NotificationChannel, secret: string | undefined): void {
  if (values.json) return printJson(secret === undefined ? channelWords(channel) : { ...channelWords(channel), generatedSecret: secret });
  printChannel(channelWords(channel));
  if (secret !== undefined) note(`Signing secret (shown once; give it to the receiver, it verifies x-statusdesk-signature with it): ${secret}`);
}

const channelsAdd: Command = {
  usage: `channels add --name N --kind ${kinds.join('|')} [--monitor ID]... [--event E]... [--all-monitors] [--default-for-new] ${kindFlagsUsage} [--generate-secret] [--api-url URL] [--json]`,
  summary: 'add a channel that monitor alerts are sent to',
  options: { ...connection, ...common, kind: { type: 'string', valueName: kinds.join('|'), description: 'where the alerts go' }, ...allKindFlags },
  fields: channelFields,
  async run(values) {
    const kind = oneOf('kind', required(values, 'kind'), kinds);
    refuseAmbiguousUrl(kind, values);
    rejectFlags(values, [...Object.keys(connection), ...Object.keys(common), 'kind', ...Object.keys(kindFlags[kind])], `${kind} channels`);
    const name = required(values, 'name');
    const secret = generatedSecret(kind, values);
    if (secret !== undefined) values.secret = secret;
    for (const flag of requiredFlags(kind)) {
      const value = values[flag];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0))
        throw new UsageError(`--${flag} is required for ${kind} channels`);
    }
    const { channel } = await client(values).notifications.createNotificationChannel({
      name,
      monitorIds: list(values, 'monitor'),
      config: configOf(kind, values),
      events: list(values, 'event'),
      allMonitors: values['all-monitors'] === true ? true : undefined,
      defaultForNew: values['default-for-new'] === true ? true : undefined,
    });
    showWithSecret(values, channel!, secret);
  },
};

const channelsList: Command = {
  usage: 'channels list [--page-number N] [--per-page N] [--api-url URL] [--json]',
  summary: 'list the alert channels',
  options: {
    ...connection,
    'page-number': { type: 'string', valueName: 'N', description: 'which page of the list, from 1' },
    'per-page': { type: 'string', valueName: 'N', description: 'how many per page' },
  },
  fields: { page: '--page-number', perPage: '--per-page' },
  async run(values) {
    const response = await client(values).notifications.listNotificationChannels({
      page: int32('page-number', str(values, 'page-number')) ?? 0,
      perPage: int32('per-page', str(values, 'per-page')) ?? 0,
    });
    const channels = response.channels.map(channelWords);
    const p = response.pagination;
    const pagination = { page: p?.page ?? 1, perPage: p?.perPage ?? 0, totalSize: p?.totalSize ?? 0, totalPages: p?.totalPages ?? 0 };
    if (values.json) return printJson({ channels, pagination });
    printTable(
      ['ID', 'NAME', 'KIND', 'TARGET', 'MONITORS', 'DELIVERY', 'CREATED'],
      channels.map((c) => [c.id, c.name, c.kind, targetOf(c), c.monitorIds.join(',') || undefined, healthText(c), c.createdAt]),
    );
    note(`${channels.length} of ${pagination.totalSize} channels (page ${pagination.page} of ${Math.max(pagination.totalPages, 1)})`);
  },
};

const channelsGet: Command = {
  usage: 'channels get ID [--api-url URL] [--json]',
  summary: 'show an alert channel, credentials masked',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { channel } = await client(values).notifications.getNotificationChannel({ id: id! });
    showChannel(values, channel!);
  },
};

const channelsUpdate: Command = {
  usage: `channels update ID [--name N] [--monitor ID]... [--clear-monitors] [--event E]... [--all-events] [--all-monitors|--no-all-monitors] [--default-for-new|--no-default-for-new] [the flags of add for the channel's kind] [--generate-secret] [--api-url URL] [--json]   (a credential not given keeps its value)`,
  summary: 'change an alert channel; a credential not given keeps its value',
  options: {
    ...connection,
    ...common,
    'clear-monitors': { type: 'boolean', description: 'no monitor sends alerts to it' },
    'all-events': { type: 'boolean', description: 'it receives every event again' },
    ...offFlags,
    ...allKindFlags,
  },
  positionals: 1,
  fields: channelFields,
  async run(values, [id]) {
    const api = client(values);
    const { channel: stored } = await api.notifications.getNotificationChannel({ id: id! });
    const kind = oneOf('kind', stored!.kind, kinds);
    refuseAmbiguousUrl(kind, values);
    rejectFlags(
      values,
      [...Object.keys(connection), 'clear-monitors', 'all-events', ...Object.keys(offFlags), ...Object.keys(common), ...Object.keys(kindFlags[kind])],
      `${kind} channels`,
    );
    const name = str(values, 'name');
    const monitors = list(values, 'monitor');
    const events = list(values, 'event');
    const clear = values['clear-monitors'] === true;
    const allEvents = values['all-events'] === true;
    const allMonitors = switchOf(values, 'all-monitors');
    const defaultForNew = switchOf(values, 'default-for-new');
    const secret = generatedSecret(kind, values);
    if (secret !== undefined) values.secret = secret;
    const config = hasKindFlags(kind, values) ? configOf(kind, values) : undefined;
    if (clear && monitors.length > 0) throw new UsageError('give --monitor or --clear-monitors, not both');
    if (allEvents && events.length > 0) throw new UsageError('give --event or --all-events, not both');
    if (
      name === undefined &&
      monitors.length === 0 &&
      !clear &&
      events.length === 0 &&
      !allEvents &&
      !config &&
      allMonitors === undefined &&
      defaultForNew === undefined
    ) {
      throw new UsageError(
        `nothing to change: give --name, --monitor, --clear-monitors, --event, --all-events, --[no-]all-monitors, --[no-]default-for-new or the flags of a ${kind} channel`,
      );
    }
    // Only an update mask can empty a list: it then names every field that changes.
    const paths = [
      ...(name === undefined ? [] : ['name']),
      ...(clear || monitors.length > 0 ? ['monitor_ids'] : []),
      ...(allEvents || events.length > 0 ? ['events'] : []),
      ...(config ? ['config'] : []),
      ...(allMonitors === undefined ? [] : ['all_monitors']),
      ...(defaultForNew === undefined ? [] : ['default_for_new']),
    ];
    const { channel } = await api.notifications.updateNotificationChannel({
      id: id!,
      name,
      monitorIds: monitors,
      events,
      config,
      allMonitors,
      defaultForNew,
      updateMask: clear || allEvents ? { paths } : undefined,
    });
    showWithSecret(values, channel!, secret);
  },
};

const channelsDelete: Command = {
  usage: 'channels delete ID [--yes] [--api-url URL]',
  summary: 'delete an alert channel (asks first; --yes when not on a terminal)',
  options: { ...address, ...yes },
  positionals: 1,
  async run(values, [id]) {
    const api = client(values);
    const go = await confirmed(values, async () => {
      const { channel } = await api.notifications.getNotificationChannel({ id: id! });
      return `Delete channel ${channel!.id} "${channel!.name}"?`;
    });
    if (!go) return 1;
    await api.notifications.deleteNotificationChannel({ id: id! });
    note(`Deleted channel ${id}.`);
  },
};

const channelsTest: Command = {
  usage: 'channels test ID [--api-url URL] [--json]   (sends a test alert now; exit 1 when not delivered)',
  summary: 'send a test alert through a channel now; exit 1 when not delivered',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).notifications.sendTestNotification({ id: id! });
    if (values.json) {
      printJson({ delivered: response.delivered, error: response.error || null });
      return response.delivered ? 0 : 1;
    }
    if (response.delivered) {
      process.stdout.write('delivered\n');
      return 0;
    }
    process.stderr.write(`statusdesk: not delivered: ${response.error || 'no reason given'}\n`);
    return 1;
  },
};

const channelsDeliveries: Command = {
  usage: 'channels deliveries ID [--page-number N] [--per-page N] [--api-url URL] [--json]',
  summary: "show a channel's delivery log: its latest deliveries and what the receiver answered",
  options: {
    ...connection,
    'page-number': { type: 'string', valueName: 'N', description: 'which page of the log, from 1' },
    'per-page': { type: 'string', valueName: 'N', description: 'how many per page' },
  },
  fields: { page: '--page-number', perPage: '--per-page' },
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).notifications.listChannelDeliveries({
      id: id!,
      page: int32('page-number', str(values, 'page-number')) ?? 0,
      perPage: int32('per-page', str(values, 'per-page')) ?? 0,
    });
    const deliveries = response.deliveries.map(deliveryWords);
    const p = response.pagination;
    const pagination = { page: p?.page ?? 1, perPage: p?.perPage ?? 0, totalSize: p?.totalSize ?? 0, totalPages: p?.totalPages ?? 0 };
    if (values.json) return printJson({ deliveries, pagination });
    printTable(
      ['AT', 'EVENT', 'MONITOR', 'RESULT', 'STATUS', 'ATTEMPTS', 'ANSWER'],
      deliveries.map((d) => [
        d.at,
        d.event,
        d.monitorId === null ? d.monitorName : `${d.monitorName} (${d.monitorId})`,
        d.result,
        d.statusCode === null ? undefined : String(d.statusCode),
        String(d.attempts),
        d.error ?? d.response ?? undefined,
      ]),
    );
    note(`${deliveries.length} of ${pagination.totalSize} deliveries kept (page ${pagination.page} of ${Math.max(pagination.totalPages, 1)})`);
  },
};

export const channelCommands: Record<string, Command> = {
  'channels add': channelsAdd,
  'channels list': channelsList,
  'channels get': channelsGet,
  'channels update': channelsUpdate,
  'channels delete': channelsDelete,
  'channels test': channelsTest,
  'channels deliveries': channelsDeliveries,
};
