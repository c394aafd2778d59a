import type { AlertEvent } from '../../domain/notifications/events.ts';
import { httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertContent, escapeHtml } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { ALERT_EMOJI, chatFacts, chatHeadline, DASHBOARD_LINK_TEXT, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/**
 * A card (cardsV2) with the headline as its header and a decorated text per fact. A header is
 * plain text; a decorated text's `text` is Google Chat's HTML, so every value is escaped there and
 * no monitor name or message can form a tag, a link or a mention (`<users/all>`). The dashboard's
 * link is a button. `fallbackText` is what notifications show.
 */
function googleChatMessage(event: AlertEvent) {
  const link = webAddress(event.link);
  const widgets: object[] = chatFacts(event).map(([label, value]) => ({ decoratedText: { topLabel: label, text: escapeHtml(value), wrapText: true } }));
  if (link) widgets.push({ buttonList: { buttons: [{ text: DASHBOARD_LINK_TEXT, onClick: { openLink: { url: link } } }] } });
  return {
    fallbackText: truncate(alertContent(event).subject, 1000),
    cardsV2: [
      {
        cardId: `statusdesk-${event.kind}`,
        card: {
          header: { title: `${ALERT_EMOJI[event.kind]} ${chatHeadline(event)}`, subtitle: `Statusdesk · ${truncate(event.workspace.name, 100)}` },
          sections: [{ widgets }],
        },
      },
    ],
  };
}

/** Google's words for a refusal: `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}`. */
const googleReason = (body: any): string | undefined => {
  const error = body?.error;
  if (!error || typeof error !== 'object') return undefined;
  const { status, message } = error as { status?: unknown; message?: unknown };
  const words = [typeof status === 'string' ? status : '', typeof message === 'string' ? message : ''].filter(Boolean);
  return words.length > 0 ? words.join(': ') : undefined;
};

/** An incoming webhook's URL names its space and carries its `key` and `token`: without them it cannot post. */
const webhookUrl = () =>
  httpUrl('a Google Chat webhook URL, https://chat.googleapis.com/v1/spaces/.../messages?key=...&token=...').refine((value) => {
    // A value that is no URL at all is named by httpUrl's own rule.
    const query = URL.canParse(value) ? new URL(value).searchParams : undefined;
    return !query || Boolean(query.get('key') && query.get('token'));
  }, 'must carry key= and token= in its query, as the URL Google Chat gives a webhook does');

/** A card in a Google Chat space, through an incoming webhook. */
export const googleChat = defineChannel({
  kind: 'google_chat',
  title: 'Google Chat',
  ui: { label: 'Google Chat', hint: 'A card through a webhook of a space' },
  fields: () => ({
    // Its key and token let whoever has the URL post: it is a credential.
    webhookUrl: {
      schema: webhookUrl(),
      credential: true,
      address: true,
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'Webhook URL', placeholder: 'https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…', input: 'url' },
      docs: { rules: 'a Google Chat webhook URL, `https://chat.googleapis.com/v1/spaces/.../messages?key=...&token=...`' },
    },
  }),
  target: (c) => c.webhookUrl,
  request:
    '`POST <webhookUrl>` with `{"fallbackText", "cardsV2": [{"cardId", "card": {"header": {"title", "subtitle"}, "sections": [{"widgets": [...]}]}}]}`: a `decoratedText` per fact and a button to the dashboard when the alert has its link. Values are HTML-escaped, so they cannot form tags, links or mentions.',
  send({ webhookUrl }, event, { timeoutMs, destinations }) {
    return postJson(webhookUrl, googleChatMessage(event), { timeoutMs, destinations, refusal: refusalOf('Google Chat', googleReason) });
  },
  example: { webhookUrl: 'https://chat.googleapis.com/v1/spaces/AAAA/messages?key=k&token=t' },
});
