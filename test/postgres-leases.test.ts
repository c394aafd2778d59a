/**
 * Two `statusdesk serve` processes on one PostgreSQL database (sharing the sealing key) share the
 * monitors through leases in the database: each monitor is checked once in each of its slots, by
 * one of them; when one is killed, the other takes its shards within one lease time. The lease
 * is shortened (STATUSDESK_CHECK_LEASE_MS, a setting for tests) so the test takes two periods
 * of 30 s rather than more.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, Periodicity } from '../client/index.ts';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { perTestCleanup, runCli, type ServeProcess, spawnServe } from './support/harness.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';
import { checksIn, countSlots, queryPostgres, shardsByHolder, shareSealingKey } from './support/shared-database.ts';
import { eventually } from './support/wait.ts';

const LEASE_MS = 3_000;
const PERIOD_MS = 30_000;
const MONITORS = 24;

describe('two services on one PostgreSQL', { skip: withoutPostgres }, () => {
  const cleanup = perTestCleanup();
  let server: TestPostgres;
  const targets: TcpListener[] = [];
  before(async () => {
    server = await startPostgres();
    for (let i = 0; i < 4; i++) targets.push(await startTcpListener());
  });
  after(async () => {
    for (const target of targets) await target.close();
    await server?.stop();
  });

  test('check each monitor once per slot, and one takes the other\'s share within a lease time of its kill', { timeout: 240_000 }, async () => {
    const url = await server.createDatabase();
    const env = { STATUSDESK_CHECKS: 'on', STATUSDESK_CHECK_LEASE_MS: String(LEASE_MS), STATUSDESK_DATA_DIR: undefined };
    const serve = async (dataDir: string): Promise<ServeProcess> => {
      const started = await spawnServe(['--data-dir', dataDir, '--database', url], env);
      cleanup.children.push(started.child);
      return started;
    };
    const [dirA, dirB] = [await cleanup.folder(), await cleanup.folder()];
    const a = await serve(dirA);
    const created = await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'leases', '--data-dir', dirA], { STATUSDESK_DATABASE_URL: url });
    assert.equal(created.code, 0, created.stderr);
    const { monitors } = createClient({ baseUrl: `${a.ready.apiUrl}/rpc`, apiKey: created.stdout.trim(), env: {} });
    // Ids three apart spread the monitors over the 64 shards (id % 64), so each process holds some.
    const ids: number[] = [];
    for (let n = 0; ids.length < MONITORS; n++) {
      const { monitor } = await monitors.createTCPMonitor({ monitor: { name: `m${n}`, uri: targets[n % targets.length]!.uri, periodicity: Periodicity.PERIODICITY_30S, retry: 0, regions: ['iad'] } });
      if (n % 3 === 0) ids.push(Number(monitor!.id));
      else await monitors.deleteMonitor({ id: monitor!.id });
    }

    shareSealingKey(dirA, dirB);
    const b = await serve(dirB);
    await eventually(() => shardsByHolder(url), (shares) => shares.join() === '32,32', 'the two processes hold half the shards each', 4 * LEASE_MS);
    // A moment for the process that took its half to read its monitors.
    const sharedFrom = Date.now() + 1_000;
    await sleepUntil(sharedFrom + PERIOD_MS + 2_000);
    const slots = async (from: number) => countSlots(await checksIn(url, ids, from, from + 2 * PERIOD_MS), ids, from, from + PERIOD_MS);
    const shared = await slots(sharedFrom);
    assert.deepEqual({ duplicates: shared.duplicates, missed: shared.missed }, { duplicates: 0, missed: 0 }, `checks while both run: missed ${JSON.stringify([...shared.misses])}`);

    const killedAt = Date.now();
    b.child.kill('SIGKILL');
    await eventually(() => shardsByHolder(url), (shares) => shares.join() === '64', 'the process left takes every shard', 3 * LEASE_MS);
    const holders = await queryPostgres<{ holder: string }>(url, 'select distinct holder from check_leases where holder is not null');
    assert.equal(holders.length, 1, 'the process left holds the upkeep too (the row after the shards)');
    await sleepUntil(killedAt + PERIOD_MS + 2_000);
    const handedOver = await slots(killedAt);
    assert.equal(handedOver.duplicates, 0, 'no slot checked twice across the handover');
    // The killed process's monitors whose slot came before the other took its shards (within a
    // lease and a renewal) miss that slot; none later.
    const handedOverBy = killedAt + LEASE_MS + LEASE_MS / 3 + 1_000;
    const late = [...handedOver.misses].flatMap(([id, missed]) => missed.filter((slot) => slot >= handedOverBy).map((slot) => ({ id, afterKillMs: slot - killedAt })));
    assert.deepEqual(late, [], 'slots missed more than a lease time after the kill');
    await a.stop();
  });
});

async function sleepUntil(at: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}
