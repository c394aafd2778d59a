// A monitor's incidents over the API and the command line, against the real service: a TCP
// monitor of a loopback port nothing listens on is found down by a triggered check, which opens
// its incident; ListMonitorIncidents and `statusdesk monitors incidents` list it, and another
// workspace's key finds no such monitor.
import assert from 'node:assert/strict';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, Periodicity } from '../client/index.ts';
import { assertCode, newWorkspace, runCli, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `127.0.0.1:${port}`;
}

describe('ListMonitorIncidents', () => {
  test('a monitor found down has one open incident, listed by the RPC and the command; none in another workspace', { timeout: 60_000 }, async () => {
    const ws = await newWorkspace(service, 'incidents-api');
    const key = (await service.createKey('write', ws.slug)).secret;
    const api = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
    const { monitor } = await api.monitors.createTCPMonitor({
      monitor: { name: 'Queue', uri: await closedPort(), periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'], retry: 0 },
    });
    const id = monitor!.id;
    assert.deepEqual((await api.monitors.listMonitorIncidents({ id })).incidents, []);

    await api.monitors.triggerMonitor({ id });
    const { incidents } = await api.monitors.listMonitorIncidents({ id });
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]!.endedAt, undefined, 'still down');
    assert.equal(incidents[0]!.failedChecks, 1);
    assert.match(incidents[0]!.firstMessage, /refused/);

    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const listed = await runCli(['monitors', 'incidents', id, '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const [shown] = JSON.parse(listed.stdout).incidents;
    assert.deepEqual([shown.id, shown.endedAt, shown.failedChecks], [incidents[0]!.id, null, 1]);
    const table = await runCli(['monitors', 'incidents', id], env);
    assert.match(table.stdout, /still down/);

    const other = await newWorkspace(service, 'incidents-other');
    const elsewhere = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('read', other.slug)).secret, env: {} });
    await assertCode(elsewhere.monitors.listMonitorIncidents({ id }), Code.NotFound);
  });
});
