import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { choosePorts, DEFAULT_PORTS, isPortFree, MAX_PAIRS_TRIED } from '../main/src/ports.ts';

/** A real listener on a port the system picks; closed when the test ends. */
async function occupy(t: { after(fn: () => void): void }, host = '127.0.0.1', port = 0): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  t.after(() => server.close());
  return (server.address() as { port: number }).port;
}

/** A port nobody listens on: taken from the system, then let go. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function ipv6Loopback(): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => server.close(() => resolve(true)));
  });
}

test('a port another program listens on is not free; one nobody holds is', async (t) => {
  const taken = await occupy(t);
  assert.equal(await isPortFree(taken), false);
  const free = await freePort();
  assert.equal(await isPortFree(free), true);
  // Asking left nothing behind: the port can be listened on right after.
  assert.equal(await occupy(t, '127.0.0.1', free), free);
});

test('a port held on the IPv6 loopback is not free (localhost may go there first)', { skip: !(await ipv6Loopback()) && 'no IPv6 loopback here' }, async (t) => {
  const taken = await occupy(t, '::1');
  assert.equal(await isPortFree(taken), false);
});

// Elsewhere (macOS) the more specific 127.0.0.1 wins the loopback traffic, so such a port is usable.
test('on Linux, a port held on every address is not free', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const taken = await occupy(t, '0.0.0.0');
  assert.equal(await isPortFree(taken), false);
});

test('keeps the remembered ports when both are free', async (t) => {
  const api = await freePort();
  const dashboard = await freePort();
  assert.deepEqual(await choosePorts({ api, dashboard }, isPortFree), { api, dashboard });
  // With one of them taken, the remembered pair is dropped whole for a pair of the default series.
  const taken = await occupy(t);
  const chosen = await choosePorts({ api, dashboard: taken }, isPortFree);
  assert.notEqual(chosen.api, api);
  assert.equal(chosen.dashboard, chosen.api + 1);
  assert.equal((chosen.api - DEFAULT_PORTS.api) % 2, 0);
});

test('falls back to the defaults, then to the next free pair after them', async () => {
  const asked: number[] = [];
  const held = new Set([3000, 3003, 3004]);
  const isFree = async (port: number) => {
    asked.push(port);
    return !held.has(port);
  };
  assert.deepEqual(await choosePorts(undefined, async () => true), DEFAULT_PORTS);
  assert.deepEqual(await choosePorts({ api: 4000, dashboard: 4001 }, async (port) => port !== 4001), DEFAULT_PORTS);
  assert.deepEqual(await choosePorts({ api: 3000, dashboard: 3001 }, isFree), { api: 3006, dashboard: 3007 });
  assert.deepEqual(asked, [3000, 3000, 3002, 3003, 3004, 3006, 3007]);
});

test('ignores remembered ports that cannot be the service’s', async () => {
  const everythingFree = async () => true;
  for (const remembered of [
    { api: 80, dashboard: 81 },
    { api: 5000, dashboard: 5000 },
    { api: 70000, dashboard: 70001 },
    { api: 1.5, dashboard: 2 },
  ]) {
    assert.deepEqual(await choosePorts(remembered, everythingFree), DEFAULT_PORTS, JSON.stringify(remembered));
  }
});

test('gives up with a reason after a bounded search', async () => {
  let asked = 0;
  await assert.rejects(
    choosePorts(undefined, async () => {
      asked++;
      return false;
    }),
    /no two free ports between 3000 and 3101/,
  );
  assert.equal(asked, MAX_PAIRS_TRIED + 1);
});
