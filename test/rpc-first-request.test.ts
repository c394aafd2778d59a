/**
 * ConnectRPC is loaded with the first RPC request a service serves: the calls that arrive together
 * while it loads are each answered, on both ports, none dropped. Runs the bundle, so the first
 * call really is the one that loads it. Connect over HTTP/1.1, and plain grpc-js clients over h2c.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { spawnServe, tempDir } from './support/harness.ts';

const CALLS = 8;
const LIST_MONITORS = '/rpc/monitor.v1.MonitorService/ListMonitors';

test('the calls that arrive while the RPC handler loads are all answered', async () => {
  const dir = await tempDir();
  try {
    const serve = await spawnServe(['--data-dir', join(dir.path, 'data')]);
    try {
      const call = (base: string) =>
        fetch(`${base}${LIST_MONITORS}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base },
          body: '{}',
          signal: AbortSignal.timeout(20_000),
        });
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

test('plain grpc-js clients calling /package.Service/Method while the RPC handler loads are all answered', async () => {
  const dir = await tempDir();
  try {
    const serve = await spawnServe(['--data-dir', join(dir.path, 'data')]);
    try {
      const bytes = (b: Buffer) => b;
      const target = new URL(serve.ready.apiUrl).host.replace('localhost', '127.0.0.1');
      const errors = await Promise.all(
        Array.from({ length: CALLS }, () => {
          const client = new grpc.Client(target, grpc.credentials.createInsecure());
          return new Promise<grpc.ServiceError | null>((resolve) =>
            client.makeUnaryRequest(LIST_MONITORS.replace('/rpc', ''), bytes, bytes, Buffer.alloc(0), { deadline: Date.now() + 20_000 }, (error) => {
              client.close();
              resolve(error);
            }),
          );
        }),
      );
      for (const error of errors) {
        // No credential: every call is refused by the RPC handler itself, in gRPC's words.
        assert.equal(error?.code, grpc.status.UNAUTHENTICATED, String(error));
        assert.match(error.details, /missing credentials/);
      }
    } finally {
      assert.equal(await serve.stop(), 0, serve.stderr());
    }
  } finally {
    await dir.remove();
  }
});
