import { z } from 'zod';
import { kibibytes, WEBSOCKET_LIMITS } from '../../../../contract/limits.ts';
import { expected, httpHeaders } from '../../validation.ts';
import { DEFAULTED_REGIONS } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

const { urlLength, subprotocolLength, sendBytes, expectLength, messageBytes } = WEBSOCKET_LIMITS;

/** A subprotocol as Sec-WebSocket-Protocol names one: an HTTP token (RFC 6455 4.1). */
const SUBPROTOCOL = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An absolute ws:// or wss:// address without credentials or fragment. */
const wsUrl = () =>
  z
    .string(expected('a ws:// or wss:// URL'))
    .trim()
    .min(1, 'is required: a ws:// or wss:// URL')
    .max(urlLength, `must be at most ${urlLength} characters`)
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return ctx.addIssue({ code: 'custom', message: 'must be an absolute ws:// or wss:// URL, e.g. wss://example.com/socket' });
      }
      if (url.protocol === 'http:' || url.protocol === 'https:') {
        ctx.addIssue({
          code: 'custom',
          message: `must use ws:// or wss://, not ${url.protocol}//: write ${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}${url.pathname}`,
        });
      } else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
        ctx.addIssue({ code: 'custom', message: `must use ws:// or wss://, not ${url.protocol}//` });
      } else if (url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must not carry credentials; send them in a header instead' });
      } else if (url.hash) {
        ctx.addIssue({ code: 'custom', message: 'must not have a #fragment: a WebSocket URL has none' });
      }
    });

/** Request headers of the upgrade: the handshake's own (Sec-WebSocket-*) are set by the check. */
const upgradeHeaders = () =>
  httpHeaders().superRefine((entries, ctx) => {
    for (const name of Object.keys(entries)) {
      if (/^sec-websocket-/i.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is set by the WebSocket handshake; ask for a subprotocol with subprotocol' });
      }
    }
  });

/**
 * WebSocket: the opening handshake (an HTTP/1.1 upgrade) to a ws:// or wss:// URL, optionally a
 * message sent and an expected text in the first message received, then a clean close
 * (checks/websocket-probe.ts).
 */
export const websocket = defineMonitorType({
  type: 'websocket',
  title: 'WebSocket',
  summary: 'Opens a WebSocket, optionally sends a message and waits for the expected one, then closes it.',
  message: 'WebSocketMonitor',
  target: 'url',
  targetIsUrl: true,
  targetWords: 'the URL',
  timeoutWords: 'the budget of the whole check: connection, upgrade and the expected message',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    url: {
      schema: wsUrl(),
      ui: {
        label: 'URL',
        hint: 'A ws:// or wss:// URL, without credentials: send them in a header.',
        placeholder: 'wss://example.com/socket',
      },
      docs: {
        rules: `absolute \`ws://\` or \`wss://\` URL, at most ${urlLength} characters, without user name, password or fragment (send credentials in a header)`,
      },
    },
    headers: {
      schema: upgradeHeaders().default({}),
      flag: { name: 'header', valueName: 'k=v', description: 'a request header', read: 'pairs' },
      ui: {
        label: 'Headers',
        hint: 'Sent with the upgrade request, e.g. Authorization or Origin. An Authorization value is sealed at rest and never shown again.',
      },
      docs: {
        rules:
          "sent with the upgrade request; connection headers (`host`, `upgrade`, ...) and the handshake's own `Sec-WebSocket-*` refused; at most 32 entries and 8 KiB; values of credential-like names (authorization, token, …) are sealed at rest and shown `[redacted]`",
      },
    },
    subprotocol: {
      schema: z
        .string({ error: 'must be a string: a subprotocol name' })
        .trim()
        .max(subprotocolLength, `must be at most ${subprotocolLength} characters`)
        .superRefine((value, ctx) => {
          if (value === '' || SUBPROTOCOL.test(value)) return;
          const message = /[,\s]/.test(value)
            ? 'must name one subprotocol, without spaces or commas'
            : "must be a subprotocol name: letters, digits and !#$%&'*+-.^_`|~";
          ctx.addIssue({ code: 'custom', message });
        })
        .describe('a subprotocol name')
        .default(''),
      flag: {
        name: 'subprotocol',
        valueName: 'NAME',
        description: 'the subprotocol to ask for (Sec-WebSocket-Protocol); the server must agree to it',
        read: 'text',
      },
      ui: {
        label: 'Subprotocol',
        hint: 'Asked for in the handshake; the check fails if the server does not agree to it. Empty: none.',
        placeholder: 'graphql-transport-ws',
      },
      docs: { rules: 'one subprotocol name (an HTTP token), asked for in `Sec-WebSocket-Protocol`; the check fails when the server does not agree to it' },
    },
    sendText: {
      schema: z
        .string({ error: 'must be a string: the text message to send' })
        .refine((text) => Buffer.byteLength(text) <= sendBytes, `must be at most ${sendBytes} bytes`)
        .default(''),
      flag: { name: 'send-text', valueName: 'TEXT', description: 'a text message to send once the socket is open', read: 'text' },
      ui: { label: 'Message to send', hint: 'A text message sent as soon as the socket is open. Stored as written: put credentials in a header.' },
      docs: { rules: `up to ${kibibytes(sendBytes)}, sent as one text message once the socket is open; stored as written (put credentials in a header)` },
    },
    expectText: {
      schema: z
        .string({ error: 'must be a string: the text the first message must contain' })
        .max(expectLength, `must be at most ${expectLength} characters`)
        .default(''),
      flag: {
        name: 'expect-text',
        valueName: 'TEXT',
        description: 'the first message received (the reply, with --send-text) must contain TEXT',
        read: 'text',
      },
      ui: {
        label: 'Expected text',
        hint: 'The first message received (the reply, when a message is sent) must contain it. Empty: the check ends once the socket is open.',
      },
      docs: {
        rules: `up to ${expectLength} characters; the first message received (the reply, when \`sendText\` is set) must contain it, a binary message read as UTF-8; a message larger than ${kibibytes(messageBytes)} fails the check unread. Empty: the check closes as soon as the socket is open`,
      },
    },
  }),
  secretMaps: ['headers'],
  rows: (m) => [
    ['headers', Object.keys(m.headers).join(',') || '-'],
    ['subprotocol', m.subprotocol || '-'],
    ['send', m.sendText ? `${Buffer.byteLength(m.sendText)} bytes` : '-'],
    ['expect', m.expectText ? JSON.stringify(m.expectText) : '-'],
  ],
  example: {
    url: 'wss://chat.example.com/socket',
    headers: { authorization: 'Bearer example-token', origin: 'https://chat.example.com' },
    subprotocol: 'chat.v1',
    sendText: '{"type":"ping"}',
    expectText: 'pong',
  },
});
