import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { expected, httpUrl } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { escapeHtml } from '../templates.ts';
import { defineChannel } from './channel.ts';
import { ALERT_EMOJI, chatFacts, chatHeadline, DASHBOARD_LINK_TEXT, webAddress } from './chat-markup.ts';
import { refusalOf } from './service-api.ts';

/** A room id, `!opaque:server` (Settings → Advanced in Element); an alias (`#room:server`) is not one. */
const ROOM_ID = /^![^\s:/]+:\S+$/;

/**
 * An `m.text` message (an `m.notice` would be quiet: bots' notices notify no one by default),
 * in plain text and in Matrix's HTML with every text escaped. `m.mentions` is empty, so the
 * message mentions no one whatever it says, and `@` in the plain body is defused for servers
 * that still read mentions from it.
 */
function matrixMessage(event: AlertEvent) {
  const link = webAddress(event.link);
  const headline = `${ALERT_EMOJI[event.kind]} ${chatHeadline(event)}`;
  const facts = chatFacts(event);
  const body = [headline, ...facts.map(([label, value]) => `${label}: ${value}`), ...(link ? [`${DASHBOARD_LINK_TEXT}: ${link}`] : [])].join('\n');
  const html = [
    `<p><strong>${escapeHtml(headline)}</strong></p>`,
    `<ul>${facts.map(([label, value]) => `<li><strong>${label}:</strong> ${escapeHtml(value)}</li>`).join('')}</ul>`,
    ...(link ? [`<p><a href="${escapeHtml(link)}">${DASHBOARD_LINK_TEXT}</a></p>`] : []),
  ].join('');
  return { msgtype: 'm.text', body: body.replace(/@/g, '@\u200b'), format: 'org.matrix.custom.html', formatted_body: html, 'm.mentions': {} };
}

/** The homeserver's words for a refusal: `{"errcode": "M_FORBIDDEN", "error": "User not in room"}`. */
const matrixReason = (body: any): string | undefined => {
  const { errcode, error } = (body ?? {}) as { errcode?: unknown; error?: unknown };
  const words = [typeof error === 'string' ? error : '', typeof errcode === 'string' ? `(${errcode})` : ''].filter(Boolean);
  return words.length > 0 ? words.join(' ') : undefined;
};

/** A message in a Matrix room, sent by a user (a bot account) through the client-server API. */
export const matrix = defineChannel({
  kind: 'matrix',
  title: 'Matrix',
  ui: { label: 'Matrix', hint: 'A message in a room, from a bot account' },
  fields: () => ({
    homeserver: {
      schema: httpUrl('the homeserver, e.g. https://matrix.example.org'),
      address: true,
      flag: { name: 'homeserver', valueName: 'URL', description: 'the homeserver of the sending account', read: 'text' },
      ui: { label: 'Homeserver', hint: "The sending account's homeserver (its client API address).", placeholder: 'https://matrix.example.org', input: 'url' },
      docs: { rules: "the sending account's homeserver, `https://matrix.example.org`." },
    },
    roomId: {
      schema: z
        .string(expected('a room id like !abc:example.org'))
        .trim()
        .regex(ROOM_ID, 'must be a room id like !abc:example.org (Room settings → Advanced); an alias like #room:example.org is not one'),
      flag: { name: 'room-id', valueName: 'ID', description: 'the room the alerts are sent to', read: 'text' },
      ui: { label: 'Room id', hint: 'Room settings → Advanced: !abc:example.org. The account must have joined the room.', placeholder: '!abc:example.org' },
      docs: { rules: 'a room id, `!abc:example.org` (not an alias); the account must have joined it.' },
    },
    // Whoever has the token can act as the account: it is a credential.
    accessToken: {
      schema: z
        .string(expected('an access token'))
        .trim()
        .regex(/^\S{1,1024}$/, 'must be an access token: 1 to 1024 characters without spaces'),
      credential: true,
      flag: { name: 'access-token', valueName: 'TOKEN', description: "the sending account's access token", read: 'text' },
      ui: {
        label: 'Access token',
        hint: "The sending account's token (Element: Settings → Help & About → Access token); sent as Authorization: Bearer.",
        input: 'secret',
      },
      docs: { rules: "the sending account's access token, sent as `Authorization: Bearer <token>`." },
    },
  }),
  target: (c) => c.roomId,
  request:
    '`PUT <homeserver>/_matrix/client/v3/rooms/<roomId>/send/m.room.message/<txnId>` (a new transaction id each time) with `Authorization: Bearer <accessToken>` and `{"msgtype": "m.text", "body", "format": "org.matrix.custom.html", "formatted_body", "m.mentions": {}}`. The HTML escapes monitor names and messages; the message mentions no one.',
  send({ homeserver, roomId, accessToken }, event, { timeoutMs, destinations }) {
    // The room id percent-encoded whole, `!` too, as the specification's examples write it.
    const room = encodeURIComponent(roomId).replace(/!/g, '%21');
    const url = `${homeserver.replace(/\/+$/, '')}/_matrix/client/v3/rooms/${room}/send/m.room.message/statusdesk-${randomUUID()}`;
    return postJson(url, matrixMessage(event), {
      method: 'PUT',
      headers: { authorization: `Bearer ${accessToken}` },
      timeoutMs,
      destinations,
      refusal: refusalOf('Matrix', matrixReason, [accessToken]),
    });
  },
  example: { homeserver: 'https://matrix.example.org', roomId: '!ops:example.org', accessToken: 'syt_example_token' },
});
