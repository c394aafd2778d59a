import type { ChannelTarget } from '../domain/notifications/channel-rules.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import type { AlertDeliveryDeps } from './channels/channel.ts';
import { sendAlert } from './channels/registry.ts';

/**
 * Sends one monitor alert to one channel, in the channel's own format (each kind's file of
 * channels/). One attempt: a failure rejects, and the caller records and reports it.
 */

export type { AlertDeliveryDeps };
export { DISCORD_COLOR } from './channels/discord.ts';

export function deliverAlert(target: ChannelTarget, event: AlertEvent, deps: AlertDeliveryDeps): Promise<void> {
  return sendAlert(target, event, deps);
}
