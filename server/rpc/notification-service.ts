import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  type CreateNotificationChannelRequest,
  type NotificationChannel as NotificationChannelMessage,
  NotificationChannelSchema,
  NotificationService,
} from '../../proto/gen/notification/v1/notification_pb.js';
import type { Channel } from '../domain/notifications/channels.ts';
import type { Services } from '../services.ts';
import { AppError } from '../errors.ts';
import { callerOf } from './auth.ts';
import { count, list, maskedPatch, text, timestamp } from './page-codec.ts';

/** The `config` oneof, the same in the create and update requests and in the channel. */
type WireConfig = CreateNotificationChannelRequest['config'];

/**
 * The kind and fields of a wire config, camelCased as the domain names them. Plain strings,
 * lists and maps that are empty are left out: on create the domain then fills its default or
 * names the missing field; on update a field left out keeps its stored value (credentials
 * included, since clients only ever see them masked). Optional fields pass on when present.
 */
function configOf(config: WireConfig): { kind: string; config: Record<string, unknown> } | undefined {
  switch (config.case) {
    case 'webhook':
      return { kind: 'webhook', config: given({ url: config.value.url, secret: config.value.secret, headers: { ...config.value.headers } }) };
    case 'slack':
      return { kind: 'slack', config: given({ webhookUrl: config.value.webhookUrl }) };
    case 'discord':
      return { kind: 'discord', config: given({ webhookUrl: config.value.webhookUrl }) };
    case 'email':
      return { kind: 'email', config: { ...given({ to: [...config.value.to] }), ...present({ from: config.value.from, smtpUrl: config.value.smtpUrl }) } };
    case 'ntfy':
      return {
        kind: 'ntfy',
        config: { ...given({ server: config.value.server, topic: config.value.topic }), ...present({ priority: config.value.priority, token: config.value.token }) },
      };
    case 'desktop':
      return { kind: 'desktop', config: {} };
    default:
      return undefined;
  }
}

/** The plain fields that are not empty (strings, lists, maps). */
function given(fields: Record<string, unknown>): Record<string, unknown> {
  const empty = (v: unknown) => v === '' || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => !empty(v)));
}

/** The optional fields that the request sets, even to the empty string. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const optionalStr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The wire config of a channel; the domain has already masked its credentials. */
function wireConfig(channel: Channel): MessageInitShape<typeof NotificationChannelSchema>['config'] {
  const c = channel.config;
  switch (channel.kind) {
    case 'webhook':
      return { case: 'webhook', value: { url: str(c.url), secret: str(c.secret), headers: (c.headers ?? {}) as Record<string, string> } };
    case 'slack':
      return { case: 'slack', value: { webhookUrl: str(c.webhookUrl) } };
    case 'discord':
      return { case: 'discord', value: { webhookUrl: str(c.webhookUrl) } };
    case 'email':
      return { case: 'email', value: { to: Array.isArray(c.to) ? c.to.map(String) : [], from: optionalStr(c.from), smtpUrl: optionalStr(c.smtpUrl) } };
    case 'ntfy':
      return {
        case: 'ntfy',
        value: { server: str(c.server), topic: str(c.topic), priority: typeof c.priority === 'number' ? c.priority : undefined, token: optionalStr(c.token) },
      };
    case 'desktop':
      return { case: 'desktop', value: {} };
  }
}

function toChannelMessage(channel: Channel): NotificationChannelMessage {
  return create(NotificationChannelSchema, {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    monitorIds: channel.monitorIds,
    config: wireConfig(channel),
    createdAt: timestamp(channel.createdAt),
    updatedAt: timestamp(channel.updatedAt),
  });
}

/**
 * Runs a create or update, reporting refused config fields by their path in the request
 * (`slack.webhookUrl`, not `config.webhookUrl`).
 */
async function inConfigField<T>(kind: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (kind === undefined || !(error instanceof AppError) || error.code !== 'VALIDATION') throw error;
    const violations = error.violations.map((v) => ({ field: v.field.startsWith('config.') ? `${kind}.${v.field.slice('config.'.length)}` : v.field, rule: v.rule }));
    throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
  }
}

/** notification.v1.NotificationService: decode, call the channel service, encode. No rules here. */
export function notificationServiceImpl(services: Services): ServiceImpl<typeof NotificationService> {
  const channels = services.channels;
  return {
    async listNotificationChannels(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await channels.list(actor, workspaceId, { page: count(req.page), perPage: count(req.perPage) });
      return { channels: result.channels.map(toChannelMessage), pagination: result.pagination };
    },

    async getNotificationChannel(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      return { channel: toChannelMessage(await channels.get(actor, workspaceId, req.id)) };
    },

    async createNotificationChannel(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const config = configOf(req.config);
      const channel = await inConfigField(config?.kind, () =>
        channels.create(actor, workspaceId, { name: text(req.name), kind: config?.kind, monitorIds: list(req.monitorIds), config: config?.config }),
      );
      return { channel: toChannelMessage(channel) };
    },

    async updateNotificationChannel(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const config = configOf(req.config);
      const patch = maskedPatch(
        {
          name: { name: 'name', value: req.name, empty: '' },
          monitor_ids: { name: 'monitorIds', value: list(req.monitorIds), empty: [] },
          // A channel always has a config: naming it without one leaves every field as stored.
          config: { name: 'config', value: config?.config, empty: {} },
        },
        req.updateMask,
      );
      const channel = await inConfigField(config?.kind, () => channels.update(actor, workspaceId, req.id, { ...patch, kind: config?.kind }));
      return { channel: toChannelMessage(channel) };
    },

    async deleteNotificationChannel(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      await channels.delete(actor, workspaceId, req.id);
      return {};
    },

    async sendTestNotification(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await channels.test(actor, workspaceId, req.id);
      return { delivered: result.delivered, error: result.error ?? '' };
    },
  };
}
