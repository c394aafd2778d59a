import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertFacts, escapeHtml } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { apiBaseUrlField, apiUrl, refusalOf } from './service-api.ts';

const PUBLIC_API = 'https://api.pushover.net';
/** Pushover's application tokens and user (or group) keys: 30 letters and digits. */
const PUSHOVER_KEY = /^[A-Za-z0-9]{30}$/;
/** One or more device names, comma-separated: Pushover's own rule for a name is 1 to 25 letters, digits, - or _. */
const DEVICES = /^[A-Za-z0-9_-]{1,25}(,[A-Za-z0-9_-]{1,25})*$/;
/** Pushover's limits: a title of 250 characters, a message of 1,024, a URL of 512. */
const LIMITS = { title: 250, message: 1024, url: 512 };
/** An emergency alert (priority 2) is repeated every `retry` seconds until acknowledged, for at most `expire` seconds. */
const EMERGENCY = { retry: 60, expire: 3600 };

/**
 * The priority of an alert: the channel's for a down alert (default 1, high), and no more than 0
 * (normal) for the others, so a recovery never rings like an outage.
 */
const priorityOf = (event: AlertEvent, priority: number | undefined) => (event.kind === 'down' ? (priority ?? 1) : Math.min(priority ?? 0, 0));

/** `text` escaped for Pushover's HTML, cut (before escaping, so no entity is cut) to fit `limit` once escaped. */
function escapedWithin(text: string, limit: number): string {
  let out = '';
  for (const char of text) {
    const escaped = escapeHtml(char);
    if (out.length + escaped.length > limit - 1) return `${out}…`;
    out += escaped;
  }
  return out;
}

/** The message in Pushover's HTML (`html=1`): a bold label per fact, every value escaped and at most 512 characters, within 1,024 in all. */
function pushoverMessage(event: AlertEvent): string {
  let message = '';
  for (const [label, value] of alertFacts(event)) {
    const head = `${message ? '\n' : ''}<b>${escapeHtml(label)}:</b> `;
    const room = LIMITS.message - message.length - head.length;
    if (room < 16) break;
    // One long value (a check's message) leaves room for the facts after it.
    message += `${head}${escapedWithin(value, Math.min(room, 512))}`;
  }
  return message;
}

/** Pushover's errors: `{"status": 0, "errors": ["application token is invalid"], "request": "..."}`. */
function pushoverReason(body: any): string | undefined {
  const errors = body && Array.isArray(body.errors) ? body.errors.filter((e: unknown) => typeof e === 'string') : [];
  return errors.length > 0 ? errors.join('; ') : undefined;
}

/** A push through Pushover, to a user's or a group's devices. */
export const pushover = defineChannel({
  kind: 'pushover',
  title: 'Pushover',
  ui: { label: 'Pushover', hint: "A push to a Pushover user's or group's devices" },
  fields: () => ({
    appToken: {
      schema: z
        .string(expected('the API token of a Pushover application'))
        .trim()
        .regex(PUSHOVER_KEY, 'must be the 30 letters and digits of a Pushover application API token'),
      credential: true,
      flag: { name: 'app-token', valueName: 'TOKEN', description: "the application's token", read: 'text' },
      ui: { label: 'Application API token', hint: 'The API Token/Key of an application you registered on pushover.net.', input: 'secret' },
      docs: { rules: 'the 30-character API token of a Pushover application.' },
    },
    userKey: {
      schema: z
        .string(expected('a Pushover user or group key'))
        .trim()
        .regex(PUSHOVER_KEY, 'must be the 30 letters and digits of a Pushover user or group key'),
      credential: true,
      flag: { name: 'user-key', valueName: 'KEY', description: 'the Pushover user or group key', read: 'text' },
      ui: { label: 'User key', hint: 'Your User Key, on the front page of pushover.net once logged in, or a group key.', input: 'secret' },
      docs: { rules: 'the 30-character user key (or group key) the alerts go to.' },
    },
    device: {
      schema: z
        .string(expected('device names'))
        .trim()
        .max(256, 'must be at most 256 characters')
        .regex(DEVICES, 'must be device names separated by commas, each 1 to 25 letters, digits, - or _')
        .optional(),
      flag: { name: 'device', valueName: 'NAME', description: "the user's devices to push to, comma-separated", read: 'text' },
      ui: { label: 'Devices', hint: "Device names, comma-separated. Empty: all of the user's devices.", placeholder: 'pixel,ipad' },
      docs: { rules: "device names, comma-separated (each 1 to 25 letters, digits, `-` or `_`); default all the user's devices." },
    },
    priority: {
      schema: z.number(expected('a whole number from -2 to 2')).int('must be a whole number').min(-2, 'must be -2 to 2').max(2, 'must be -2 to 2').optional(),
      flag: {
        name: 'pushover-priority',
        valueName: '-2..2',
        description: 'the Pushover priority of a down alert',
        // A negative number is a value here, not a flag: `--pushover-priority=-1`.
        read: (texts, fail) => {
          const text = texts.at(-1)!;
          if (!/^-?\d$/.test(text)) fail(`--pushover-priority must be a whole number from -2 to 2, got "${text}"`);
          return Number(text);
        },
      },
      ui: {
        label: 'Priority',
        hint: 'Of a down alert: -2 (lowest) to 2 (emergency, repeated until acknowledged). Empty: 1. Other alerts are sent at 0 or lower.',
      },
      docs: {
        rules:
          "the priority of a `down` alert, `-2` (lowest) to `2` (emergency: repeated every 60 s until acknowledged, for at most an hour); default `1`. Other alerts are sent at `0`, or at the channel's priority when it is lower.",
      },
    },
    apiBaseUrl: apiBaseUrlField(PUBLIC_API, 'another address only for a proxy in between'),
  }),
  target: (c) => `Pushover${c.device ? ` (${c.device})` : ''}`,
  request:
    '`POST <apiBaseUrl>/1/messages.json` with `{"token", "user", "title", "message", "html": 1, "priority", "timestamp", "device", "url", "url_title"}` (`retry` and `expire` for priority 2). The message is Pushover HTML: each fact with a bold label, every value escaped.',
  send({ appToken, userKey, device, priority, apiBaseUrl }, event, { timeoutMs, destinations }) {
    const level = priorityOf(event, priority);
    const body = {
      token: appToken,
      user: userKey,
      title: truncate(`${event.test ? '[Test] ' : ''}${alertHeadline(event)}`, LIMITS.title),
      message: pushoverMessage(event),
      html: 1,
      priority: level,
      timestamp: Math.floor(new Date(event.at).getTime() / 1000) || undefined,
      ...(level === 2 ? EMERGENCY : {}),
      ...(device ? { device } : {}),
      ...(event.link && event.link.length <= LIMITS.url ? { url: event.link, url_title: 'Open in Statusdesk' } : {}),
    };
    return postJson(apiUrl(apiBaseUrl, '/1/messages.json'), body, {
      timeoutMs,
      destinations,
      refusal: refusalOf('Pushover', pushoverReason, [appToken, userKey]),
    });
  },
  example: {
    appToken: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi',
    userKey: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG',
    device: 'pixel',
    priority: 2,
    apiBaseUrl: 'https://pushover.example.com',
  },
});
