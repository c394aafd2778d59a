import { type JsonObject, type MessageInitShape, toJson } from '@bufbuild/protobuf';
import { notificationV1 } from '../../client/index.ts';
import {
  address,
  client,
  type Command,
  connection,
  int32,
  list,
  note,
  oneOf,
  type Options,
  pairs,
  printFields,
  printJsonMessage,
  rejectFlags,
  required,
  str,
  timeText,
  type Values,
} from './flags.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk channels ...`: where monitor alerts go, through the client library
 * (notification.v1). Credentials go in and never come back: the service answers with them masked.
 */

type Channel = notificationV1.NotificationChannel;
type ChannelConfig = MessageInitShape<typeof notificationV1.CreateNotificationChannelRequestSchema>['config'];

const kinds = ['webhook', 'slack', 'discord', 'email', 'ntfy', 'desktop'] as const;
type Kind = (typeof kinds)[number];

const webhookUrl = { 'webhook-url': { type: 'string' } } as const satisfies Options;
const kindFlags = {
  webhook: { url: { type: 'string' }, secret: { type: 'string' }, header: { type: 'string', multiple: true } },
  slack: webhookUrl,
  discord: webhookUrl,
  email: { to: { type: 'string', multiple: true }, from: { type: 'string' }, 'smtp-url': { type: 'string' } },
  ntfy: { topic: { type: 'string' }, server: { type: 'string' }, priority: { type: 'string' }, token: { type: 'string' } },
  desktop: {},
} as const satisfies Record<Kind, Options>;
const allKindFlags = Object.assign({}, ...Object.values(kindFlags)) as Options;

/** The flags a kind needs on `add`. */
const requiredFlags: Record<Kind, string[]> = { webhook: ['url', 'secret'], slack: ['webhook-url'], discord: ['webhook-url'], email: ['to'], ntfy: ['topic'], desktop: [] };

const kindFlagsUsage =
  '(webhook: --url U --secret S [--header k=v]...; the service then from --api-url or SERVICE_API_URL) (slack, discord: --webhook-url U) (email: --to A... [--from F] [--smtp-url U]) (ntfy: --topic T [--server U] [--priority 1-5] [--token T])';

/** Whether any flag of the kind was given. */
const hasKindFlags = (kind: Kind, values: Values) => Object.keys(kindFlags[kind]).some((flag) => values[flag] !== undefined);

/** The kind's settings from the flags given; a credential left out is empty, which an update reads as "keep". */
function configOf(kind: Kind, values: Values): ChannelConfig {
  switch (kind) {
    case 'webhook':
      return { case: 'webhook', value: { url: str(values, 'url') ?? '', secret: str(values, 'secret') ?? '', headers: pairs('header', list(values, 'header')) } };
    case 'slack':
      return { case: 'slack', value: { webhookUrl: str(values, 'webhook-url') ?? '' } };
    case 'discord':
      return { case: 'discord', value: { webhookUrl: str(values, 'webhook-url') ?? '' } };
    case 'email':
      return { case: 'email', value: { to: list(values, 'to'), from: str(values, 'from'), smtpUrl: str(values, 'smtp-url') } };
    case 'ntfy':
      return {
        case: 'ntfy',
        value: { topic: str(values, 'topic') ?? '', server: str(values, 'server') ?? '', priority: int32('priority', str(values, 'priority')), token: str(values, 'token') },
      };
    case 'desktop':
      return { case: 'desktop', value: {} };
  }
}

const entries = (map: Record<string, string>) => Object.entries(map).map(([k, v]) => `${k}=${v}`).join(',');

/** The kind's settings as rows, credentials as the service masked them. */
function configRows(channel: Channel): [string, string | undefined][] {
  const c = channel.config;
  switch (c.case) {
    case 'webhook':
      return [['url', c.value.url], ['secret', c.value.secret], ['headers', entries(c.value.headers)]];
    case 'slack':
    case 'discord':
      return [['webhook url', c.value.webhookUrl]];
    case 'email':
      return [['to', c.value.to.join(',')], ['from', c.value.from ?? '(the service\'s STATUSDESK_MAIL_FROM)'], ['smtp url', c.value.smtpUrl ?? '(the service\'s STATUSDESK_SMTP_URL)']];
    case 'ntfy':
      return [['server', c.value.server], ['topic', c.value.topic], ['priority', c.value.priority === undefined ? undefined : String(c.value.priority)], ['token', c.value.token]];
    default:
      return [];
  }
}

/** Where the channel sends, for a list. */
function targetOf(channel: Channel): string | undefined {
  const c = channel.config;
  switch (c.case) {
    case 'webhook':
      return c.value.url;
    case 'slack':
    case 'discord':
      return c.value.webhookUrl;
    case 'email':
      return c.value.to.join(',');
    case 'ntfy':
      return `${c.value.server.replace(/\/+$/, '')}/${c.value.topic}`;
    default:
      return undefined;
  }
}

function printChannel(channel: Channel): void {
  printFields([
    ['id', channel.id],
    ['name', channel.name],
    ['kind', channel.kind],
    ['monitors', channel.monitorIds.join(',') || '(none)'],
    ...configRows(channel),
    ['created', timeText(channel.createdAt)],
    ['updated', timeText(channel.updatedAt)],
  ]);
}

const common = { name: { type: 'string' }, monitor: { type: 'string', multiple: true } } as const satisfies Options;

const channelsAdd: Command = {
  usage: `channels add --name N --kind webhook|slack|discord|email|ntfy|desktop [--monitor ID]... ${kindFlagsUsage} [--url URL] [--json]`,
  options: { ...connection, ...common, kind: { type: 'string' }, ...allKindFlags },
  async run(values) {
    const kind = oneOf('kind', required(values, 'kind'), kinds);
    rejectFlags(values, [...Object.keys(connection), ...Object.keys(common), 'kind', ...Object.keys(kindFlags[kind])], `${kind} channels`);
    const name = required(values, 'name');
    for (const flag of requiredFlags[kind]) {
      const value = values[flag];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) throw new UsageError(`--${flag} is required for ${kind} channels`);
    }
    const { channel } = await client(values, kind !== 'webhook').notifications.createNotificationChannel({
      name,
      monitorIds: list(values, 'monitor'),
      config: configOf(kind, values),
    });
    if (values.json) return printJsonMessage(notificationV1.NotificationChannelSchema, channel!);
    printChannel(channel!);
  },
};

const channelsList: Command = {
  usage: 'channels list [--page-number N] [--per-page N] [--url URL] [--json]',
  options: { ...connection, 'page-number': { type: 'string' }, 'per-page': { type: 'string' } },
  async run(values) {
    const response = await client(values).notifications.listNotificationChannels({
      page: int32('page-number', str(values, 'page-number')) ?? 0,
      perPage: int32('per-page', str(values, 'per-page')) ?? 0,
    });
    if (values.json) return printJsonMessage(notificationV1.ListNotificationChannelsResponseSchema, response);
    printTable(
      ['ID', 'NAME', 'KIND', 'TARGET', 'MONITORS', 'CREATED'],
      response.channels.map((c) => [c.id, c.name, c.kind, targetOf(c), c.monitorIds.join(',') || undefined, timeText(c.createdAt)]),
    );
    const p = response.pagination;
    if (p) note(`${response.channels.length} of ${p.totalSize} channels (page ${p.page} of ${Math.max(p.totalPages, 1)})`);
  },
};

const channelsGet: Command = {
  usage: 'channels get ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { channel } = await client(values).notifications.getNotificationChannel({ id: id! });
    if (values.json) return printJsonMessage(notificationV1.NotificationChannelSchema, channel!);
    printChannel(channel!);
  },
};

const channelsUpdate: Command = {
  usage: `channels update ID [--name N] [--monitor ID]... [--clear-monitors] [the flags of add for the channel's kind] [--api-url URL] [--json]   (a credential not given keeps its value)`,
  options: { ...connection, ...common, 'clear-monitors': { type: 'boolean' }, ...allKindFlags },
  positionals: 1,
  async run(values, [id]) {
    // --url is the webhook's own address here, as in `monitors update`: the service comes from --api-url.
    const api = client(values, false);
    const { channel: stored } = await api.notifications.getNotificationChannel({ id: id! });
    const kind = oneOf('kind', stored!.kind, kinds);
    rejectFlags(values, ['api-url', 'json', 'clear-monitors', ...Object.keys(common), ...Object.keys(kindFlags[kind])], `${kind} channels`);
    const name = str(values, 'name');
    const monitors = list(values, 'monitor');
    const clear = values['clear-monitors'] === true;
    const config = hasKindFlags(kind, values) ? configOf(kind, values) : undefined;
    if (clear && monitors.length > 0) throw new UsageError('give --monitor or --clear-monitors, not both');
    if (name === undefined && monitors.length === 0 && !clear && !config) {
      throw new UsageError(`nothing to change: give --name, --monitor, --clear-monitors or the flags of a ${kind} channel`);
    }
    // Only an update mask can empty the list of monitors: it then names every field that changes.
    const paths = [...(name === undefined ? [] : ['name']), 'monitor_ids', ...(config ? ['config'] : [])];
    const { channel } = await api.notifications.updateNotificationChannel({
      id: id!,
      name,
      monitorIds: monitors,
      config,
      updateMask: clear ? { paths } : undefined,
    });
    if (values.json) return printJsonMessage(notificationV1.NotificationChannelSchema, channel!);
    printChannel(channel!);
  },
};

const channelsDelete: Command = {
  usage: 'channels delete ID [--url URL]',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).notifications.deleteNotificationChannel({ id: id! });
    note(`Deleted channel ${id}.`);
  },
};

const channelsTest: Command = {
  usage: 'channels test ID [--url URL] [--json]   (sends a test alert now; exit 1 when not delivered)',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).notifications.sendTestNotification({ id: id! });
    if (values.json) {
      // `delivered` is there even when false (proto3 JSON leaves false out).
      printJson({ delivered: response.delivered, ...(toJson(notificationV1.SendTestNotificationResponseSchema, response) as JsonObject) });
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

export const channelCommands: Record<string, Command> = {
  'channels add': channelsAdd,
  'channels list': channelsList,
  'channels get': channelsGet,
  'channels update': channelsUpdate,
  'channels delete': channelsDelete,
  'channels test': channelsTest,
};
