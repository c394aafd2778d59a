import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toBinary } from '@bufbuild/protobuf';
import { createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { ListMonitorsResponseSchema, MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { queryRows, withLocalOwner } from './support/database.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService, withHeaders } from './support/harness.ts';

/**
 * The monitor list is kept between calls until the monitors table changes: every change, made
 * through the API on the service's own connection or by another connection to the data folder,
 * shows in the very next list.
 */
describe('the kept monitor list', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.stop();
  });

  /** A client of a new workspace of its own, with a write key. */
  async function newClient(prefix: string) {
    const workspace = await newWorkspace(svc, prefix);
    const key = await svc.createKey('write', workspace.slug);
    return { client: monitorRpc(svc, key.secret), workspace };
  }

  const tcp = (name: string, port: number) => ({ monitor: { name, uri: `127.0.0.1:${port}`, periodicity: Periodicity.PERIODICITY_1M } });
  const names = (list: { tcpMonitors: { name: string }[] }) => list.tcpMonitors.map((m) => m.name);

  test('a monitor created, changed, paused and deleted through the API shows in the next list', async () => {
    const { client } = await newClient('kept-api');
    assert.deepEqual(names(await client.listMonitors({})), []);
    const created = (await client.createTCPMonitor(tcp('first', 20_001))).monitor!;
    assert.deepEqual(names(await client.listMonitors({})), ['first']);
    await client.updateTCPMonitor({ id: created.id, monitor: { name: 'renamed' }, updateMask: { paths: ['name'] } });
    assert.deepEqual(names(await client.listMonitors({})), ['renamed']);
    await client.updateTCPMonitor({ id: created.id, monitor: { active: false }, updateMask: { paths: ['active'] } });
    assert.equal((await client.listMonitors({})).tcpMonitors[0]!.active, false);
    await client.deleteMonitor({ id: created.id });
    const after = await client.listMonitors({});
    assert.deepEqual(names(after), []);
    assert.equal(after.totalSize, 0);
  });

  test('a change by another connection to the data folder shows in the next list', async () => {
    const { client, workspace } = await newClient('kept-other');
    const created = (await client.createTCPMonitor(tcp('mine', 20_002))).monitor!;
    assert.deepEqual(names(await client.listMonitors({})), ['mine']);
    // The local commands open their own connection, as `statusdesk monitors` does beside the service.
    await withLocalOwner(svc.dataDir, (services, owner) => services.monitors.update(owner, Number(workspace.id), 'tcp', created.id, { name: 'by the CLI' }));
    assert.deepEqual(names(await client.listMonitors({})), ['by the CLI']);
    // A plain writer, neither through the service nor through the CLI.
    await queryRows(svc.dataDir, 'update monitors set name = ?, revision = revision + 1 where id = ?', 'by hand', Number(created.id));
    assert.deepEqual(names(await client.listMonitors({})), ['by hand']);
  });

  test('every protocol and format answers the same list, and a change shows in each', async () => {
    const { client, workspace } = await newClient('kept-formats');
    const key = await svc.createKey('read', workspace.slug);
    const options = { baseUrl: `${svc.apiUrl}/rpc`, interceptors: [withHeaders({ 'x-service-key': key.secret })] };
    const transports: Record<string, Transport> = {
      'Connect, binary': createConnectTransport({ ...options, httpVersion: '1.1' }),
      'Connect, JSON': createConnectTransport({ ...options, httpVersion: '1.1', useBinaryFormat: false }),
      'gRPC, binary': createGrpcTransport(options),
      'gRPC, JSON': createGrpcTransport({ ...options, useBinaryFormat: false }),
      'gRPC-Web, binary': createGrpcWebTransport({ ...options, httpVersion: '1.1' }),
      'gRPC-Web, JSON': createGrpcWebTransport({ ...options, httpVersion: '1.1', useBinaryFormat: false }),
    };
    const created = (await client.createTCPMonitor({ monitor: { ...tcp('first', 20_006).monitor, tags: ['a', 'b'] } })).monitor!;
    await client.createTCPMonitor(tcp('second', 20_007));
    for (const name of ['first', 'renamed']) {
      // Every client asks twice: a list answered again is the same list.
      const answers = await Promise.all(
        Object.values(transports).flatMap((transport) => [0, 1].map(() => createClient(MonitorService, transport).listMonitors({}))),
      );
      const expected = toBinary(ListMonitorsResponseSchema, answers[0]!);
      for (const [i, answer] of answers.entries()) {
        const label = Object.keys(transports)[Math.floor(i / 2)];
        assert.deepEqual(names(answer), ['second', name], label);
        assert.deepEqual(answer.tcpMonitors[1]!.tags, ['a', 'b'], label);
        assert.equal(answer.totalSize, 2, label);
        assert.deepEqual(toBinary(ListMonitorsResponseSchema, answer), expected, label);
      }
      await client.updateTCPMonitor({ id: created.id, monitor: { name: 'renamed' }, updateMask: { paths: ['name'] } });
    }
  });

  test('each page and each workspace is its own answer', async () => {
    const a = await newClient('kept-page');
    const b = await newClient('kept-page');
    await a.client.createTCPMonitor(tcp('older', 20_003));
    await a.client.createTCPMonitor(tcp('newer', 20_004));
    await b.client.createTCPMonitor(tcp('theirs', 20_005));
    assert.deepEqual(names(await a.client.listMonitors({ limit: 1 })), ['newer']);
    assert.deepEqual(names(await a.client.listMonitors({ limit: 1, offset: 1 })), ['older']);
    assert.deepEqual(names(await a.client.listMonitors({})), ['newer', 'older']);
    assert.deepEqual(names(await b.client.listMonitors({})), ['theirs']);
    assert.equal((await b.client.listMonitors({ limit: 1, offset: 1 })).totalSize, 1);
  });
});
