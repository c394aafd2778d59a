import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postForm } from '../http-post.ts';
import { formatTime } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { allSent, apiBaseUrlField, apiUrl, refusalOf } from './service-api.ts';

const PUBLIC_API = 'https://api.twilio.com';
/** An account SID: `AC` and 32 hexadecimal digits. */
const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
/** An auth token: 32 letters and digits (hexadecimal in practice). */
const AUTH_TOKEN = /^[A-Za-z0-9]{32}$/;
/** A phone number in E.164: `+`, a country code and the number, 15 digits at most. */
const E164 = /^\+[1-9]\d{1,14}$/;
const E164_WORDS = 'a phone number in E.164 form, e.g. +14155550100';
const MAX_RECIPIENTS = 10;
/** Two SMS segments of plain text: a longer text costs more and arrives in more pieces. */
const SMS_LIMIT = 320;

/**
 * A short text: what happened and when, the check's message as far as it fits, and the
 * dashboard's link on a line of its own (kept whole: a cut link is useless).
 */
export function smsText(event: AlertEvent): string {
  const head = `${event.test ? '[Test] ' : ''}${alertHeadline(event)} (${formatTime(event.at, false)})`;
  const link = event.link && event.link.length <= 200 ? `\n${event.link}` : '';
  const where = event.regions?.length ? ` [${event.regions.join(', ')}]` : '';
  return `${truncate(`${head}${where}: ${event.message}`, SMS_LIMIT - link.length)}${link}`;
}

/** Twilio's errors: `{"code": 21211, "message": "The 'To' number … is not a valid phone number.", "more_info": "…", "status": 400}`. */
function twilioReason(body: any): string | undefined {
  if (!body || typeof body !== 'object' || typeof body.message !== 'string') return undefined;
  return typeof body.code === 'number' ? `${body.message} (error ${body.code})` : body.message;
}

/** A text message to each of a list of phones, through Twilio's Messages API. */
export const twilio = defineChannel({
  kind: 'twilio',
  title: 'Twilio SMS',
  ui: { label: 'Twilio SMS', hint: `A text message to up to ${MAX_RECIPIENTS} phones` },
  fields: () => ({
    accountSid: {
      schema: z.string(expected('a Twilio account SID')).trim().regex(ACCOUNT_SID, 'must be a Twilio account SID: AC and 32 hexadecimal digits'),
      flag: { name: 'account-sid', valueName: 'SID', description: 'the Twilio account SID', read: 'text' },
      ui: {
        label: 'Account SID',
        hint: 'On the front page of the Twilio console: AC and 32 hexadecimal digits.',
        placeholder: 'AC0123456789abcdef0123456789abcdef',
      },
      docs: { rules: 'the account SID, `AC` and 32 hexadecimal digits.' },
    },
    authToken: {
      schema: z.string(expected("the account's auth token")).trim().regex(AUTH_TOKEN, "must be the 32 letters and digits of the account's auth token"),
      credential: true,
      flag: { name: 'auth-token', valueName: 'TOKEN', description: "the Twilio account's auth token", read: 'text' },
      ui: {
        label: 'Auth token',
        hint: "The account's Auth Token, beside the SID in the Twilio console; sent with the SID as HTTP basic auth.",
        input: 'secret',
      },
      docs: { rules: "the account's auth token, sent with the SID as HTTP basic authentication." },
    },
    fromNumber: {
      schema: z.string(expected(E164_WORDS)).trim().regex(E164, `must be ${E164_WORDS}`),
      flag: { name: 'from-number', valueName: 'NUMBER', description: 'the Twilio phone number the texts are sent from', read: 'text' },
      ui: { label: 'From number', hint: 'A phone number of your Twilio account, in E.164 form.', placeholder: '+14155550100' },
      docs: { rules: 'a phone number of the Twilio account that can send SMS, in E.164 form (`+14155550100`).' },
    },
    toNumbers: {
      schema: z
        .array(z.string().trim().regex(E164, `must be ${E164_WORDS}`), expected('a list of phone numbers'))
        .min(1, 'must name at least one phone number')
        .max(MAX_RECIPIENTS, `must name at most ${MAX_RECIPIENTS} phone numbers`)
        .refine((numbers) => new Set(numbers).size === numbers.length, 'must not name a phone number twice'),
      flag: { name: 'to-number', valueName: 'NUMBER', description: 'a phone number the texts go to', read: 'list' },
      ui: { label: 'To numbers', hint: `1 to ${MAX_RECIPIENTS} phone numbers in E.164 form (+14155550123); each gets its own text.` },
      docs: { rules: `1 to ${MAX_RECIPIENTS} phone numbers in E.164 form; each gets a text of its own.` },
    },
    apiBaseUrl: apiBaseUrlField(PUBLIC_API, 'another address only for a proxy in between'),
  }),
  target: (c) => (Array.isArray(c.toNumbers) ? c.toNumbers.join(',') : undefined),
  request: `\`POST <apiBaseUrl>/2010-04-01/Accounts/<accountSid>/Messages.json\` for each of the \`toNumbers\`, form-encoded \`To\`, \`From\` and \`Body\`, with HTTP basic authentication \`<accountSid>:<authToken>\`. \`Body\` is plain text of at most ${SMS_LIMIT} characters (two SMS segments): what happened and when, the check's message as far as it fits, and the dashboard link.`,
  async send({ accountSid, authToken, fromNumber, toNumbers, apiBaseUrl }, event, { timeoutMs, destinations }) {
    const url = apiUrl(apiBaseUrl, `/2010-04-01/Accounts/${accountSid}/Messages.json`);
    const options = {
      headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
      timeoutMs,
      destinations,
      refusal: refusalOf('Twilio', twilioReason, [authToken]),
    };
    const Body = smsText(event);
    // Every phone gets its text even when another's fails; the failures are reported together.
    await allSent(
      'texts',
      toNumbers.map((To) => [To, postForm(url, { To, From: fromNumber, Body }, options)]),
    );
  },
  example: {
    accountSid: 'AC0123456789abcdef0123456789abcdef',
    authToken: '0123456789abcdef0123456789abcdef',
    fromNumber: '+14155550100',
    toNumbers: ['+14155550123', '+447700900123'],
    apiBaseUrl: 'https://twilio-proxy.example.com',
  },
});
