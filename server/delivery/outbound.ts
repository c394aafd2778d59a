import type { DestinationPolicy } from '../domain/destinations.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import { AppError } from '../errors.ts';
import { createMailer, type Mailer, type SmtpServer } from './mail.ts';

/** The email settings stored in the database (domain/email-settings/), the password opened; `stamp` changes with every save. */
export interface StoredRelay {
  server: SmtpServer;
  from: string;
  stamp: string;
}

export interface OutboundOptions {
  /** The service's own mail relay (STATUSDESK_SMTP_URL): subscriber mail, and email channels without their own. */
  smtpUrl?: string;
  /** Sender of the service's mail (STATUSDESK_MAIL_FROM). */
  mailFrom?: string;
  /** Where mail relays and webhooks may be reached; absent: anywhere. */
  destinations?: DestinationPolicy;
  /** Reads the stored email settings, used where the environment sets no relay (or no sender). */
  storedRelay?: () => Promise<StoredRelay | undefined>;
}

const NO_MAIL_SERVER =
  'no mail server is set up: set one in the dashboard (Settings, General, Email) or with `statusdesk settings email set`, or set STATUSDESK_SMTP_URL for the service';

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
  /** The stored settings as last read: what the synchronous answers (`hasMailRelay`, `mailFrom`) go by. */
  let stored: StoredRelay | undefined;
  /** Reads the stored settings again; a failed read (a database not yet migrated) keeps the last. */
  async function refresh(): Promise<StoredRelay | undefined> {
    if (!options.storedRelay) return undefined;
    try {
      stored = await options.storedRelay();
    } catch {
      // Kept as it was: the next send reads again.
    }
    return stored;
  }
  const pooled = (key: string, relay: string | SmtpServer) => {
    let mailer = mailers.get(key);
    if (!mailer) {
      mailer = createMailer(relay, options.destinations);
      mailers.set(key, mailer);
    }
    return mailer;
  };
  /** The service's own relay: the environment's, else the stored settings' as they are when a message goes. */
  const serviceRelay: Mailer = {
    async send(mail) {
      const relay = await refresh();
      if (!relay) throw new AppError('PRECONDITION_FAILED', NO_MAIL_SERVER);
      // A save makes a new pool (its stamp is in the key); the pool of the settings it replaced closes.
      const key = `stored:${relay.stamp}`;
      for (const [old, mailer] of mailers) {
        if (old.startsWith('stored:') && old !== key) {
          mailer.close();
          mailers.delete(old);
        }
      }
      await pooled(key, relay.server).send(mail);
    },
    close() {},
  };
  return {
    /** Sender of the service's mail: STATUSDESK_MAIL_FROM, else the stored settings' From, else the default. */
    get mailFrom(): string {
      return options.mailFrom || stored?.from || DEFAULT_MAIL_FROM;
    },
    /** Whether the service has a mail relay (the environment's, or stored settings as last read). */
    get hasMailRelay(): boolean {
      return Boolean(options.smtpUrl) || stored !== undefined;
    },
    /** Whether email can be sent, reading the stored settings now: what a form asks before it offers email. */
    async emailAvailable(): Promise<boolean> {
      if (options.smtpUrl) return true;
      return (await refresh()) !== undefined;
    },
    /** Reads the stored email settings again (at start, and after they change). */
    refresh,
    /** Whether STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM are set: they win over the stored settings. */
    environment: { smtpUrl: Boolean(options.smtpUrl), mailFrom: Boolean(options.mailFrom) },
    destinations: options.destinations,
    /** The relay at `smtpUrl`, or the service's own when none is given. */
    mailer(smtpUrl?: string): Mailer {
      const url = smtpUrl ?? options.smtpUrl;
      if (!url) return serviceRelay;
      return pooled(url, url);
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
