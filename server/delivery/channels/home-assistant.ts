import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertFacts } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { apiUrl, baseUrl, plainReason, refusalOf } from './service-api.ts';

/** A notify service's name, as Home Assistant names services: lower-case letters, digits and `_`. */
const SERVICE_NAME = /^[a-z0-9_]{1,255}$/;
/** A long-lived access token (a JWT): visible characters, no spaces. */
const ACCESS_TOKEN = /^[\x21-\x7e]{1,2048}$/;

/** Plain text: the notify integrations (the companion apps, Telegram, mail…) each show text their own way. */
function homeAssistantMessage(event: AlertEvent) {
  const data = event.link ? { data: { url: event.link, clickAction: event.link } } : {};
  return {
    title: truncate(`${event.test ? '[Test] ' : ''}${alertHeadline(event)}`, 250),
    message: truncate(
      alertFacts(event)
        .filter(([label]) => label !== 'Monitor')
        .map(([label, value]) => `${label}: ${value}`)
        .join('\n'),
      4000,
    ),
    ...data,
  };
}

/** Home Assistant's errors: `{"message": "Service notify.x not found."}`, or a plain `401: Unauthorized`. */
const homeAssistantReason = (body: any, answer: { status: number; body: string }) =>
  body && typeof body === 'object' && typeof body.message === 'string' ? body.message : plainReason(answer);

/** A notification through a notify service of Home Assistant (its companion app's `mobile_app_<device>`, or any other). */
export const homeAssistant = defineChannel({
  kind: 'home_assistant',
  title: 'Home Assistant',
  ui: { label: 'Home Assistant', hint: 'A notification through a notify service of Home Assistant' },
  fields: () => ({
    server: {
      schema: baseUrl('the Home Assistant address, e.g. http://homeassistant.local:8123'),
      address: true,
      flag: { name: 'home-assistant-server', valueName: 'URL', description: 'the address of Home Assistant', read: 'text' },
      ui: { label: 'Home Assistant URL', hint: 'The address you open Home Assistant at.', placeholder: 'http://homeassistant.local:8123', input: 'url' },
      docs: { rules: 'the `http://` or `https://` address of Home Assistant, e.g. `http://homeassistant.local:8123`.' },
    },
    token: {
      schema: z
        .string(expected('a long-lived access token'))
        .trim()
        .regex(ACCESS_TOKEN, 'must be a long-lived access token: up to 2048 visible characters, no spaces'),
      credential: true,
      flag: { name: 'token', valueName: 'TOKEN', description: 'an access token', read: 'text' },
      ui: { label: 'Long-lived access token', hint: 'Made on your Home Assistant profile, under Security; sent as Authorization: Bearer.', input: 'secret' },
      docs: { rules: 'a long-lived access token of a Home Assistant user, sent as `Authorization: Bearer <token>`.' },
    },
    service: {
      schema: z
        .string(expected('the name of a notify service'))
        .trim()
        .regex(SERVICE_NAME, 'must be the name of a notify service without "notify.": lower-case letters, digits and _, e.g. mobile_app_pixel'),
      flag: { name: 'notify-service', valueName: 'NAME', description: 'the notify service, without "notify."', read: 'text' },
      ui: {
        label: 'Notify service',
        hint: 'Without "notify.", e.g. mobile_app_pixel for the companion app on a phone named Pixel.',
        placeholder: 'mobile_app_pixel',
      },
      docs: { rules: 'the notify service without `notify.`: lower-case letters, digits and `_`, e.g. `mobile_app_pixel`.' },
    },
  }),
  target: (c) => `${c.server} notify.${c.service}`,
  request:
    '`POST <server>/api/services/notify/<service>` with `Authorization: Bearer <token>` and `{"title", "message", "data": {"url", "clickAction"}}` (`data` when the alert has a dashboard link: `url` opens it on iOS, `clickAction` on Android). The message is plain text.',
  send({ server, token, service }, event, { timeoutMs, destinations }) {
    return postJson(apiUrl(server, `/api/services/notify/${service}`), homeAssistantMessage(event), {
      headers: { authorization: `Bearer ${token}` },
      timeoutMs,
      destinations,
      refusal: refusalOf('Home Assistant', homeAssistantReason, [token]),
    });
  },
  example: { server: 'http://homeassistant.local:8123', token: 'eyJhbGciOiJIUzI1NiJ9.e30.long-lived-token', service: 'mobile_app_pixel' },
});
