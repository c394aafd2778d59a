import { z } from 'zod';
import { expected } from '../../domain/validation.ts';
import { alertContent } from '../templates.ts';
import { defineChannel } from './channel.ts';

const MAX_RECIPIENTS = 20;

const address = () => z.email('must be an email address').max(254, 'must be at most 254 characters');

const smtpUrl = () =>
  z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return ctx.addIssue({ code: 'custom', message: 'must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465' });
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
        ctx.addIssue({ code: 'custom', message: `must use smtp:// or smtps://, not ${url.protocol}//` });
    });

/** One message to all the recipients, through the channel's mail server or the service's. */
export const email = defineChannel({
  kind: 'email',
  title: 'email',
  ui: { label: 'Email', hint: `Mail to up to ${MAX_RECIPIENTS} addresses` },
  fields: () => ({
    to: {
      schema: z
        .array(address(), expected('a list of email addresses'))
        .min(1, 'must name at least one recipient')
        .max(MAX_RECIPIENTS, `must name at most ${MAX_RECIPIENTS} recipients`),
      flag: { name: 'to', valueName: 'ADDRESS', description: 'a recipient', read: 'list' },
      ui: { label: 'To', hint: `1 to ${MAX_RECIPIENTS} addresses; they see each other.` },
      docs: { rules: `1 to ${MAX_RECIPIENTS} addresses.` },
    },
    /** Sender address; default the service's sender (its email settings, or STATUSDESK_MAIL_FROM). */
    from: {
      schema: address().optional(),
      flag: {
        name: 'from',
        valueName: 'ADDRESS',
        description: 'the sender',
        read: 'text',
        default: "the service's sender (email settings or STATUSDESK_MAIL_FROM)",
      },
      ui: { label: 'From', hint: "Empty: the service's sender." },
      docs: { rules: "the sender; default the service's (see [Mail server](#mail-server))." },
    },
    /** Without an SMTP URL the service's own is used (its email settings, or STATUSDESK_SMTP_URL). */
    smtpUrl: {
      schema: smtpUrl().optional(),
      credential: true,
      address: true,
      flag: {
        name: 'smtp-url',
        valueName: 'URL',
        description: 'the mail server',
        read: 'text',
        default: "the service's mail server (email settings or STATUSDESK_SMTP_URL)",
      },
      ui: {
        label: 'Mail server',
        hint: "An smtp:// or smtps:// URL. Empty: the service's mail server.",
        placeholder: 'smtps://user:password@smtp.example.com:465',
      },
      docs: {
        rules:
          "an `smtp://` or `smtps://` URL of the mail server to send through; default the service's, saved in its email settings or set by `STATUSDESK_SMTP_URL` (see [Mail server](#mail-server)).",
      },
    },
  }),
  target: (c) => c.to.join(','),
  request:
    'one message to all the `to` addresses (they see each other in `To`), with a plain-text and an HTML part. Subject: `[Down] api.example.com (monitor 12)`, `[Recovered] …`, `[Degraded] …`.',
  send({ to, from, smtpUrl }, event, deps) {
    return deps.mailer(smtpUrl).send({ from: from ?? deps.mailFrom, to, ...alertContent(event) });
  },
  example: { to: ['ops@example.com'], from: 'alerts@example.com', smtpUrl: 'smtps://user:pass@smtp.example.com:465' },
});
