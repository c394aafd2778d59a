import { create, type MessageInitShape } from '@bufbuild/protobuf';
import {
  type ChannelDelivery as ChannelDeliveryMessage,
  ChannelDeliverySchema,
  type CreateNotificationChannelRequest,
  type NotificationChannel as NotificationChannelMessage,
  NotificationChannelSchema,
} from '../../proto/gen/notification/v1/notification_pb.js';
import type { Channel } from '../domain/notifications/channels.ts';
import type { ChannelDelivery } from '../domain/notifications/delivery-log.ts';
import { AppError } from '../errors.ts';
import { configWords, domainConfig, wireConfig } from './channel-config.ts';
import { isoOf } from './monitor-codec.ts';
import { timestamp } from './page-codec.ts';

/**
 * The codec of notification.v1: a wire config to the domain's kind and fields, a channel to its
 * message, and its message in the words of the flags and MCP. No rules here.
 */

/** The `config` oneof, the same in the create and update requests and in the channel. */
type WireConfig = CreateNotificationChannelRequest['config'];

/**
 * The kind and fields of a wire config, camelCased as the domain names them. Plain strings,
 * lists and maps that are empty are left out: on create the domain then fills its default or
 * names the missing field; on update a field left out keeps its stored value (credentials
 * included, since clients only ever see them masked). Optional fields pass on when present.
 */
export function configOf(config: WireConfig): { kind: string; config: Record<string, unknown> } | undefined {
  return domainConfig(config);
}

/** The wire config of a channel; the domain has already masked its credentials. */
function channelConfig(channel: Channel): MessageInitShape<typeof NotificationChannelSchema>['config'] {
  return wireConfig(channel.kind, channel.config) as MessageInitShape<typeof NotificationChannelSchema>['config'];
}

export function toChannelMessage(channel: Channel): NotificationChannelMessage {
  return create(NotificationChannelSchema, {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    monitorIds: channel.monitorIds,
    config: channelConfig(channel),
    createdAt: timestamp(channel.createdAt),
    updatedAt: timestamp(channel.updatedAt),
    events: channel.events,
    allMonitors: channel.allMonitors,
    defaultForNew: channel.defaultForNew,
    health: {
      failures: channel.health.failures,
      lastError: channel.health.lastError ?? '',
      lastFailedAt: channel.health.lastFailedAt === null ? undefined : timestamp(channel.health.lastFailedAt),
      lastSentAt: channel.health.lastSentAt === null ? undefined : timestamp(channel.health.lastSentAt),
      backoffUntil: channel.health.backoffUntil === null ? undefined : timestamp(channel.health.backoffUntil),
    },
  });
}

/**
 * Runs a create or update, reporting refused config fields by their path in the request
 * (`slack.webhookUrl`, not `config.webhookUrl`).
 */
export async function inConfigField<T>(kind: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (kind === undefined || !(error instanceof AppError) || error.code !== 'VALIDATION') throw error;
    const violations = error.violations.map((v) => ({
      field: v.field.startsWith('config.') ? `${kind}.${v.field.slice('config.'.length)}` : v.field,
      rule: v.rule,
    }));
    throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
  }
}

/** A channel's settings by the names of their flags; credentials as the service masked them. */
function channelSettings(config: NotificationChannelMessage['config']) {
  return configWords(config);
}

/** A channel in the words of the flags and MCP (see page-codec.ts). */
export const channelWords = (c: NotificationChannelMessage) => ({
  id: c.id,
  name: c.name,
  kind: c.kind,
  monitorIds: [...c.monitorIds],
  ...channelSettings(c.config),
  events: [...c.events],
  allMonitors: c.allMonitors,
  defaultForNew: c.defaultForNew,
  health: {
    failures: c.health?.failures ?? 0,
    lastError: c.health?.lastError || null,
    lastFailedAt: isoOf(c.health?.lastFailedAt),
    lastSentAt: isoOf(c.health?.lastSentAt),
    backoffUntil: isoOf(c.health?.backoffUntil),
  },
  createdAt: isoOf(c.createdAt),
  updatedAt: isoOf(c.updatedAt),
});

export function toDeliveryMessage(delivery: ChannelDelivery): ChannelDeliveryMessage {
  return create(ChannelDeliverySchema, {
    id: delivery.id,
    at: timestamp(delivery.at),
    event: delivery.event,
    monitorId: delivery.monitorId ?? '',
    monitorName: delivery.monitorName,
    result: delivery.result,
    statusCode: delivery.statusCode ?? undefined,
    response: delivery.response ?? '',
    error: delivery.error ?? '',
    attempts: delivery.attempts,
  });
}

/** An entry of a channel's delivery log in the words of the CLI and MCP. */
export const deliveryWords = (d: ChannelDeliveryMessage) => ({
  id: d.id,
  at: isoOf(d.at),
  event: d.event,
  monitorId: d.monitorId || null,
  monitorName: d.monitorName,
  result: d.result,
  statusCode: d.statusCode ?? null,
  response: d.response || null,
  error: d.error || null,
  attempts: d.attempts,
});
