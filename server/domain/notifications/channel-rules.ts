import { z } from 'zod';
import { builtOnFirstUse, expected, httpHeaders, httpUrl } from '../validation.ts';

/**
 * Notification channels (SPEC 2.10): where monitor alerts go. Each kind's fields are split into
 * settings, returned as they are, and credentials, sealed at rest and returned only masked. A
 * Slack or Discord webhook URL is itself a credential: whoever has it can post.
 */

export const channelKinds = ['webhook', 'slack', 'discord', 'email', 'ntfy', 'desktop'] as const;
export type ChannelKind = (typeof channelKinds)[number];

const MAX_RECIPIENTS = 20;

/** Each kind's fields: `settings` are shown as stored, `credentials` are sealed and masked. */
function buildChannelSchemas() {
  const email = z.email('must be an email address').max(254, 'must be at most 254 characters');

  const smtpUrl = z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return ctx.addIssue({ code: 'custom', message: 'must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465' });
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') ctx.addIssue({ code: 'custom', message: `must use smtp:// or smtps://, not ${url.protocol}//` });
    });

  /** A signing secret: long enough that it cannot be guessed. */
  const signingSecret = z.string(expected('a signing secret of at least 16 characters, which the receiver uses to verify x-statusdesk-signature')).min(16, 'must be at least 16 characters').max(256, 'must be at most 256 characters');

  return {
    webhook: {
      settings: z.strictObject({}),
      credentials: z.strictObject({
        url: httpUrl('the address that receives the JSON alert'),
        /** HMAC-SHA256 key of the `x-statusdesk-signature` header, chosen by the receiver's owner. */
        secret: signingSecret,
        headers: httpHeaders().default({}),
      }),
    },
    slack: {
      settings: z.strictObject({}),
      credentials: z.strictObject({ webhookUrl: httpUrl('a Slack incoming-webhook URL, https://hooks.slack.com/services/...') }),
    },
    discord: {
      settings: z.strictObject({}),
      credentials: z.strictObject({ webhookUrl: httpUrl('a Discord webhook URL, https://discord.com/api/webhooks/...') }),
    },
    email: {
      settings: z.strictObject({
        to: z
          .array(email, expected('a list of email addresses'))
          .min(1, 'must name at least one recipient')
          .max(MAX_RECIPIENTS, `must name at most ${MAX_RECIPIENTS} recipients`),
        /** Sender address; default the service's STATUSDESK_MAIL_FROM. */
        from: email.optional(),
      }),
      /** Without an SMTP URL the service's own (STATUSDESK_SMTP_URL) is used. */
      credentials: z.strictObject({ smtpUrl: smtpUrl.optional() }),
    },
    ntfy: {
      settings: z.strictObject({
        server: httpUrl('the ntfy server, e.g. https://ntfy.sh').default('https://ntfy.sh'),
        priority: z.number().int().min(1, 'must be 1 to 5').max(5, 'must be 1 to 5').optional(),
      }),
      // On a public ntfy server the topic name is the password: whoever knows it can read and post.
      credentials: z.strictObject({
        topic: z
          .string(expected('a topic name'))
          .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _'),
        token: z.string().min(1).max(256, 'must be at most 256 characters').optional(),
      }),
    },
    /** Shown by the desktop app as a native notification. */
    desktop: {
      settings: z.strictObject({}),
      credentials: z.strictObject({}),
    },
  } as const;
}

/** Built with the first channel parsed (see builtOnFirstUse). */
export const channelSchemas = builtOnFirstUse(buildChannelSchemas);
type ChannelSchemas = ReturnType<typeof buildChannelSchemas>;

export type ChannelSettings<K extends ChannelKind> = z.output<ChannelSchemas[K]['settings']>;
export type ChannelCredentials<K extends ChannelKind> = z.output<ChannelSchemas[K]['credentials']>;

/** Credential fields of each kind, for splitting a flat input and for masking. */
export function credentialFields(kind: ChannelKind): string[] {
  return Object.keys(channelSchemas()[kind].credentials.shape);
}

/** A channel as delivery needs it: kind, settings and opened credentials. */
export type ChannelTarget = { [K in ChannelKind]: { kind: K; settings: ChannelSettings<K>; credentials: ChannelCredentials<K> } }[ChannelKind];

/**
 * A credential as the API shows it: a URL keeps its scheme and the last two labels of its host
 * (a subdomain can itself be the secret), anything else is hidden with its length; enough to
 * tell two channels apart, never enough to use one.
 */
export function maskCredential(value: unknown): unknown {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      const labels = url.hostname.split('.');
      const host = labels.length > 2 && !/^[\d.]+$/.test(url.hostname) ? `…${labels.slice(-2).join('.')}` : url.hostname;
      if (url.protocol.startsWith('http') || url.protocol.startsWith('smtp')) return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}/…`;
    } catch {
      // not a URL
    }
    return '••••••••';
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).map((k) => [k, '••••••••']));
  return value;
}
