import type { DestinationPolicy } from '../domain/destinations.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import { AppError } from '../errors.ts';
import { createMailer, type Mailer } from './mail.ts';

export interface OutboundOptions {
  /** The service's own mail relay (STATUSDESK_SMTP_URL): subscriber mail, and email channels without their own. */
  smtpUrl?: string;
  /** Sender of the service's mail (STATUSDESK_MAIL_FROM). */
  mailFrom?: string;
  /** Where mail relays and webhooks may be reached; absent: anywhere. */
  destinations?: DestinationPolicy;
}

export const DEFAULT_MAIL_FROM = 'Statusdesk <statusdesk@localhost>';

/** Why a desktop channel's alert was not shown. */
export const NO_DESKTOP_APP = 'no Statusdesk desktop app is running to show it';

/**
 * The connections notifications leave by: pooled SMTP connections, one pool per relay, and the
 * listeners of desktop alerts: the desktop app's service host, which hands them to the app to
 * show natively.
 */
export function createOutbound(options: OutboundOptions) {
  const mailers = new Map<string, Mailer>();
  const desktopListeners = new Set<(event: AlertEvent) => void>();
  return {
    mailFrom: options.mailFrom || DEFAULT_MAIL_FROM,
    hasMailRelay: Boolean(options.smtpUrl),
    destinations: options.destinations,
    /** The relay at `smtpUrl`, or the service's own when none is given. */
    mailer(smtpUrl?: string): Mailer {
      const url = smtpUrl ?? options.smtpUrl;
      if (!url) {
        throw new AppError(
          'PRECONDITION_FAILED',
          'no mail server is configured: set STATUSDESK_SMTP_URL (e.g. smtp://user:password@smtp.example.com:587) or give the email channel an smtpUrl',
        );
      }
      let mailer = mailers.get(url);
      if (!mailer) {
        mailer = createMailer(url, options.destinations);
        mailers.set(url, mailer);
      }
      return mailer;
    },
    /**
     * Hands a desktop channel's alert to the desktop app. Throws when no app listens, or when none
     * took it, so the alert records that nothing was shown instead of a delivery.
     */
    desktop(event: AlertEvent): void {
      if (desktopListeners.size === 0) throw new AppError('PRECONDITION_FAILED', NO_DESKTOP_APP);
      let failure: unknown;
      let handed = false;
      for (const listener of desktopListeners) {
        try {
          listener(event);
          handed = true;
        } catch (error) {
          failure = error;
        }
      }
      if (!handed) throw failure;
    },
    /**
     * Listens for alerts of desktop channels; returns the function that stops listening. A
     * listener throws when it could not hand the alert on.
     */
    onDesktopAlert(listener: (event: AlertEvent) => void): () => void {
      desktopListeners.add(listener);
      return () => desktopListeners.delete(listener);
    },
    close(): void {
      for (const mailer of mailers.values()) mailer.close();
      mailers.clear();
    },
  };
}
