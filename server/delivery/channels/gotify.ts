import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertFacts, escapeMarkdown } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { apiUrl, baseUrl, refusalOf } from './service-api.ts';

/** A Gotify application token (`AbCdEf.1234-_x`): letters, digits, `.`, `-` and `_`. */
const APP_TOKEN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Gotify's priorities: its apps make a sound from 4 and show a heads-up from 8. A down alert has
 * the channel's priority (default 8); the others at most 5, so a recovery never rings like an outage.
 */
const priorityOf = (event: AlertEvent, priority: number | undefined) => (event.kind === 'down' ? (priority ?? 8) : Math.min(priority ?? 5, 5));

/** The message in Markdown, which the `client::display` extra asks Gotify's clients to render: every value escaped. */
function gotifyMessage(event: AlertEvent): string {
  const lines = alertFacts(event).map(([label, value]) => `**${label}:** ${escapeMarkdown(value)}`);
  if (event.link) lines.push('', `[Open in Statusdesk](<${event.link.replace(/[<>\s]/g, encodeURIComponent)}>)`);
  // Two spaces end a Markdown line without starting a paragraph.
  return truncate(lines.join('  \n'), 16_000);
}

/** Gotify's errors: `{"error": "Unauthorized", "errorCode": 401, "errorDescription": "you need to provide a valid access token ..."}`. */
function gotifyReason(body: any): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  if (typeof body.errorDescription === 'string' && body.errorDescription) return body.errorDescription;
  return typeof body.error === 'string' ? body.error : undefined;
}

/** A message of an application of a Gotify server. */
export const gotify = defineChannel({
  kind: 'gotify',
  title: 'Gotify',
  ui: { label: 'Gotify', hint: 'A message on your Gotify server' },
  fields: () => ({
    server: {
      schema: baseUrl('the Gotify server, e.g. https://gotify.example.com'),
      address: true,
      flag: { name: 'gotify-server', valueName: 'URL', description: 'the Gotify server', read: 'text' },
      ui: { label: 'Server', hint: 'The address of your Gotify server, with its path if it has one.', placeholder: 'https://gotify.example.com', input: 'url' },
      docs: { rules: 'the `http://` or `https://` address of the Gotify server, with its path if it is served under one.' },
    },
    appToken: {
      schema: z
        .string(expected('the token of a Gotify application'))
        .trim()
        .regex(APP_TOKEN, 'must be a Gotify application token: 1 to 128 letters, digits, ., - or _'),
      credential: true,
      flag: { name: 'app-token', valueName: 'TOKEN', description: "the application's token", read: 'text' },
      ui: { label: 'Application token', hint: 'The token of an application made under Apps on your Gotify server; sent as X-Gotify-Key.', input: 'secret' },
      docs: { rules: 'the token of a Gotify application, sent as `X-Gotify-Key`.' },
    },
    priority: {
      schema: z.number(expected('a whole number from 0 to 10')).int('must be a whole number').min(0, 'must be 0 to 10').max(10, 'must be 0 to 10').optional(),
      flag: { name: 'priority', valueName: '0-10', description: 'the priority of each alert', read: 'int' },
      ui: { label: 'Priority', hint: 'Of a down alert, 0 to 10 (8 and above: heads-up). Empty: 8. Other alerts are sent at 5 or lower.' },
      docs: { rules: "the priority of a `down` alert, `0` to `10`; default `8`. Other alerts are sent at `5`, or at the channel's priority when it is lower." },
    },
  }),
  target: (c) => c.server,
  request:
    '`POST <server>/message` with `X-Gotify-Key: <appToken>` and `{"title", "message", "priority", "extras": {"client::display": {"contentType": "text/markdown"}, "client::notification": {"click": {"url"}}}}`. The message is Markdown, every value escaped; the click URL is the dashboard link, when there is one.',
  send({ server, appToken, priority }, event, { timeoutMs, destinations }) {
    const body = {
      title: truncate(`${event.test ? '[Test] ' : ''}${alertHeadline(event)}`, 250),
      message: gotifyMessage(event),
      priority: priorityOf(event, priority),
      extras: {
        'client::display': { contentType: 'text/markdown' },
        ...(event.link ? { 'client::notification': { click: { url: event.link } } } : {}),
      },
    };
    return postJson(apiUrl(server, '/message'), body, {
      headers: { 'x-gotify-key': appToken },
      timeoutMs,
      destinations,
      refusal: refusalOf('Gotify', gotifyReason, [appToken]),
    });
  },
  example: { server: 'https://gotify.example.com', appToken: 'AbCdEf.1234-_x', priority: 9 },
});
