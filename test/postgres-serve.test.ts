/**
 * `statusdesk serve --database postgres://...` as a real child process on the harness's
 * PostgreSQL: the owner's local tools reach the same database, the API answers with what they
 * made, and a scheduled check is stored there. A URL that is not PostgreSQL's, or a server that
 * does not answer, is refused naming the setting, never showing the password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, Periodicity } from '../client/index.ts';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { assertOneLineError, perTestCleanup, runCli, spawnServe } from './support/harness.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';
import { queryPostgres } from './support/shared-database.ts';
import { eventually } from './support/wait.ts';

const PASSWORD = 'hunter2-not-shown';

describe('serve on PostgreSQL', { skip: withoutPostgres }, () => {
  const cleanup = perTestCleanup();
  let server: TestPostgres;
  let target: TcpListener;
  before(async () => {
    server = await startPostgres();
    target = await startTcpListener();
  });
  after(async () => {
    await target?.close();
    await server?.stop();
  });

  test('the local tools make a key in the database of the service, which answers with it and stores the checks of a TCP monitor there', async () => {
    const url = await server.createDatabase();
    const dataDir = await cleanup.folder();
    const serve = await spawnServe(['--data-dir', dataDir, '--database', url], { STATUSDESK_CHECKS: 'on', STATUSDESK_DATA_DIR: undefined });
    cleanup.children.push(serve.child);

    const refused = await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'deploys', '--data-dir', dataDir], {
      STATUSDESK_DATABASE_URL: '',
    });
    assertOneLineError(refused, /keeps its data in the PostgreSQL database test_\d+ at 127\.0\.0\.1:\d+: set STATUSDESK_DATABASE_URL/);

    const created = await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'deploys', '--data-dir', dataDir], {
      STATUSDESK_DATABASE_URL: url,
    });
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();

    const whoami = await fetch(`${serve.ready.apiUrl}/v1/whoami`, { headers: { 'x-service-key': key } });
    assert.equal(whoami.status, 200);
    assert.equal(((await whoami.json()) as { slug: string }).slug, 'personal');
    assert.deepEqual(await queryPostgres(url, 'select name from api_keys'), [{ name: 'deploys' }], 'the key is in PostgreSQL');

    const { monitors } = createClient({ baseUrl: `${serve.ready.apiUrl}/rpc`, apiKey: key, env: {} });
    const { monitor } = await monitors.createTCPMonitor({
      monitor: { name: 'db', uri: target.uri, periodicity: Periodicity.PERIODICITY_30S, retry: 0, regions: ['iad'] },
    });
    const id = monitor!.id;
    // Its first slot is within one period.
    const rows = await eventually(
      () => queryPostgres<{ result: string; runner: string }>(url, 'select result, runner from check_results where monitor_id = $1', Number(id)),
      (found) => found.length > 0,
      'a scheduled check is stored in PostgreSQL',
      45_000,
    );
    assert.deepEqual(rows[0], { result: 'up', runner: 'local' });
    assert.ok(target.connections >= 1);

    assert.equal(await serve.stop(), 0);
    const leases = await queryPostgres<{ n: string }>(url, 'select count(*) as n from check_leases where holder is not null');
    assert.equal(Number(leases[0]!.n), 0, 'a stopped service gives its leases back');
  });

  test("a URL that is not PostgreSQL's is refused naming the setting, without its password", async () => {
    const dataDir = await cleanup.folder();
    const mysql = `mysql://statusdesk:${PASSWORD}@127.0.0.1:3306/statusdesk`;
    const byFlag = await runCli(['serve', '--data-dir', dataDir, '--database', mysql]);
    assertOneLineError(byFlag, /--database: must be a PostgreSQL URL, postgres:\/\/user:password@host:port\/name/);
    const byVariable = await runCli(['serve', '--data-dir', dataDir], { STATUSDESK_DATABASE_URL: mysql });
    assertOneLineError(byVariable, /STATUSDESK_DATABASE_URL: must be a PostgreSQL URL/);
    const local = await runCli(['keys', 'list', '--data-dir', dataDir], { STATUSDESK_DATABASE_URL: mysql });
    assertOneLineError(local, /STATUSDESK_DATABASE_URL: must be a PostgreSQL URL/);
    for (const result of [byFlag, byVariable, local]) assert.doesNotMatch(result.stderr, new RegExp(PASSWORD));
  });

  test('a PostgreSQL server that does not answer is named in the refusal, without the password', async () => {
    const dataDir = await cleanup.folder();
    // Port 1 on loopback: nothing listens there.
    const result = await runCli(['serve', '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0'], {
      STATUSDESK_DATABASE_URL: `postgresql://statusdesk:${PASSWORD}@127.0.0.1:1/statusdesk`,
    });
    assertOneLineError(result, /cannot open PostgreSQL database statusdesk at 127\.0\.0\.1:1: /);
    assert.doesNotMatch(result.stderr, new RegExp(PASSWORD));
  });
});
