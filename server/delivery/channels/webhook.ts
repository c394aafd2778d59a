import { z } from 'zod';
import { eventNameOf } from '../../domain/notifications/events.ts';
import { expected, httpHeaders, httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { defineChannel } from './channel.ts';

/** A signing secret's length: long enough that it cannot be guessed. */
const SECRET_LENGTH = { min: 16, max: 256 };
const signingSecret = () =>
  z
    .string(expected(`a signing secret of at least ${SECRET_LENGTH.min} characters, which the receiver uses to verify x-statusdesk-signature`))
    .min(SECRET_LENGTH.min, `must be at least ${SECRET_LENGTH.min} characters`)
    .max(SECRET_LENGTH.max, `must be at most ${SECRET_LENGTH.max} characters`);

/** Posts each alert as JSON, signed with the channel's secret. */
export const webhook = defineChannel({
  kind: 'webhook',
  title: 'webhook',
  ui: { label: 'Webhook', hint: 'A signed JSON POST to your address' },
  fields: () => ({
    url: {
      schema: httpUrl('the address that receives the JSON alert'),
      credential: true,
      address: true,
      word: 'webhookUrl',
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: {
        label: 'URL',
        hint: 'The http:// or https:// address that receives each alert as JSON.',
        placeholder: 'https://example.com/hooks/statusdesk',
        input: 'url',
      },
      docs: { rules: 'the `http://` or `https://` address that receives the alert.' },
    },
    /** HMAC-SHA256 key of the `x-statusdesk-signature` header, given to the receiver's owner (the dashboard and `--generate-secret` make one). */
    secret: {
      schema: signingSecret(),
      credential: true,
      flag: { name: 'secret', valueName: 'SECRET', description: 'the key each alert is signed with', read: 'text' },
      ui: {
        label: 'Signing secret',
        hint: `Generate one, or paste your own of ${SECRET_LENGTH.min} to ${SECRET_LENGTH.max} characters: the key of the x-statusdesk-signature header your receiver checks.`,
        input: 'secret',
      },
      docs: {
        rules:
          '16 to 256 characters, the key of the `x-statusdesk-signature` header, given to whoever runs the receiver; the dashboard and `statusdesk channels add --generate-secret` generate one (see [Signing secrets](#signing-secrets)).',
      },
    },
    headers: {
      schema: httpHeaders().default({}),
      credential: true,
      flag: { name: 'header', valueName: 'k=v', description: 'a header sent with each alert', read: 'pairs' },
      ui: { label: 'Headers', hint: 'Sent with each alert, e.g. an authorization header.', placeholder: 'authorization: Bearer …' },
      docs: { rules: 'extra request headers, for example an `authorization` header.' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    "`POST <url>` with the JSON body below, `x-statusdesk-event: monitor.<kind>` (`test` for a test send), the signature header and the channel's `headers`",
  send({ url, secret, headers }, event, { timeoutMs, destinations }) {
    // A test send is the `test` event, whatever alert it shows, so a receiver never takes it for an outage.
    const name = eventNameOf(event);
    return postJson(url, { event: name, ...event }, { secret, headers, event: name, timeoutMs, destinations });
  },
  example: { url: 'https://hooks.example.com/statusdesk', secret: 'a-secret-of-32-characters-at-ls', headers: { authorization: 'Bearer x' } },
});
