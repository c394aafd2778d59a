import type { DestinationPolicy } from '../domain/destinations.ts';
import type { PageEvent, PageRef } from '../domain/notifications/events.ts';
import type { SubscriberDelivery, SubscriberAddress } from '../domain/notifications/subscribers.ts';
import { postJson } from './http-post.ts';
import type { Mailer } from './mail.ts';
import { createFanOut, type FanOutOptions } from './subscriber-fanout.ts';
import { confirmationContent, pageEventContent } from './templates.ts';

/**
 * Tells page subscribers: the mail that confirms a sign-up, and each page event as mail (with a
 * one-click unsubscribe) or as signed JSON, to every subscriber of a dispatch through the fan-out
 * (subscriber-fanout.ts). One attempt each: a failure is recorded on the subscriber and reported.
 */

export interface SubscriberDeliveryDeps {
  /** The service's own mail relay; throws when there is none. */
  mailer(): Mailer;
  /** Sender of the service's mail. */
  mailFrom: string;
  /** Whether the service has a mail relay, as last known. */
  hasMailRelay: boolean;
  /** Whether the service has a mail relay, its stored settings read now. */
  emailAvailable(): Promise<boolean>;
  /** Where webhooks may be reached; absent: anywhere. */
  destinations?: DestinationPolicy;
}

const webhookEvents: Record<PageEvent['kind'], string> = {
  'report.created': 'status_report.created',
  'report.updated': 'status_report.updated',
  'report.resolved': 'status_report.resolved',
  'maintenance.scheduled': 'maintenance.scheduled',
};

/** `webhookTimeoutMs`: how long one webhook POST may take; postJson's default otherwise. `deadlineMs` and `log`: the fan-out's. */
export function createSubscriberDelivery(deps: SubscriberDeliveryDeps, options: { webhookTimeoutMs?: number } & FanOutOptions = {}): SubscriberDelivery {
  async function pageEvent(to: SubscriberAddress, event: PageEvent): Promise<void> {
    if (to.kind === 'webhook') {
      const { kind, ...rest } = event;
      await postJson(
        to.url,
        { event: webhookEvents[kind], ...rest },
        { secret: to.secret, event: webhookEvents[kind], timeoutMs: options.webhookTimeoutMs, destinations: deps.destinations },
      );
      return;
    }
    await deps.mailer().send({
      from: deps.mailFrom,
      to: [to.address],
      ...pageEventContent(event, { unsubscribeUrl: to.unsubscribeUrl }),
      // RFC 8058: mail clients offer their own unsubscribe button, which POSTs to this address.
      headers: { 'List-Unsubscribe': `<${to.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }

  return {
    get canMail() {
      return deps.hasMailRelay;
    },
    mailAvailable: () => deps.emailAvailable(),

    async confirmation(address: string, page: PageRef, confirmUrl: string): Promise<void> {
      await deps.mailer().send({ from: deps.mailFrom, to: [address], ...confirmationContent(page, confirmUrl) });
    },

    ...createFanOut(pageEvent, options),
  };
}
