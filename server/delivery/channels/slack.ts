import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertContent, alertFacts } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';

const SLACK_ICON: Record<AlertEvent['kind'], string> = {
  down: ':red_circle:',
  recovered: ':large_green_circle:',
  degraded: ':large_yellow_circle:',
  tool_drift: ':mag:',
};

/** Slack mrkdwn: &, < and > are control characters (links, mentions) and must be escaped. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function slackMessage(event: AlertEvent, subject: string) {
  const lines = [
    `${SLACK_ICON[event.kind]} *${slackEscape(alertHeadline(event))}*${event.test ? ' (test)' : ''}`,
    ...alertFacts(event).map(([label, value]) => `*${label}:* ${slackEscape(value)}`),
    // Slack's own link syntax; the address is escaped like any text, so it cannot close the link.
    ...(event.link ? [`<${slackEscape(event.link)}|Open in Statusdesk>`] : []),
  ];
  return {
    text: slackEscape(`${subject}: ${event.message}`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(lines.join('\n'), 3000) } }],
  };
}

/** A message in a Slack channel, through an incoming webhook. */
export const slack = defineChannel({
  kind: 'slack',
  title: 'Slack',
  ui: { label: 'Slack', hint: 'An incoming webhook of a channel' },
  fields: () => ({
    // Whoever has the URL can post: it is a credential.
    webhookUrl: {
      schema: httpUrl('a Slack incoming-webhook URL, https://hooks.slack.com/services/...'),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'Webhook URL', placeholder: 'https://hooks.slack.com/services/…', input: 'url' },
      docs: { rules: 'a Slack incoming-webhook URL, `https://hooks.slack.com/services/...`' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    '`POST <webhookUrl>` with `{"text": ..., "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": ...}}]}`. `&`, `<` and `>` in monitor names and messages are escaped, so they cannot form links or mentions.',
  send({ webhookUrl }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, slackMessage(event, alertContent(event).subject), { timeoutMs, destinations });
  },
  example: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/x' },
});
