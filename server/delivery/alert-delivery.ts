import type { ChannelTarget } from '../domain/notifications/channel-rules.ts';
import type { ReceiverAnswer } from '../domain/notifications/delivery-log.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import type { AlertDeliveryDeps } from './channels/channel.ts';
import { sendAlert } from './channels/registry.ts';
import { keepingAnswers } from './http-post.ts';

/**
 * Sends one monitor alert to one channel, in the channel's own format (each kind's file of
 * channels/). One attempt: a failure rejects, and the caller records and reports it. The
 * receiver's last HTTP answer (status and the start of its body) is what it resolves with, or
 * the rejection's `answer`, for the channel's delivery log; a kind that speaks no HTTP (email,
 * desktop) has none.
 */

export type { AlertDeliveryDeps };
export { DISCORD_COLOR } from './channels/discord.ts';

export async function deliverAlert(target: ChannelTarget, event: AlertEvent, deps: AlertDeliveryDeps): Promise<ReceiverAnswer | undefined> {
  const { answers, done } = keepingAnswers(async () => sendAlert(target, event, deps));
  try {
    await done;
  } catch (error) {
    const answer = answers.at(-1);
    if (answer && error instanceof Error) Object.assign(error, { answer });
    throw error;
  }
  return answers.at(-1);
}
