/**
 * How `statusdesk runner` uploads when the service's answers to Report fail while its assignment
 * stream stays open: a loopback HTTP proxy between the runner and the real service answers 503 to
 * Report while told to, and forwards everything else (the stream included) untouched.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { resultsFrom, resultsOf, runnerWorkspace, useRunnerService } from './support/runner.ts';
import { eventually } from './support/wait.ts';

/** A proxy to 127.0.0.1:`target` that answers Report 503 while `failReports`, counting those it refused. */
async function startReportProxy(target: number) {
  const state = { failReports: false, refused: 0, url: '', close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  const server = createServer((inbound, outbound) => {
    if (state.failReports && inbound.url?.endsWith('/runner.v1.RunnerService/Report')) {
      state.refused++;
      inbound.resume();
      return void outbound.writeHead(503).end();
    }
    const forwarded = request(
      { host: '127.0.0.1', port: target, method: inbound.method, path: inbound.url, headers: { ...inbound.headers, host: `127.0.0.1:${target}` } },
      (answer) => {
        outbound.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outbound);
      },
    );
    forwarded.on('error', () => outbound.destroy());
    inbound.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = state.close;
  state.close = () => {
    server.closeAllConnections();
    return close();
  };
  return state;
}

describe('runner: reports', () => {
  const shared = useRunnerService();

  test('a report the service fails while the stream stays open is sent again, without a reconnection', { timeout: 60_000 }, async () => {
    const { service, target } = shared;
    const proxy = await startReportProxy(service.ports.api);
    try {
      const ws = await runnerWorkspace(service, 'reports');
      const location = await ws.location('reports');
      const id = await ws.tcpMonitor(target.uri, [location.id]);
      const runner = await shared.runner(location.token, proxy.url);
      await ws.locationStatus(location.id, 'active');
      await ws.monitors.triggerMonitor({ id });
      const before = (await resultsFrom(service, id, location.name)).length;

      proxy.failReports = true;
      const triggered = ws.monitors.triggerMonitor({ id }).catch(() => undefined);
      await eventually(
        () => proxy.refused,
        (n) => n > 0,
        'a report refused',
      );
      proxy.failReports = false;
      await eventually(
        async () => (await resultsOf(service, id)).length,
        (n) => n > before,
        'the refused results stored once reports are answered again',
        10_000,
      );
      await triggered;

      const lines = await eventually(
        () => runner.output(),
        (text) => text.includes('the service answers again'),
        'the end of the outage logged',
      );
      assert.equal(lines.match(/"connected to the service"/g)?.length, 1, `one connection: ${lines}`);
      assert.match(lines, /"call":"report","code":"Unavailable".*the service cannot be reached/);
      assert.equal(runner.child.exitCode, null);
    } finally {
      await proxy.close();
    }
  });
});
