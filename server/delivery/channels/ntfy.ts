import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { durationWords, resultChange } from '../../domain/public-words.ts';
import { expected, httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertContent } from '../templates.ts';
import { defineChannel } from './channel.ts';

/** ntfy tags that are emoji short codes show as the emoji. */
const NTFY_TAG: Record<AlertEvent['kind'], string> = { down: 'rotating_light', recovered: 'white_check_mark', degraded: 'warning', tool_drift: 'mag' };
/** ntfy priorities (1 min … 5 max) when the channel sets none. */
const NTFY_PRIORITY: Record<AlertEvent['kind'], number> = { down: 4, recovered: 3, degraded: 3, tool_drift: 4 };

function ntfyMessage(event: AlertEvent, subject: string, topic: string, priority: number | undefined) {
  const { monitor } = event;
  return {
    topic,
    title: subject,
    message: [
      event.message,
      `${monitor.type} ${monitor.target}`,
      resultChange(event),
      ...(event.downForMs === undefined ? [] : [`down for ${durationWords(event.downForMs)}`]),
      event.at,
    ].join('\n'),
    priority: priority ?? NTFY_PRIORITY[event.kind],
    // Tapping the notification opens the monitor in the dashboard.
    ...(event.link && { click: event.link }),
    tags: event.test ? [NTFY_TAG[event.kind], 'test'] : [NTFY_TAG[event.kind]],
  };
}

/** ntfy's own rule for a topic name, which the form's hint states too. */
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TOPIC_WORDS = '1 to 64 letters, digits, - or _';

/** A push to an ntfy topic, on ntfy.sh or a server of one's own. */
export const ntfy = defineChannel({
  kind: 'ntfy',
  title: 'ntfy',
  ui: { label: 'ntfy', hint: 'A push to an ntfy topic' },
  fields: () => ({
    server: {
      schema: httpUrl('the ntfy server, e.g. https://ntfy.sh').default('https://ntfy.sh'),
      address: true,
      flag: { name: 'server', valueName: 'URL', description: 'the ntfy server', read: 'text', default: 'https://ntfy.sh' },
      ui: { label: 'Server', placeholder: 'https://ntfy.sh', input: 'url' },
      docs: { rules: 'the ntfy server.' },
    },
    // On a public ntfy server the topic name is the password: whoever knows it can read and post.
    topic: {
      schema: z.string(expected('a topic name')).regex(TOPIC_NAME, `must be ${TOPIC_WORDS}`),
      credential: true,
      flag: { name: 'topic', valueName: 'TOPIC', description: 'the topic', read: 'text' },
      ui: { label: 'Topic', hint: `${TOPIC_WORDS}. On a public server the topic name is the password: choose one nobody can guess.` },
      docs: { rules: '1 to 64 letters, digits, `-` or `_` (on a public server the topic name is the password, so it is kept as a credential).' },
    },
    priority: {
      schema: z.number().int().min(1, 'must be 1 to 5').max(5, 'must be 1 to 5').optional(),
      flag: { name: 'priority', valueName: '1-5', description: 'the priority of each alert', read: 'int' },
      ui: { label: 'Priority', hint: '1 (min) to 5 (max). Empty: 4 for down, 3 otherwise.' },
      docs: { rules: '1 (min) to 5 (max); default 4 for `down`, 3 otherwise.' },
    },
    token: {
      schema: z.string().min(1).max(256, 'must be at most 256 characters').optional(),
      credential: true,
      flag: { name: 'token', valueName: 'TOKEN', description: 'an access token', read: 'text' },
      ui: { label: 'Access token', hint: 'For a protected topic; sent as Authorization: Bearer.', input: 'secret' },
      docs: { rules: 'an ntfy access token, sent as `Authorization: Bearer <token>`.' },
    },
  }),
  target: (c) => `${(c.server ?? '').replace(/\/+$/, '')}/${c.topic}`,
  request:
    '`POST <server>` with ntfy\'s JSON publishing body `{"topic", "title", "message", "priority", "tags", "click"}`. `title` is the subject above; `click` the monitor in the dashboard; `tags` is `rotating_light`, `white_check_mark` or `warning`, plus `test` for a test send.',
  send({ server, priority, topic, token }, event, { timeoutMs, destinations }) {
    const body = ntfyMessage(event, alertContent(event).subject, topic, priority);
    return postJson(server, body, { headers: token ? { authorization: `Bearer ${token}` } : undefined, timeoutMs, destinations });
  },
  example: { server: 'https://ntfy.example.com', topic: 'ops-alerts', priority: 5, token: 'tk_x' },
});
