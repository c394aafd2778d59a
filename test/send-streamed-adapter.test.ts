/**
 * sendStreamed behind the Hono adapter, in a process of its own: the adapter puts its own Response
 * in place before the first answer, as the service's ports do, and the answer is written once.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { sendStreamed } from '../server/http/send-streamed.ts';
import { sseAnswer } from './support/sse.ts';

test('through the Hono adapter, after it put its own Response in place: answered once, and the connection kept for the next request', async () => {
  const [{ getRequestListener }, { Hono }] = await Promise.all([import('@hono/node-server'), import('hono')]);
  const app = new Hono<{ Bindings: { outgoing: http.ServerResponse } }>();
  app.post('/mcp', (c) => sendStreamed(c.env.outgoing, sseAnswer(['adapter'])));
  // The adapter replaces the global Response when it is made; the answers are made after.
  const server = http.createServer(getRequestListener(app.fetch));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = () =>
    new Promise<{ status: number; text: string; socket: net.Socket }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, socket: req.socket! }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  try {
    const first = await post();
    const second = await post();
    for (const answer of [first, second]) {
      assert.equal(answer.status, 200);
      assert.equal(answer.text, 'event: message\ndata: adapter\n\n');
    }
    assert.equal(second.socket, first.socket, 'the second request went on the same connection');
  } finally {
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
