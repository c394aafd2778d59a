import { z } from 'zod';
import { expected, httpHeaders, httpUrl } from '../../domain/validation.ts';
import { postText } from '../http-post.ts';
import { DEFAULT_TEMPLATE, loadTemplateEngine, renderTemplate, TEMPLATE_LIMITS, templateProblem } from './body-template.ts';
import { defineChannel } from './channel.ts';
import { plainReason, refusalOf } from './service-api.ts';

const METHODS = ['POST', 'PUT', 'PATCH'] as const;
/** A media type with optional parameters: `application/json`, `text/plain; charset=utf-8`. */
const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;\s*[\w!#$&^.+-]+=(?:"[^"\r\n]*"|[\w!#$&^.+-]+))*$/;

/** A receiver's words when it refuses: a JSON `message` or `error`, else the start of its text. */
const receiverReason = (body: any, answer: { status: number; body: string }) => {
  if (body && typeof body === 'object') {
    for (const key of ['message', 'error', 'detail', 'description']) if (typeof body[key] === 'string' && body[key]) return body[key];
  }
  return plainReason(answer);
};

/** Any HTTP API: the method, headers, content type and body are the channel's, the body a Liquid template of the alert. */
export const customWebhook = defineChannel({
  kind: 'custom_webhook',
  title: 'custom webhook',
  ui: { label: 'Custom webhook', hint: 'Any HTTP API, with a body template and headers of your own' },
  fields: () => ({
    // Webhook URLs carry their tokens in the path or query: a credential.
    url: {
      schema: httpUrl('the address the rendered body is sent to'),
      credential: true,
      address: true,
      word: 'webhookUrl',
      flag: { name: 'webhook-url', valueName: 'URL', description: 'the webhook the alerts are posted to', read: 'text' },
      ui: { label: 'URL', hint: 'The http:// or https:// address that receives each alert.', placeholder: 'https://example.com/api/alerts', input: 'url' },
      docs: { rules: 'the `http://` or `https://` address that receives the rendered body.' },
    },
    method: {
      schema: z.enum(METHODS, expected('POST, PUT or PATCH')).default('POST'),
      flag: { name: 'method', description: 'the HTTP method', read: 'choice', upperCase: true },
      ui: { label: 'Method' },
      docs: { rules: '`POST`, `PUT` or `PATCH`.' },
    },
    // Headers carry API keys: the whole map is a credential, its names shown and its values masked.
    headers: {
      schema: httpHeaders()
        .refine((headers) => !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'), 'must not set content-type: set contentType instead')
        .default({}),
      credential: true,
      flag: { name: 'header', valueName: 'k=v', description: 'a header sent with each alert', read: 'pairs' },
      ui: {
        label: 'Headers',
        hint: 'Sent with each alert, e.g. an authorization header. Values are kept as credentials.',
        placeholder: 'authorization: Bearer …',
      },
      docs: {
        rules: 'request headers, for example an `authorization` header; all their values are kept as credentials. Not `content-type`: see `contentType`.',
      },
    },
    contentType: {
      schema: z
        .string(expected('a media type, e.g. application/json'))
        .trim()
        .max(128, 'must be at most 128 characters')
        .regex(MEDIA_TYPE, 'must be a media type, e.g. application/json or text/plain; charset=utf-8')
        .default('application/json'),
      flag: { name: 'content-type', valueName: 'TYPE', description: 'the content type of the body', read: 'text', default: 'application/json' },
      ui: { label: 'Content type', hint: 'A JSON type (application/json, application/…+json) must render JSON.', placeholder: 'application/json' },
      docs: { rules: "the body's media type. With a JSON type (`application/json`, `application/…+json`) the template must render JSON." },
    },
    template: {
      schema: z
        .string(expected('a Liquid template'))
        .min(1, 'must not be empty')
        .max(TEMPLATE_LIMITS.length, `must be at most ${TEMPLATE_LIMITS.length} characters`)
        // Left out, the alert goes as JSON (DEFAULT_TEMPLATE, as it is when sending).
        .optional(),
      flag: { name: 'template', valueName: 'LIQUID', description: 'the body, a Liquid template of the alert', read: 'text', default: 'the alert as JSON' },
      ui: {
        label: 'Body template',
        hint: 'Liquid, e.g. {"text": {{ headline | json }}}. Variables: monitor, event, state, previous_state, message, at, regions, link, down_for, workspace, headline. Empty: the alert as JSON.',
        placeholder: '{"text": {{ headline | json }}}',
      },
      docs: {
        rules: `a [Liquid](https://liquidjs.com) template of the body, at most ${TEMPLATE_LIMITS.length} characters, checked when the channel is written (see [Body templates](#body-templates)).`,
        default: 'default the alert as JSON',
      },
    },
  }),
  load: loadTemplateEngine,
  checkSettings({ template, contentType }, ctx) {
    if (typeof contentType !== 'string') return;
    const problem = templateProblem(template ?? DEFAULT_TEMPLATE, contentType);
    if (problem) ctx.addIssue({ code: 'custom', path: ['template'], message: problem });
  },
  target: (c) => c.webhookUrl,
  request:
    "`<method> <url>` with the channel's `headers`, `content-type: <contentType>` and the body its `template` renders for the alert (see [Body templates](#body-templates)); no signature.",
  async send({ url, method, headers, contentType, template }, event, { timeoutMs, destinations }) {
    const liquid = await loadTemplateEngine();
    let body: string;
    try {
      body = renderTemplate(liquid, template ?? DEFAULT_TEMPLATE, event);
    } catch (error) {
      throw new Error(`the body template failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    const target = new URL(url);
    return postText(url, body, contentType, {
      method,
      headers,
      timeoutMs,
      destinations,
      // Its answer may quote the address or a header, which hold its tokens.
      refusal: refusalOf(`${method} ${target.origin}`, receiverReason, [
        url,
        ...(target.pathname.length > 1 ? [target.pathname] : []),
        target.search,
        ...Object.values(headers),
      ]),
    });
  },
  example: {
    url: 'https://hooks.example.com/alerts',
    method: 'PUT',
    headers: { authorization: 'Bearer x' },
    contentType: 'application/vnd.alerts+json',
    template: '{"summary": {{ headline | json }}, "severity": {{ event.kind | json }}, "where": {{ regions | json }}}',
  },
});
