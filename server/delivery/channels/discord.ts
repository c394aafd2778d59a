import type { AlertEvent } from '../../domain/notifications/events.ts';
import { httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertContent, alertFacts } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';

/** Embed colours: red, green, amber, and purple for tools changed. */
export const DISCORD_COLOR: Record<AlertEvent['kind'], number> = { down: 0xd93025, recovered: 0x1e8e3e, degraded: 0xf29900, tool_drift: 0x8e24aa };

/** Discord markdown: a backslash makes each formatting character literal. */
const discordEscape = (text: string) => text.replace(/[\\*_~`|>[\]]/g, '\\$&');

function discordMessage(event: AlertEvent, subject: string) {
  const description = [
    discordEscape(event.message),
    '',
    // The message is the first line; the facts after it, but for the monitor, which the title names.
    ...alertFacts(event)
      .filter(([label]) => label !== 'What happened' && label !== 'Monitor' && label !== 'When')
      .map(([label, value]) => `**${label}:** ${discordEscape(value)}`),
  ].join('\n');
  return {
    embeds: [
      {
        title: truncate(subject, 256),
        description: truncate(description, 4096),
        color: DISCORD_COLOR[event.kind],
        timestamp: event.at,
        // The title links to the monitor in the dashboard, where the service knows its address.
        ...(event.link && { url: event.link }),
      },
    ],
    // Nothing in an alert may ping anyone.
    allowed_mentions: { parse: [] },
  };
}

/** An embed in a Discord channel, through a webhook. */
export const discord = defineChannel({
  kind: 'discord',
  title: 'Discord',
  ui: { label: 'Discord', hint: 'A webhook of a channel' },
  fields: () => ({
    // Whoever has the URL can post: it is a credential.
    webhookUrl: {
      schema: httpUrl('a Discord webhook URL, https://discord.com/api/webhooks/...'),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'Webhook URL', placeholder: 'https://discord.com/api/webhooks/…', input: 'url' },
      docs: { rules: 'a Discord webhook URL, `https://discord.com/api/webhooks/...`' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    '`POST <webhookUrl>` with `{"embeds": [{"title", "description", "color", "timestamp"}], "allowed_mentions": {"parse": []}}`. The colour is red for `down`, green for `recovered`, amber for `degraded`; nothing in an alert mentions anyone.',
  send({ webhookUrl }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, discordMessage(event, alertContent(event).subject), { timeoutMs, destinations });
  },
  example: { webhookUrl: 'https://discord.com/api/webhooks/1/x' },
});
