import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { expected, httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { escapeHtml } from '../templates.ts';
import { defineChannel } from './channel.ts';
import { ALERT_EMOJI, chatFacts, chatHeadline, DASHBOARD_LINK_TEXT, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** A token as @BotFather gives it: the bot's id, a colon, and its secret. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
/** A chat: its id (negative for groups and channels) or a public channel's @username. */
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

/**
 * The message in Telegram's HTML: `<b>` for the headline and the labels, every other text escaped
 * (`&`, `<`, `>`, quotes), so no monitor name or message can form a tag or a link. The dashboard's
 * link is written out as text, which Telegram links itself: a `text_link` to a loopback address is
 * one it may refuse, and the whole message with it.
 */
function telegramText(event: AlertEvent): string {
  const link = webAddress(event.link);
  return [
    `${ALERT_EMOJI[event.kind]} <b>${escapeHtml(chatHeadline(event))}</b>`,
    '',
    ...chatFacts(event).map(([label, value]) => `<b>${label}:</b> ${escapeHtml(value)}`),
    ...(link ? ['', `${DASHBOARD_LINK_TEXT}: ${escapeHtml(link)}`] : []),
  ].join('\n');
}

/** Telegram's words for a refusal: `{"ok": false, "description": "Bad Request: chat not found"}` is `chat not found`. */
const telegramReason = (body: any): string | undefined =>
  typeof body?.description === 'string' && body.description ? body.description.replace(/^Bad Request: /, '') : undefined;

/** A message to a Telegram chat, group, channel or forum topic, sent by a bot. */
export const telegram = defineChannel({
  kind: 'telegram',
  title: 'Telegram',
  ui: { label: 'Telegram', hint: 'A message from your bot to a chat' },
  fields: () => ({
    // Whoever has the token can act as the bot: it is a credential.
    botToken: {
      schema: z
        .string(expected('a bot token from @BotFather, like 123456789:AAH…'))
        .trim()
        .regex(BOT_TOKEN, "must be a bot token from @BotFather: the bot's id, a colon and 30 or more letters, digits, - or _"),
      credential: true,
      flag: { name: 'bot-token', valueName: 'TOKEN', description: 'the bot token from @BotFather', read: 'text' },
      ui: { label: 'Bot token', hint: 'From @BotFather: 123456789:AAH…', input: 'secret' },
      docs: { rules: 'the token @BotFather gives the bot, `123456789:AAH...`.' },
    },
    chatId: {
      schema: z
        .string(expected("a chat id (-1001234567890) or a public channel's @username"))
        .trim()
        .regex(CHAT_ID, "must be a chat id (a whole number, negative for groups and channels) or a public channel's @username"),
      flag: { name: 'chat-id', valueName: 'ID', description: 'the chat the alerts are sent to', read: 'text' },
      ui: { label: 'Chat id', hint: "A whole number (groups and channels are negative) or a public channel's @username.", placeholder: '-1001234567890' },
      docs: { rules: "the chat's id (negative for groups and channels) or a public channel's `@username`." },
    },
    messageThreadId: {
      schema: z
        .number(expected('a topic id'))
        .int('must be a whole number')
        .min(1, 'must be 1 or more')
        .max(2_147_483_647, 'must be at most 2147483647')
        .optional(),
      flag: { name: 'thread-id', valueName: 'ID', description: 'the topic of a forum group', read: 'int' },
      ui: { label: 'Topic id', hint: "In a group with topics: the topic's id, the last number of a link to the topic (t.me/c/1234567890/7). Empty: General." },
      docs: { rules: "a forum group's topic (`message_thread_id`); default the group's General topic." },
    },
    botApiUrl: {
      schema: httpUrl('the Bot API server, e.g. https://api.telegram.org').default('https://api.telegram.org'),
      address: true,
      flag: { name: 'bot-api-url', valueName: 'URL', description: 'the Bot API server', read: 'text', default: 'https://api.telegram.org' },
      ui: { label: 'Bot API server', placeholder: 'https://api.telegram.org', input: 'url' },
      docs: { rules: "the Bot API server: Telegram's, or one of your own (`telegram-bot-api`)." },
    },
  }),
  target: (c) => c.chatId,
  request:
    '`POST <botApiUrl>/bot<botToken>/sendMessage` with `{"chat_id", "text", "parse_mode": "HTML", "link_preview_options": {"is_disabled": true}}`, and `message_thread_id` when set. `<`, `>` and `&` in monitor names and messages are escaped, so they cannot form tags; a refusal shows Telegram\'s `description`.',
  send({ botToken, chatId, messageThreadId, botApiUrl }, event, { timeoutMs, destinations }) {
    const body = {
      chat_id: chatId,
      ...(messageThreadId !== undefined ? { message_thread_id: messageThreadId } : {}),
      text: telegramText(event),
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    };
    const url = `${botApiUrl.replace(/\/+$/, '')}/bot${botToken}/sendMessage`;
    return postJson(url, body, { timeoutMs, destinations, refusal: refusalOf('Telegram', telegramReason, [botToken]) });
  },
  example: {
    botToken: '123456789:AAHexampleexampleexampleexample00',
    chatId: '-1001234567890',
    messageThreadId: 42,
    botApiUrl: 'https://telegram-api.example.com',
  },
});
