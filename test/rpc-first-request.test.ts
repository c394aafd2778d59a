/**
 * ConnectRPC is loaded with the first RPC request a service serves: the calls that arrive together
 * while it loads are each answered, on both ports, none dropped. Runs the bundle, so the first
 * call really is the one that loads it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnServe, tempDir } from './support/harness.ts';

const CALLS = 8;
const LIST_MONITORS = '/rpc/monitor.v1.MonitorService/ListMonitors';

test('the calls that arrive while the RPC handler loads are all answered', async () => {
  const dir = await tempDir();
  try {
    const serve = await spawnServe(['--data-dir', join(dir.path, 'data')]);
    try {
      const call = (base: string) =>
        fetch(`${base}${LIST_MONITORS}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: '{}', signal: AbortSignal.timeout(20_000) });
      const bases = [serve.ready.apiUrl, serve.ready.dashboardUrl];
      const responses = await Promise.all(bases.flatMap((base) => Array.from({ length: CALLS }, () => call(base))));
      for (const response of responses) {
        // No credential: every call is refused by the RPC handler itself, in Connect's words.
        assert.equal(response.status, 401);
        assert.equal(((await response.json()) as { code?: string }).code, 'unauthenticated');
      }
    } finally {
      assert.equal(await serve.stop(), 0, serve.stderr());
    }
  } finally {
    await dir.remove();
  }
});
