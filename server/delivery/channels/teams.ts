import type { AlertEvent } from '../../domain/notifications/events.ts';
import { httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { escapeMarkdown } from '../templates.ts';
import { defineChannel } from './channel.ts';
import { ALERT_EMOJI, chatFacts, chatHeadline, DASHBOARD_LINK_TEXT, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** The Adaptive Card colour of each kind's headline. */
const CARD_COLOR: Record<AlertEvent['kind'], string> = { down: 'Attention', recovered: 'Good', degraded: 'Warning', tool_drift: 'Accent' };

/**
 * The message a Workflows webhook takes: one Adaptive Card (1.4, as Teams renders it). A
 * TextBlock's text and a fact's title and value are Markdown in Teams, so every text of the alert
 * is escaped (a backslash before each punctuation character): no monitor name or message can
 * form a link or emphasis. The dashboard's link is the card's action.
 */
function teamsMessage(event: AlertEvent) {
  const link = webAddress(event.link);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              text: `${ALERT_EMOJI[event.kind]} ${escapeMarkdown(chatHeadline(event))}`,
              size: 'Medium',
              weight: 'Bolder',
              color: CARD_COLOR[event.kind],
              wrap: true,
            },
            { type: 'FactSet', facts: chatFacts(event).map(([title, value]) => ({ title, value: escapeMarkdown(value) })) },
          ],
          ...(link ? { actions: [{ type: 'Action.OpenUrl', title: DASHBOARD_LINK_TEXT, url: link }] } : {}),
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}

/** A workflow's words for a refusal: `{"error": {"code": "...", "message": "..."}}`. */
const teamsReason = (body: any): string | undefined => {
  const error = body?.error;
  if (!error || typeof error !== 'object') return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const words = [typeof code === 'string' ? code : '', typeof message === 'string' ? message : ''].filter(Boolean);
  return words.length > 0 ? words.join(': ') : undefined;
};

/** An Adaptive Card in a Microsoft Teams channel or chat, through a Workflows webhook. */
export const teams = defineChannel({
  kind: 'teams',
  title: 'Microsoft Teams',
  ui: { label: 'Microsoft Teams', hint: 'A card through a Workflows webhook' },
  fields: () => ({
    // Whoever has the URL can post (its `sig` parameter signs it): it is a credential.
    webhookUrl: {
      schema: httpUrl('the URL of a Teams workflow "When a Teams webhook request is received"'),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: {
        label: 'Workflow URL',
        hint: 'The URL of a workflow that starts "When a Teams webhook request is received" and posts the card to a channel or chat.',
        placeholder: 'https://….logic.azure.com/workflows/…',
        input: 'url',
      },
      docs: { rules: 'the HTTP URL of a Teams workflow that starts with "When a Teams webhook request is received".' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    '`POST <webhookUrl>` with `{"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": <AdaptiveCard 1.4>}]}`: a TextBlock headline in the colour of the event, a FactSet of the facts, and an `Action.OpenUrl` to the dashboard when the alert has its link. Monitor names and messages are Markdown-escaped, so they cannot form links.',
  send({ webhookUrl }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, teamsMessage(event), { timeoutMs, destinations, refusal: refusalOf('Microsoft Teams', teamsReason) });
  },
  example: { webhookUrl: 'https://prod-00.westeurope.logic.azure.com/workflows/0/triggers/manual/paths/invoke?sig=x' },
});
