import type { MessageInitShape } from '@bufbuild/protobuf';
import type { notificationV1 } from '../../client/index.ts';
import { channelWords } from '../rpc/page-codec.ts';
import { confirmed, yes } from './confirm.ts';
import { fieldFlags } from './field-flags.ts';
import {
  address,
  type Command,
  connection,
  int32,
  list,
  note,
  oneOf,
  type Options,
  pairs,
  printFields,
  rejectFlags,
  required,
  str,
  type Values,
} from './flags.ts';
import { client } from './service-client.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk channels ...`: where monitor alerts go, through the client library
 * (notification.v1), shown in the words of page-codec.ts (channelWords). Credentials go in and
 * never come back: the service answers with them masked.
 */

type ChannelConfig = MessageInitShape<typeof notificationV1.CreateNotificationChannelRequestSchema>['config'];
type Shown = ReturnType<typeof channelWords>;

const kinds = ['webhook', 'slack', 'discord', 'email', 'ntfy', 'desktop'] as const;
type Kind = (typeof kinds)[number];

const webhookUrl = { 'webhook-url': { type: 'string', valueName: 'URL', description: 'the webhook the alerts are posted to (webhook, slack, discord)' } } as const satisfies Options;
const kindFlags = {
  webhook: {
    ...webhookUrl,
    secret: { type: 'string', valueName: 'SECRET', description: 'the key each alert is signed with (webhook)' },
    header: { type: 'string', multiple: true, valueName: 'k=v', description: 'a header sent with each alert (webhook)' },
  },
  slack: webhookUrl,
  discord: webhookUrl,
  email: {
    to: { type: 'string', multiple: true, valueName: 'ADDRESS', description: 'a recipient (email)' },
    from: { type: 'string', valueName: 'ADDRESS', description: "the sender (email; default: the service's STATUSDESK_MAIL_FROM)" },
    'smtp-url': { type: 'string', valueName: 'URL', description: "the mail server (email; default: the service's STATUSDESK_SMTP_URL)" },
  },
  ntfy: {
    topic: { type: 'string', valueName: 'TOPIC', description: 'the topic (ntfy)' },
    server: { type: 'string', valueName: 'URL', description: 'the ntfy server (ntfy; default https://ntfy.sh)' },
    priority: { type: 'string', valueName: '1-5', description: 'the priority of each alert (ntfy)' },
    token: { type: 'string', valueName: 'TOKEN', description: 'an access token (ntfy)' },
  },
  desktop: {},
} as const satisfies Record<Kind, Options>;
const allKindFlags = Object.assign({}, ...Object.values(kindFlags)) as Options;

/** The flags a kind needs on `add`. */
const requiredFlags: Record<Kind, string[]> = { webhook: ['webhook-url', 'secret'], slack: ['webhook-url'], discord: ['webhook-url'], email: ['to'], ntfy: ['topic'], desktop: [] };

const kindFlagsUsage =
  '(webhook: --webhook-url U --secret S [--header k=v]...) (slack, discord: --webhook-url U) (email: --to A... [--from F] [--smtp-url U]) (ntfy: --topic T [--server U] [--priority 1-5] [--token T])';

/** The service's field paths of a channel and the flags that give them. */
const channelFields = fieldFlags({
  name: '--name',
  monitorIds: '--monitor',
  'webhook.url': '--webhook-url',
  'webhook.secret': '--secret',
  'webhook.headers': '--header',
  'slack.webhookUrl': '--webhook-url',
  'discord.webhookUrl': '--webhook-url',
  'email.to': '--to',
  'email.from': '--from',
  'email.smtpUrl': '--smtp-url',
  'ntfy.topic': '--topic',
  'ntfy.server': '--server',
  'ntfy.priority': '--priority',
  'ntfy.token': '--token',
});

/** Whether any flag of the kind was given. */
const hasKindFlags = (kind: Kind, values: Values) => Object.keys(kindFlags[kind]).some((flag) => values[flag] !== undefined);

/** The kind's settings from the flags given; a credential left out is empty, which an update reads as "keep". */
function configOf(kind: Kind, values: Values): ChannelConfig {
  switch (kind) {
    case 'webhook':
      return { case: 'webhook', value: { url: str(values, 'webhook-url') ?? '', secret: str(values, 'secret') ?? '', headers: pairs('header', list(values, 'header')) } };
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

/** The kind's settings as rows, by the names of their flags; credentials as the service masked them. */
function settingRows(c: Shown): [string, string | undefined][] {
  const rows: [string, string | undefined][] = [];
  if (c.webhookUrl !== undefined) rows.push(['webhook url', c.webhookUrl]);
  if (c.secret !== undefined) rows.push(['secret', c.secret], ['headers', entries(c.headers ?? {})]);
  if (c.to !== undefined) rows.push(['to', c.to.join(',')], ['from', c.from ?? "(the service's STATUSDESK_MAIL_FROM)"], ['smtp url', c.smtpUrl ?? "(the service's STATUSDESK_SMTP_URL)"]);
  if (c.topic !== undefined) rows.push(['server', c.server], ['topic', c.topic], ['priority', c.priority == null ? undefined : String(c.priority)], ['token', c.token ?? undefined]);
  return rows;
}

/** Where the channel sends, for a list. */
function targetOf(c: Shown): string | undefined {
  if (c.webhookUrl !== undefined) return c.webhookUrl;
  if (c.to !== undefined) return c.to.join(',');
  if (c.topic !== undefined) return `${(c.server ?? '').replace(/\/+$/, '')}/${c.topic}`;
  return undefined;
}

function printChannel(channel: Shown): void {
  printFields([
    ['id', channel.id],
    ['name', channel.name],
    ['kind', channel.kind],
    ['monitors', channel.monitorIds.join(',') || '(none)'],
    ...settingRows(channel),
    ['created', channel.createdAt],
    ['updated', channel.updatedAt],
  ]);
}

/** A channel as --json prints it, or else as a FIELD/VALUE table. */
function showChannel(values: Values, channel: notificationV1.NotificationChannel): void {
  const shown = channelWords(channel);
  if (values.json) return printJson(shown);
  printChannel(shown);
}

/** A webhook has a URL of its own: there `--url` could be either, so it is refused. */
function refuseAmbiguousUrl(kind: Kind, values: Values): void {
  if (kind === 'webhook' && values.url !== undefined) {
    throw new UsageError("--url is ambiguous for a webhook channel: give the webhook's address as --webhook-url, and the service as --api-url");
  }
}

const common = {
  name: { type: 'string', valueName: 'NAME', description: 'what the channel is called' },
  monitor: { type: 'string', multiple: true, valueName: 'ID', description: 'a monitor whose alerts it receives' },
} as const satisfies Options;

const channelsAdd: Command = {
  usage: `channels add --name N --kind webhook|slack|discord|email|ntfy|desktop [--monitor ID]... ${kindFlagsUsage} [--api-url URL] [--json]`,
  summary: 'add a channel that monitor alerts are sent to',
  options: { ...connection, ...common, kind: { type: 'string', valueName: kinds.join('|'), description: 'where the alerts go' }, ...allKindFlags },
  fields: channelFields,
  async run(values) {
    const kind = oneOf('kind', required(values, 'kind'), kinds);
    refuseAmbiguousUrl(kind, values);
    rejectFlags(values, [...Object.keys(connection), ...Object.keys(common), 'kind', ...Object.keys(kindFlags[kind])], `${kind} channels`);
    const name = required(values, 'name');
    for (const flag of requiredFlags[kind]) {
      const value = values[flag];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) throw new UsageError(`--${flag} is required for ${kind} channels`);
    }
    const { channel } = await client(values).notifications.createNotificationChannel({
      name,
      monitorIds: list(values, 'monitor'),
      config: configOf(kind, values),
    });
    showChannel(values, channel!);
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
      ['ID', 'NAME', 'KIND', 'TARGET', 'MONITORS', 'CREATED'],
      channels.map((c) => [c.id, c.name, c.kind, targetOf(c), c.monitorIds.join(',') || undefined, c.createdAt]),
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
  usage: `channels update ID [--name N] [--monitor ID]... [--clear-monitors] [the flags of add for the channel's kind] [--api-url URL] [--json]   (a credential not given keeps its value)`,
  summary: 'change an alert channel; a credential not given keeps its value',
  options: { ...connection, ...common, 'clear-monitors': { type: 'boolean', description: 'no monitor sends alerts to it' }, ...allKindFlags },
  positionals: 1,
  fields: channelFields,
  async run(values, [id]) {
    const api = client(values);
    const { channel: stored } = await api.notifications.getNotificationChannel({ id: id! });
    const kind = oneOf('kind', stored!.kind, kinds);
    refuseAmbiguousUrl(kind, values);
    rejectFlags(values, [...Object.keys(connection), 'clear-monitors', ...Object.keys(common), ...Object.keys(kindFlags[kind])], `${kind} channels`);
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
    showChannel(values, channel!);
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

export const channelCommands: Record<string, Command> = {
  'channels add': channelsAdd,
  'channels list': channelsList,
  'channels get': channelsGet,
  'channels update': channelsUpdate,
  'channels delete': channelsDelete,
  'channels test': channelsTest,
};
