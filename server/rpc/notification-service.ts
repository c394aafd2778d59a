import type { ServiceImpl } from '@connectrpc/connect';
import type { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import type { Services } from '../services.ts';
import { callerOf } from './auth.ts';
import { configOf, inConfigField, toChannelMessage, toDeliveryMessage } from './notification-codec.ts';
import { count, list, maskedPatch, text } from './page-codec.ts';

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
        channels.create(actor, workspaceId, {
          name: text(req.name),
          kind: config?.kind,
          monitorIds: list(req.monitorIds),
          config: config?.config,
          events: list(req.events),
          allMonitors: req.allMonitors,
          defaultForNew: req.defaultForNew,
        }),
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
          events: { name: 'events', value: list(req.events), empty: [] },
          all_monitors: { name: 'allMonitors', value: req.allMonitors, empty: false },
          default_for_new: { name: 'defaultForNew', value: req.defaultForNew, empty: false },
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

    async listChannelDeliveries(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const result = await channels.deliveries(actor, workspaceId, req.id, { page: count(req.page), perPage: count(req.perPage) });
      return { deliveries: result.deliveries.map(toDeliveryMessage), pagination: result.pagination };
    },

    async setMonitorChannels(req, ctx) {
      const { actor, workspaceId } = callerOf(ctx);
      const changed = await channels.setMonitorChannels(actor, workspaceId, req.monitorId, [...req.channelIds]);
      return { changed: changed.map(toChannelMessage) };
    },
  };
}
