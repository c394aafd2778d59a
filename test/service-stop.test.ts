// Stopping the service: a request in flight is answered, and a keep-alive connection it leaves
// idle is closed at once, so a stop (Quit in the desktop app, Ctrl+C) does not wait out the
// 5 s keep-alive of every client still connected.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { startTestService } from './support/harness.ts';

/** Well under the 5 s keep-alive of the HTTP/1.1 server: a stop that waited for it would miss it. */
const PROMPT_STOP_MS = 2_500;

test('a request in flight when the stop begins is answered, and its idle keep-alive connection does not hold the stop', async () => {
  const service = await startTestService();
  const agent = new http.Agent({ keepAlive: true });
  try {
    const url = new URL(`${service.apiUrl}/v1/whoami`);
    let socketClosed = false;
    const answered = new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: url.port, path: url.pathname, method: 'POST', agent, headers: { host: url.host, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('socket', (socket) => socket.on('close', () => (socketClosed = true)));
      req.on('error', reject);
      req.write('{');
      // The body's end arrives after the stop has begun.
      setTimeout(() => req.end('}'), 300);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const stopping = service.stop();
    assert.equal(await answered, 401, 'the request in flight got its answer (no key: 401)');
    await stopping;
    const took = performance.now() - started;
    assert.ok(took < PROMPT_STOP_MS, `the stop took ${took.toFixed(0)} ms`);
    assert.equal(socketClosed, true, 'the idle keep-alive connection was closed by the service');
  } finally {
    agent.destroy();
  }
});
