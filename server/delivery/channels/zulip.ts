import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { expected, httpUrl, oneLine } from '../../domain/validation.ts';
import { postForm } from '../http-post.ts';
import { defineChannel, truncate } from './channel.ts';
import { ALERT_EMOJI, chatFacts, chatHeadline, chatMarkdown, DASHBOARD_LINK_TEXT, markdownLink, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** Zulip's longest channel (stream) and topic names. */
const NAME_LIMIT = 60;

const zulipName = (what: string) =>
  oneLine(z.string(expected(what)).trim().min(1, 'must not be empty').max(NAME_LIMIT, `must be at most ${NAME_LIMIT} characters`));

/** The message in Zulip's Markdown, everything the alert says escaped and `@` defused, so no monitor name or message can form a link or mention `@**all**`. */
function zulipContent(event: AlertEvent): string {
  const link = webAddress(event.link);
  return [
    `${ALERT_EMOJI[event.kind]} **${chatMarkdown(chatHeadline(event))}**`,
    '',
    ...chatFacts(event).map(([label, value]) => `**${label}:** ${chatMarkdown(value)}`),
    ...(link ? ['', markdownLink(DASHBOARD_LINK_TEXT, link)] : []),
  ].join('\n');
}

/** Zulip's words for a refusal: `{"result": "error", "msg": "Invalid API key", "code": "INVALID_API_KEY"}`. */
const zulipReason = (body: any): string | undefined => (typeof body?.msg === 'string' && body.msg ? body.msg : undefined);

/** A message to a topic of a Zulip channel (stream), sent by a bot. */
export const zulip = defineChannel({
  kind: 'zulip',
  title: 'Zulip',
  ui: { label: 'Zulip', hint: 'A message to a channel topic, from a bot' },
  fields: () => ({
    serverUrl: {
      schema: httpUrl('the Zulip server, e.g. https://example.zulipchat.com'),
      address: true,
      flag: { name: 'server-url', valueName: 'URL', description: 'the Zulip server', read: 'text' },
      ui: { label: 'Server', placeholder: 'https://example.zulipchat.com', input: 'url' },
      docs: { rules: 'the Zulip server, `https://example.zulipchat.com`.' },
    },
    botEmail: {
      schema: z.email('must be the email address of the bot, as Zulip shows it').max(254, 'must be at most 254 characters'),
      flag: { name: 'bot-email', valueName: 'ADDRESS', description: "the bot's email address", read: 'text' },
      ui: {
        label: 'Bot email',
        hint: 'Personal settings → Bots: the email of an incoming webhook or generic bot.',
        placeholder: 'alerts-bot@example.zulipchat.com',
      },
      docs: { rules: "the bot's email address, as Zulip shows it under Personal settings → Bots." },
    },
    // With the bot's email, the key lets whoever has it post as the bot: it is a credential.
    apiKey: {
      schema: z
        .string(expected("the bot's API key"))
        .trim()
        .regex(/^[A-Za-z0-9]{16,128}$/, "must be the bot's API key: 16 to 128 letters and digits (Zulip's have 32)"),
      credential: true,
      flag: { name: 'api-key', valueName: 'KEY', description: "the bot's API key", read: 'text' },
      ui: { label: 'API key', hint: "The bot's API key; sent with its email as HTTP basic authentication.", input: 'secret' },
      docs: { rules: "the bot's API key, sent with `botEmail` as HTTP basic authentication." },
    },
    stream: {
      schema: zulipName('a channel (stream) name'),
      flag: { name: 'stream', valueName: 'NAME', description: 'the channel (stream) the alerts are sent to', read: 'text' },
      ui: { label: 'Channel', hint: `The channel (stream) to post to, up to ${NAME_LIMIT} characters.`, placeholder: 'ops' },
      docs: { rules: `the channel (stream), up to ${NAME_LIMIT} characters; the bot must be allowed to post there.` },
    },
    topic: {
      schema: zulipName('a topic').optional(),
      flag: { name: 'topic', valueName: 'TOPIC', description: 'the topic', read: 'text' },
      ui: { label: 'Topic', hint: `Up to ${NAME_LIMIT} characters. Empty: a topic per monitor, named after it.` },
      docs: { rules: `up to ${NAME_LIMIT} characters; default a topic per monitor, named after it.` },
    },
  }),
  target: (c) => `${c.stream} > ${c.topic ?? '(the monitor)'}`,
  request:
    "`POST <serverUrl>/api/v1/messages` with HTTP basic authentication `<botEmail>:<apiKey>` and the form `type=stream&to=<stream>&topic=<topic or the monitor's name>&content=<Markdown>`. Markdown in monitor names and messages is escaped and `@` cannot mention anyone.",
  send({ serverUrl, botEmail, apiKey, stream, topic }, event, { timeoutMs, destinations }) {
    const form = {
      type: 'stream',
      to: stream,
      topic: topic ?? truncate(event.monitor.name.replace(/\s+/g, ' ').trim() || `monitor ${event.monitor.id}`, NAME_LIMIT),
      content: zulipContent(event),
    };
    return postForm(`${serverUrl.replace(/\/+$/, '')}/api/v1/messages`, form, {
      headers: { authorization: `Basic ${Buffer.from(`${botEmail}:${apiKey}`).toString('base64')}` },
      timeoutMs,
      destinations,
      refusal: refusalOf('Zulip', zulipReason, [apiKey]),
    });
  },
  example: {
    serverUrl: 'https://example.zulipchat.com',
    botEmail: 'alerts-bot@example.zulipchat.com',
    apiKey: 'abcdefghijklmnopqrstuvwxyz012345',
    stream: 'ops',
    topic: 'alerts',
  },
});
