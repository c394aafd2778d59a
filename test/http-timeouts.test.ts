import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { connectionsCheckingInterval, HEADERS_TIMEOUT_MS, listen, type Listener } from '../server/http/listener.ts';

/**
 * Sends a request's header section a few bytes at a time, never finishing it, and gives what the
 * server answered and when it closed the connection, in ms after the first byte. The connection
 * is given up after `giveUpMs`.
 */
function slowHeaders(port: number, giveUpMs: number): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let started = 0;
    let answer = '';
    let drip: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('connect', () => {
      started = performance.now();
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
      // A header line that never ends, a byte every 100 ms: the connection is never idle.
      socket.write('x-slow: ');
      drip = setInterval(() => socket.write('a'), 100);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {}); // the write after the server's close; 'close' reports it
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: performance.now() - started });
    });
  });
}

describe('the time to send the headers', () => {
  let listener: Listener;

  before(async () => {
    listener = await listen({ host: '127.0.0.1', port: 0, headersTimeoutMs: 1_000 });
    listener.handle((_req, res) => res.end('ok'));
  });
  after(() => listener.close(100));

  test('a request whose headers are not whole by the limit is cut with 408 soon after the limit, not at the next 30 s sweep of node:http', async () => {
    const { answer, closedAfterMs } = await slowHeaders(listener.port, 4_000);
    assert.match(answer, /^HTTP\/1\.1 408 /, `closed after ${Math.round(closedAfterMs)} ms with ${JSON.stringify(answer)}`);
    assert.ok(closedAfterMs >= 1_000 && closedAfterMs < 1_500, `closed after ${Math.round(closedAfterMs)} ms`);
  });

  test('the documented limit is 15 seconds, kept to within a second', async () => {
    assert.equal(HEADERS_TIMEOUT_MS, 15_000);
    assert.ok(HEADERS_TIMEOUT_MS + connectionsCheckingInterval(HEADERS_TIMEOUT_MS) <= 16_000);
    const security = await readFile(new URL('../docs/reference/security.md', import.meta.url), 'utf8');
    assert.match(security, /send its headers within 15 seconds/);
  });
});
