import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { expected, httpUrl, oneLine } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { defineChannel } from './channel.ts';
import { ALERT_EMOJI, alertColor, chatFacts, chatHeadline, chatMarkdown, DASHBOARD_LINK_TEXT, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** A channel as its URL names it (`town-square`), or `@username` for a direct message. */
const CHANNEL_NAME = /^@?[a-z0-9][a-z0-9._-]{0,63}$/;

/** The facts that stand on a line of their own; the rest are short, two to a row. */
const LONG_FACTS = new Set(['Monitor', 'Target', 'What happened']);

/**
 * The headline as the post's text (what a notification shows) and an attachment with the colour
 * of the event, a field per fact and the dashboard's link as its title. Everything the alert
 * says is escaped Markdown with `@` defused, so no monitor name or message can form a link or
 * mention `@channel`.
 */
function mattermostMessage(event: AlertEvent, channel: string | undefined, username: string | undefined) {
  const link = webAddress(event.link);
  return {
    text: `${ALERT_EMOJI[event.kind]} **${chatMarkdown(chatHeadline(event))}**`,
    ...(channel ? { channel } : {}),
    ...(username ? { username } : {}),
    attachments: [
      {
        fallback: chatHeadline(event),
        color: alertColor(event.kind),
        ...(link ? { title: DASHBOARD_LINK_TEXT, title_link: link } : {}),
        fields: chatFacts(event).map(([title, value]) => ({ short: !LONG_FACTS.has(title), title, value: chatMarkdown(value) })),
      },
    ],
  };
}

/** Mattermost's words for a refusal: `{"id": "web.incoming_webhook.invalid.app_error", "message": "Invalid webhook."}`. */
const mattermostReason = (body: any): string | undefined => (typeof body?.message === 'string' && body.message ? body.message : undefined);

/** A post in a Mattermost channel, through an incoming webhook. */
export const mattermost = defineChannel({
  kind: 'mattermost',
  title: 'Mattermost',
  ui: { label: 'Mattermost', hint: 'A post through an incoming webhook' },
  fields: () => ({
    // Whoever has the URL can post: it is a credential.
    webhookUrl: {
      schema: httpUrl('a Mattermost incoming-webhook URL, https://mattermost.example.com/hooks/...'),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'Webhook URL', placeholder: 'https://mattermost.example.com/hooks/…', input: 'url' },
      docs: { rules: 'a Mattermost incoming-webhook URL, `https://<server>/hooks/<id>`.' },
    },
    channel: {
      schema: z
        .string(expected('a channel name'))
        .trim()
        .regex(CHANNEL_NAME, 'must be a channel as its URL names it (town-square), or @username: up to 64 lower-case letters, digits, ., - or _')
        .optional(),
      flag: { name: 'channel', valueName: 'NAME', description: "another channel than the webhook's", read: 'text', default: "the webhook's channel" },
      ui: { label: 'Channel', hint: "Another channel than the webhook's, as its URL names it (town-square), or @username. Empty: the webhook's channel." },
      docs: { rules: "a channel as its URL names it, or `@username`, instead of the webhook's own (unless the webhook is locked to its channel)." },
    },
    username: {
      schema: oneLine(z.string(expected('a name')).trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters')).optional(),
      flag: { name: 'username', valueName: 'NAME', description: 'the name the posts show', read: 'text', default: "the webhook's" },
      ui: {
        label: 'Post as',
        hint: "The name the posts show, when the server lets integrations override it. Empty: the webhook's.",
        placeholder: 'Statusdesk',
      },
      docs: { rules: 'the name the posts show, up to 64 characters; the server must let integrations override user names.' },
    },
  }),
  target: (c) => (c.channel ? `${c.webhookUrl} (${c.channel})` : c.webhookUrl),
  request:
    '`POST <webhookUrl>` with `{"text", "channel", "username", "attachments": [{"fallback", "color", "title", "title_link", "fields": [{"short", "title", "value"}]}]}` (`channel` and `username` only when set). Markdown in monitor names and messages is escaped and `@` cannot mention anyone.',
  send({ webhookUrl, channel, username }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, mattermostMessage(event, channel, username), {
      timeoutMs,
      destinations,
      refusal: refusalOf('Mattermost', mattermostReason),
    });
  },
  example: { webhookUrl: 'https://mattermost.example.com/hooks/xyz', channel: 'ops-alerts', username: 'Statusdesk' },
});
