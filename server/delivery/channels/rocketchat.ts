import type { AlertEvent } from '../../domain/notifications/events.ts';
import { httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { defineChannel } from './channel.ts';
import { ALERT_EMOJI, alertColor, chatFacts, chatHeadline, chatMarkdown, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** The facts that stand on a line of their own; the rest are short, two to a row. */
const LONG_FACTS = new Set(['Monitor', 'Target', 'What happened']);

/**
 * The headline as the message's text (bold is `*…*` in Rocket.Chat) and an attachment with the
 * colour of the event, a field per fact, and the dashboard's link on its title. Everything the
 * alert says is escaped Markdown with `@` defused, so no monitor name or message can form a link
 * or mention `@all` or `@here`.
 */
function rocketChatMessage(event: AlertEvent) {
  const link = webAddress(event.link);
  const headline = chatMarkdown(chatHeadline(event));
  return {
    text: `${ALERT_EMOJI[event.kind]} *${headline}*`,
    attachments: [
      {
        title: chatHeadline(event),
        ...(link ? { title_link: link } : {}),
        color: alertColor(event.kind),
        fields: chatFacts(event).map(([title, value]) => ({ short: !LONG_FACTS.has(title), title, value: chatMarkdown(value) })),
      },
    ],
  };
}

/** Rocket.Chat's words for a refusal: `{"success": false, "error": "Invalid integration id or token provided."}`. */
const rocketChatReason = (body: any): string | undefined => (typeof body?.error === 'string' && body.error ? body.error : undefined);

/** A message in a Rocket.Chat channel, through an incoming webhook integration. */
export const rocketchat = defineChannel({
  kind: 'rocketchat',
  title: 'Rocket.Chat',
  ui: { label: 'Rocket.Chat', hint: 'A message through an incoming webhook' },
  fields: () => ({
    // Its path holds the integration's token: whoever has the URL can post.
    webhookUrl: {
      schema: httpUrl('a Rocket.Chat incoming-webhook URL, https://chat.example.com/hooks/...'),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'Webhook URL', placeholder: 'https://chat.example.com/hooks/…/…', input: 'url' },
      docs: { rules: 'a Rocket.Chat incoming-webhook URL, `https://<server>/hooks/<integration id>/<token>`.' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    '`POST <webhookUrl>` with `{"text", "attachments": [{"title", "title_link", "color", "fields": [{"short", "title", "value"}]}]}`, `title_link` the dashboard\'s link when the alert has one. Markdown in monitor names and messages is escaped and `@` cannot mention anyone.',
  send({ webhookUrl }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, rocketChatMessage(event), { timeoutMs, destinations, refusal: refusalOf('Rocket.Chat', rocketChatReason) });
  },
  example: { webhookUrl: 'https://chat.example.com/hooks/abc/xyz' },
});
