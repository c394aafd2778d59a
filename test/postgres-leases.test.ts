/**
 * Two `statusdesk serve` processes on one PostgreSQL database (sharing the sealing key) share the
 * monitors through leases in the database: each monitor is checked once in each of its slots, by
 * one of them; when one is killed, the other takes its shards once their lease runs out, and
 * checks them from then on. The lease is shortened (STATUSDESK_CHECK_LEASE_MS, a setting for
 * tests) so the test takes two periods of 30 s rather than more.
 *
 * Times are measured from what the database shows, not from guesses of how long a busy machine
 * takes: the slots owed are those after a process is seen holding the shards and has had
 * READ_MS to read their monitors, and the checks of a period are read until its last slots'
 * checks are stored, up to STORED_MS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, Periodicity } from '../client/index.ts';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { perTestCleanup, runCli, type ServeProcess, spawnServe } from './support/harness.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';
import { checksIn, countSlots, queryPostgres, type SlotCount, shardsByHolder, shareSealingKey } from './support/shared-database.ts';
import { eventually } from './support/wait.ts';

const LEASE_MS = 3_000;
const PERIOD_MS = 30_000;
const MONITORS = 24;
/** How long a process may take, once its taking of shards shows in the database, to read their monitors and schedule them. */
const READ_MS = 2_000;
/** How long after a period the checks of its last slots may take to be stored. */
const STORED_MS = 10_000;

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

  test("check each monitor once per slot, and one takes the other's share once its lease runs out, missing no slot after", { timeout: 240_000 }, async () => {
    const url = await server.createDatabase();
    const env = { STATUSDESK_CHECKS: 'on', STATUSDESK_CHECK_LEASE_MS: String(LEASE_MS), STATUSDESK_DATA_DIR: undefined };
    const serve = async (dataDir: string): Promise<ServeProcess> => {
      const started = await spawnServe(['--data-dir', dataDir, '--database', url], env);
      cleanup.children.push(started.child);
      return started;
    };
    const [dirA, dirB] = [await cleanup.folder(), await cleanup.folder()];
    const a = await serve(dirA);
    const created = await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'leases', '--data-dir', dirA], {
      STATUSDESK_DATABASE_URL: url,
    });
    assert.equal(created.code, 0, created.stderr);
    const { monitors } = createClient({ baseUrl: `${a.ready.apiUrl}/rpc`, apiKey: created.stdout.trim(), env: {} });
    // Ids three apart spread the monitors over the 64 shards (id % 64), so each process holds some.
    const ids: number[] = [];
    for (let n = 0; ids.length < MONITORS; n++) {
      const { monitor } = await monitors.createTCPMonitor({
        monitor: { name: `m${n}`, uri: targets[n % targets.length]!.uri, periodicity: Periodicity.PERIODICITY_30S, retry: 0, regions: ['iad'] },
      });
      if (n % 3 === 0) ids.push(Number(monitor!.id));
      else await monitors.deleteMonitor({ id: monitor!.id });
    }

    shareSealingKey(dirA, dirB);
    const b = await serve(dirB);
    await eventually(
      () => shardsByHolder(url),
      (shares) => shares.join() === '32,32',
      'the two processes hold half the shards each',
      4 * LEASE_MS,
    );
    const sharedFrom = Date.now() + READ_MS;
    /** The slots of the period from `from`, read again (bounded) while `owed` finds slots whose checks are not stored yet. */
    const slots = async (from: number, owed: (count: SlotCount) => number) => {
      await sleepUntil(from + PERIOD_MS);
      for (;;) {
        const count = countSlots(await checksIn(url, ids, from, from + 2 * PERIOD_MS), ids, from, from + PERIOD_MS);
        if (owed(count) === 0 || Date.now() > from + PERIOD_MS + STORED_MS) return count;
        await sleep(250);
      }
    };
    const shared = await slots(sharedFrom, (count) => count.missed);
    assert.deepEqual(
      { duplicates: shared.duplicates, missed: shared.missed },
      { duplicates: 0, missed: 0 },
      `checks while both run: missed ${JSON.stringify([...shared.misses])}`,
    );

    const killedAt = Date.now();
    b.child.kill('SIGKILL');
    // Its shards' lease runs out a lease time after its last renewal, and the process left takes them at its next round.
    await eventually(
      () => shardsByHolder(url),
      (shares) => shares.join() === '64',
      'the process left takes every shard',
      3 * LEASE_MS,
    );
    const takenAt = Date.now();
    const holders = await queryPostgres<{ holder: string }>(url, 'select distinct holder from check_leases where holder is not null');
    assert.equal(holders.length, 1, 'the process left holds the upkeep too (the row after the shards)');
    // The killed process's monitors whose slot came before the other took its shards and read
    // them miss that slot; none later.
    const handedOverBy = takenAt + READ_MS;
    const lateMisses = (count: SlotCount) =>
      [...count.misses].flatMap(([id, missed]) => missed.filter((slot) => slot >= handedOverBy).map((slot) => ({ id, afterKillMs: slot - killedAt })));
    const handedOver = await slots(killedAt, (count) => lateMisses(count).length);
    assert.equal(handedOver.duplicates, 0, 'no slot checked twice across the handover');
    assert.deepEqual(lateMisses(handedOver), [], `slots missed after the shards were taken, ${takenAt - killedAt} ms after the kill`);
    await a.stop();
  });
});

async function sleepUntil(at: number): Promise<void> {
  await sleep(Math.max(0, at - Date.now()));
}
