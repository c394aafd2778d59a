/**
 * Private locations at scale, against loopback targets (127.0.0.1 only), every process as shipped
 * (`statusdesk serve` and `statusdesk runner` of the bundle, child processes):
 *
 *   1. Upload throughput: 5,000 TCP monitors at 30 s that choose one private location, checked by
 *      its runner, whose results reach the service through a loopback proxy; the baseline, in the
 *      same run, is the embedded engine of a service running the same 5,000 monitors from a region.
 *      Figure: results stored per second at the service over one period, runner / embedded, the
 *      median of the rounds' ratios (alternating rounds, bench/support/figures.ts). Aim >= 0.95:
 *      the runner's results arrive as fast as the schedule makes them. Beside it: the runner's CPU
 *      (cores) and peak RSS, and the service's CPU on each side (storing results reported by a
 *      runner against checking and storing them itself). Aims: runner CPU < 0.25 core, peak RSS
 *      < 250 MB.
 *   2. Outage: the proxy is cut for 60 s, then restored. The runner keeps checking, buffers, and
 *      uploads its backlog. Figures: results lost (sequences the runner made that the service never
 *      stored, plus those it dropped from a full buffer), aim 0; the checks scheduled during the
 *      outage against those stored; how long the backlog took to arrive after the restore.
 *   3. Two services on one PostgreSQL (a server of the distribution's binaries, started as the
 *      tests start theirs: test/support/postgres.ts) sharing 20,000 TCP monitors at 30 s through
 *      their leases, beside one service on SQLite with the same monitors, in the same run: once
 *      the two hold half the shards each (and the SQLite side's results flow), one period's slots
 *      are counted. Figures: checks stored per second, lag p99 (how long after its slot a check
 *      started), duplicate checks (a slot of a monitor checked twice) and missed checks (a slot
 *      not checked), aims 0 and 0. Without PostgreSQL's binaries the row says so.
 *
 *   npm run bench:scale -- [--monitors N] [--rounds N] [--outage-s S] [--buffer-max N] [--shared-monitors N]
 *   BENCH_QUICK=1 npm run bench:scale      a smoke run: 500 monitors, one round, a 20 s outage, 2,000 shared monitors
 *
 * Each side of a round starts its service on its own data folder (seeded once: a template monitor
 * made through the monitor service, the rest copies of its row), waits until results flow, counts
 * the results stored over one period (every monitor checked once), and stops.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { arch, availableParallelism, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { offsetOf } from '../server/checks/scheduler.ts';
import { type Db, openDatabase, withSqlite } from '../server/db/open.ts';
import { openPostgres } from '../server/db/postgres.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices } from '../server/services.ts';
import { closedPort, startTcpListener, type TcpListener } from '../test/support/grpc-peers.ts';
import { readRows } from '../test/support/harness.ts';
import { startPostgres, withoutPostgres } from '../test/support/postgres.ts';
import { checksIn, countSlots, queryPostgres, shardsByHolder, shareSealingKey, type SlotCount, type StoredStart } from '../test/support/shared-database.ts';
import { type CuttableProxy, type RunnerProcess, startProxy, startRunner } from '../test/support/runner.ts';
import { compare, median, parseNumber, processCpuSeconds, table } from './support/figures.ts';
import { type Child, SERVE, spawnReady } from './support/processes.ts';

const CPUS = availableParallelism();
const PERIOD_MS = 30_000;
const TARGET_LISTENERS = 8;
/** Results must flow for this long (in results, at the schedule's rate) before a window starts. */
const SETTLE_MS = 3_000;
const SETTLE_TIMEOUT_MS = 60_000;
/** After the restore: the runner backs off up to 30 s between attempts, then uploads its backlog. */
const DRAIN_TIMEOUT_MS = 120_000;

const AIM_RATIO = 0.95;
const AIM_RUNNER_CORES = 0.25;
const AIM_RUNNER_RSS_MB = 250;

const line = (text: string) => process.stderr.write(`${text}\n`);
const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

interface Options {
  quick: boolean;
  monitors: number;
  rounds: number;
  outageS: number;
  bufferMax: number;
  sharedMonitors: number;
}

type Side = 'runner' | 'embedded';

/** What one side stored in one window. */
interface Round {
  rps: number;
  /** CPU of the service over the window, in cores. */
  serviceCores: number;
  /** The runner's CPU over the window (cores) and its peak RSS (bytes); the runner side only. */
  runnerCores?: number;
  runnerRssPeak?: number;
}

/** A data folder of its own and what seeding made there. */
interface Seeded {
  dataDir: string;
  /** The private location's id and token (the runner side). */
  location?: { id: number; name: string; token: string };
}

const lastResultId = (dataDir: string) => readRows<{ id: number | null }>(dataDir, 'SELECT max(id) AS id FROM check_results')[0]!.id ?? 0;
const storedSince = (dataDir: string, afterId: number) =>
  readRows<{ n: number }>(dataDir, 'SELECT count(*) AS n FROM check_results WHERE id > ?', afterId)[0]!.n;

/** Peak resident set size of a process (VmHWM), bytes; 0 off Linux. */
function rssPeak(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1_000;
  } catch {
    return 0;
  }
}

/**
 * Seeds a data folder: the owner and their workspace (on the `scale` plan, for 30 s checks), on the
 * runner side a private location, and `count` TCP monitors at 30 s spread over the targets, from
 * region `iad` (embedded) or from the location only (runner): one made through the monitor service,
 * the rest copies of its row (and of its location link).
 */
async function seed(side: Side, count: number, targets: TcpListener[]): Promise<Seeded> {
  const dataDir = await mkdtemp(join(tmpdir(), `statusdesk-bench-scale-${side}-`));
  const db = await openDatabase(dataDir);
  try {
    const { services, actor, workspaceId } = await benchWorkspace(db);
    const issued = side === 'runner' ? await services.locations.create(actor, workspaceId, { name: 'bench-runner' }) : undefined;
    const where = issued ? { privateLocations: [issued.location.id] } : { regions: ['iad'] };
    const template = await services.monitors.create(actor, workspaceId, 'tcp', { ...templateMonitor(targets), ...where });
    await withSqlite(db, (sqlite) => {
      const { id: _id, ...row } = sqlite.prepare('SELECT * FROM monitors WHERE id = ?').get(Number(template.id)) as Record<string, unknown> & {
        settings: string;
      };
      const columns = Object.keys(row);
      const insert = sqlite.prepare(`INSERT INTO monitors (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
      const link = sqlite.prepare('INSERT INTO monitor_private_locations (monitor_id, location_id) VALUES (?, ?)');
      const settings = JSON.parse(row.settings) as { uri: string };
      sqlite.transaction(() => {
        for (let n = 1; n < count; n++) {
          const { lastInsertRowid } = insert.run({
            ...row,
            name: `bench tcp ${n}`,
            settings: JSON.stringify({ ...settings, uri: targets[n % targets.length]!.uri }),
          });
          if (issued) link.run(lastInsertRowid, Number(issued.location.id));
        }
      })();
    });
    return { dataDir, location: issued && { id: Number(issued.location.id), name: issued.location.name, token: issued.token } };
  } finally {
    await db.destroy();
  }
}

/** The owner and the bench's workspace, on the `scale` plan for 30 s checks. */
async function benchWorkspace(db: Db) {
  const actor: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  const services = createServices(db);
  const workspace = await services.workspaces.create(actor, { name: 'bench', slug: 'bench', plan: 'scale' });
  return { services, actor, workspaceId: Number(workspace.id) };
}

const templateMonitor = (targets: TcpListener[]) => ({ name: 'bench tcp 0', uri: targets[0]!.uri, periodicity: '30s', timeout: 10_000, retry: 0 }) as const;

/** Seeds the PostgreSQL database at `url` as `seed` seeds a SQLite side's: `count` TCP monitors at 30 s from region `iad`. */
async function seedPostgres(url: string, dataDir: string, count: number, targets: TcpListener[]): Promise<void> {
  const db = await openPostgres(url, dataDir);
  try {
    const { services, actor, workspaceId } = await benchWorkspace(db);
    const template = await services.monitors.create(actor, workspaceId, 'tcp', { ...templateMonitor(targets), regions: ['iad'] });
    const { id: _id, ...row } = await db.selectFrom('monitors').selectAll().where('id', '=', Number(template.id)).executeTakeFirstOrThrow();
    const settings = JSON.parse(row.settings) as { uri: string };
    for (let from = 1; from < count; from += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, count - from) }, (_, i) => ({
        ...row,
        name: `bench tcp ${from + i}`,
        settings: JSON.stringify({ ...settings, uri: targets[(from + i) % targets.length]!.uri }),
      }));
      await db.insertInto('monitors').values(rows).execute();
    }
  } finally {
    await db.destroy();
  }
}

/** A side running: its service, and on the runner side the proxy and the runner. */
interface Running {
  service: Child;
  runner?: RunnerProcess;
  stop(): Promise<void>;
}

/**
 * Starts a side's service on its data folder; on the runner side, also the runner, through the
 * proxy (the service answers under the proxy's address too: OAUTH_ISSUER).
 */
async function startSide(side: Side, seeded: Seeded, proxy: CuttableProxy, options: Options, logDir: string): Promise<Running> {
  const port = await closedPort();
  proxy.target = port;
  const env = { ...process.env, STATUSDESK_CHECKS: side === 'embedded' ? 'on' : 'off', STATUSDESK_LOG_LEVEL: 'warn', OAUTH_ISSUER: proxy.url };
  const service = await spawnReady(
    `${side} service`,
    [...SERVE, '--port', String(port), '--dashboard-port', '0', '--data-dir', seeded.dataDir],
    env,
    join(logDir, `${side}-service.log`),
    () => port,
  );
  const runner = seeded.location
    ? startRunner({
        apiUrl: proxy.url,
        token: seeded.location.token,
        dataDir: join(seeded.dataDir, 'runner'),
        args: ['--buffer-max', String(options.bufferMax)],
        env: { STATUSDESK_LOG_LEVEL: 'warn' },
      })
    : undefined;
  return {
    service,
    runner,
    async stop() {
      await runner?.stop();
      const problem = await service.stop();
      if (problem) line(`bench:scale: ${side} service ${problem}`);
    },
  };
}

/** Waits until results are stored at the schedule's rate for SETTLE_MS. */
async function settle(dataDir: string, monitors: number, what: string): Promise<void> {
  const from = lastResultId(dataDir);
  const wanted = Math.max(1, Math.floor((monitors * SETTLE_MS) / PERIOD_MS));
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (storedSince(dataDir, from) < wanted) {
    if (Date.now() > deadline) throw new Error(`${what}: fewer than ${wanted} results stored within ${SETTLE_TIMEOUT_MS} ms`);
    await sleep(250);
  }
}

/** One side over one window of `ms`: its service started, settled, measured, stopped. */
async function measure(side: Side, seeded: Seeded, ms: number, proxy: CuttableProxy, options: Options, logDir: string): Promise<Round> {
  const running = await startSide(side, seeded, proxy, options, logDir);
  try {
    await settle(seeded.dataDir, options.monitors, side);
    const pids = { service: running.service.child.pid!, runner: running.runner?.child.pid };
    const from = {
      id: lastResultId(seeded.dataDir),
      at: performance.now(),
      service: processCpuSeconds(pids.service) ?? 0,
      runner: pids.runner ? (processCpuSeconds(pids.runner) ?? 0) : 0,
    };
    await sleep(ms);
    const seconds = (performance.now() - from.at) / 1_000;
    const round: Round = {
      rps: storedSince(seeded.dataDir, from.id) / seconds,
      serviceCores: ((processCpuSeconds(pids.service) ?? 0) - from.service) / seconds,
    };
    if (pids.runner) {
      round.runnerCores = ((processCpuSeconds(pids.runner) ?? 0) - from.runner) / seconds;
      round.runnerRssPeak = rssPeak(pids.runner);
    }
    line(`  ${side}: ${round.rps.toFixed(1)} results/s stored`);
    return round;
  } finally {
    await running.stop();
  }
}

interface Outage {
  scheduled: number;
  storedFromOutage: number;
  lost: number;
  dropped: number;
  drainS: number;
}

/**
 * The runner side once more: after it settles, the proxy is cut for the outage, then restored;
 * waits until a result checked after the restore is stored (the runner uploads in sequence order,
 * so the backlog is then all in), and counts what was lost.
 */
async function outage(seeded: Seeded, proxy: CuttableProxy, options: Options, logDir: string): Promise<Outage> {
  const running = await startSide('runner', seeded, proxy, options, logDir);
  const location = seeded.location!;
  try {
    await settle(seeded.dataDir, options.monitors, 'runner before the outage');
    const cutAt = Date.now();
    proxy.cut();
    line(`  proxy cut for ${options.outageS} s`);
    await sleep(options.outageS * 1_000);
    proxy.restore();
    const restoredAt = Date.now();
    const deadline = restoredAt + DRAIN_TIMEOUT_MS;
    const newest = () =>
      readRows<{ at: number | null }>(seeded.dataDir, 'SELECT max(started_at) AS at FROM check_results WHERE runner = ?', location.name)[0]!.at ?? 0;
    while (newest() < restoredAt + 1_000) {
      if (Date.now() > deadline) throw new Error(`the backlog did not arrive within ${DRAIN_TIMEOUT_MS} ms of the restore`);
      await sleep(250);
    }
    const drainS = (Date.now() - restoredAt) / 1_000;
    const state = readRows<{ last_sequence: number; dropped_results: number }>(
      seeded.dataDir,
      'SELECT last_sequence, dropped_results FROM private_locations WHERE id = ?',
      location.id,
    )[0]!;
    const stored = readRows<{ n: number }>(seeded.dataDir, 'SELECT count(*) AS n FROM check_results WHERE runner = ?', location.name)[0]!.n;
    const ids = readRows<{ id: number }>(seeded.dataDir, 'SELECT id FROM monitors');
    const slotsIn = (offset: number) => Math.max(0, Math.ceil((restoredAt - offset) / PERIOD_MS) - Math.ceil((cutAt - offset) / PERIOD_MS));
    const scheduled = ids.reduce((sum, { id }) => sum + slotsIn(offsetOf(id, PERIOD_MS)), 0);
    const storedFromOutage = readRows<{ n: number }>(
      seeded.dataDir,
      'SELECT count(*) AS n FROM check_results WHERE runner = ? AND started_at >= ? AND started_at < ?',
      location.name,
      cutAt,
      restoredAt,
    )[0]!.n;
    return { scheduled, storedFromOutage, lost: state.last_sequence - stored + state.dropped_results, dropped: state.dropped_results, drainS };
  } finally {
    await running.stop();
  }
}

/** What one side of the shared comparison checked in one period. */
interface SharedRound {
  rps: number;
  slots: SlotCount;
}

/** Waits, then counts the slots of one period starting at `from` (checks stored up to a period later). */
async function countPeriod(from: number, ids: number[], read: (from: number, to: number) => Promise<StoredStart[]>): Promise<SharedRound> {
  await sleep(from + 2 * PERIOD_MS - Date.now());
  const slots = countSlots(await read(from, from + 2 * PERIOD_MS), ids, from, from + PERIOD_MS);
  return { rps: slots.checks / (PERIOD_MS / 1_000), slots };
}

/**
 * Two services on one PostgreSQL with the monitors seeded there, sharing the sealing key: once
 * they hold half the shards each and the second has read its monitors, one period's slots.
 */
async function sharedOnPostgres(options: Options, targets: TcpListener[], logDir: string): Promise<SharedRound> {
  const server = await startPostgres();
  const folders = [await mkdtemp(join(tmpdir(), 'statusdesk-bench-scale-pg-a-')), await mkdtemp(join(tmpdir(), 'statusdesk-bench-scale-pg-b-'))];
  const services: Child[] = [];
  try {
    const url = await server.createDatabase();
    await seedPostgres(url, folders[0]!, options.sharedMonitors, targets);
    const env = { ...process.env, STATUSDESK_CHECKS: 'on', STATUSDESK_LOG_LEVEL: 'warn', STATUSDESK_DATABASE_URL: url };
    for (const [i, dataDir] of folders.entries()) {
      if (i > 0) shareSealingKey(folders[0]!, dataDir);
      const args = [...SERVE, '--port', '0', '--dashboard-port', '0', '--data-dir', dataDir];
      services.push(await spawnReady(`PostgreSQL service ${i + 1}`, args, env, join(logDir, `postgres-service-${i + 1}.log`), () => 0));
    }
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while ((await shardsByHolder(url)).join() !== '32,32') {
      if (Date.now() > deadline) throw new Error(`the two services did not hold half the shards each within ${SETTLE_TIMEOUT_MS} ms`);
      await sleep(250);
    }
    const ids = (await queryPostgres<{ id: string }>(url, 'select id from monitors')).map((r) => Number(r.id));
    return await countPeriod(Date.now() + SETTLE_MS, ids, (from, to) => checksIn(url, ids, from, to));
  } finally {
    for (const service of services) {
      const problem = await service.stop();
      if (problem) line(`bench:scale: ${service.name} ${problem}`);
    }
    await server.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  }
}

/** One service on SQLite with as many monitors, once its results flow: one period's slots. */
async function aloneOnSqlite(options: Options, targets: TcpListener[], proxy: CuttableProxy, logDir: string): Promise<SharedRound> {
  const seeded = await seed('embedded', options.sharedMonitors, targets);
  try {
    const running = await startSide('embedded', seeded, proxy, options, logDir);
    try {
      await settle(seeded.dataDir, options.sharedMonitors, 'SQLite service');
      const ids = readRows<{ id: number }>(seeded.dataDir, 'SELECT id FROM monitors').map((r) => r.id);
      const read = async (from: number, to: number) =>
        readRows<StoredStart>(
          seeded.dataDir,
          'SELECT monitor_id AS monitorId, started_at AS startedAt FROM check_results WHERE started_at >= ? AND started_at < ?',
          from,
          to,
        );
      return await countPeriod(Date.now(), ids, read);
    } finally {
      await running.stop();
    }
  } finally {
    await rm(seeded.dataDir, { recursive: true, force: true });
  }
}

const sharedRow = (name: string, round: SharedRound) => [
  name,
  fixed(1)(round.rps),
  String(round.slots.lagP99),
  String(round.slots.duplicates),
  String(round.slots.missed),
];

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      monitors: { type: 'string' },
      rounds: { type: 'string' },
      'outage-s': { type: 'string' },
      'buffer-max': { type: 'string' },
      'shared-monitors': { type: 'string' },
    },
    strict: true,
  });
  const quick = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  return {
    quick,
    monitors: parseNumber('monitors', values.monitors, quick ? 500 : 5_000, 1, 100_000),
    rounds: parseNumber('rounds', values.rounds, quick ? 1 : 2, 1, 15),
    outageS: parseNumber('outage-s', values['outage-s'], quick ? 20 : 60, 1, 3_600),
    bufferMax: parseNumber('buffer-max', values['buffer-max'], 500_000, 1, 100_000_000),
    sharedMonitors: parseNumber('shared-monitors', values['shared-monitors'], quick ? 2_000 : 20_000, 1, 100_000),
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(
      `bench:scale: ${(error as Error).message}\nUsage: npm run bench:scale -- [--monitors N] [--rounds N] [--outage-s S] [--buffer-max N] [--shared-monitors N]\n`,
    );
    return 2;
  }
  const folders: string[] = [];
  const targets: TcpListener[] = [];
  let proxy: CuttableProxy | undefined;
  try {
    for (let i = 0; i < TARGET_LISTENERS; i++) targets.push(await startTcpListener());
    proxy = await startProxy();
    const logDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-scale-logs-'));
    folders.push(logDir);
    line(`-- seeding ${options.monitors} monitors on each side`);
    const seeded = { embedded: await seed('embedded', options.monitors, targets), runner: await seed('runner', options.monitors, targets) };
    folders.push(seeded.embedded.dataDir, seeded.runner.dataDir);

    line('-- upload throughput');
    const sides = ['runner', 'embedded'] as const;
    const result = await compare(sides, { rounds: options.rounds, roundMs: PERIOD_MS, warmupMs: 0 }, (side, ms) =>
      measure(side, seeded[side], ms, proxy!, options, logDir),
    );
    line('-- outage');
    const cut = await outage(seeded.runner, proxy, options, logDir);
    line(`-- ${options.sharedMonitors} monitors: two services on one PostgreSQL, one on SQLite`);
    const shared = withoutPostgres ? undefined : await sharedOnPostgres(options, targets, logDir);
    const alone = await aloneOnSqlite(options, targets, proxy, logDir);

    const runnerRounds = result.samples.runner;
    const runnerCores = median(runnerRounds.map((r) => r.runnerCores!));
    const runnerRss = Math.max(...runnerRounds.map((r) => r.runnerRssPeak!));
    const out = [
      '',
      `Private locations at scale${options.quick ? ' (BENCH_QUICK: smoke-run sizes)' : ''}; Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs; ` +
        `${options.monitors} TCP monitors at 30 s against ${TARGET_LISTENERS} listeners on 127.0.0.1; ${options.rounds} round(s) of one period per side.`,
      '',
      table([
        ['', 'results stored/s (median)', 'service CPU (cores)', 'runner CPU (cores)', 'runner peak RSS (MB)'],
        [
          'runner, through the proxy',
          fixed(1)(median(runnerRounds.map((r) => r.rps))),
          fixed(3)(median(runnerRounds.map((r) => r.serviceCores))),
          fixed(3)(runnerCores),
          mb(runnerRss),
        ],
        [
          'embedded engine (baseline)',
          fixed(1)(median(result.samples.embedded.map((r) => r.rps))),
          fixed(3)(median(result.samples.embedded.map((r) => r.serviceCores))),
          '',
          '',
        ],
        ['schedule', fixed(1)((options.monitors * 1_000) / PERIOD_MS), '', '', ''],
      ]),
      '',
      table([
        [`outage of ${options.outageS} s`, ''],
        ['checks scheduled during it', String(cut.scheduled)],
        ['of those, stored after the restore', String(cut.storedFromOutage)],
        ['results lost (sequence holes + dropped)', String(cut.lost)],
        ['dropped from a full buffer', String(cut.dropped)],
        ['backlog stored within (s after restore)', fixed(1)(cut.drainS)],
      ]),
      '',
      table([
        [`${options.sharedMonitors} TCP monitors at 30 s, one period`, 'checks stored/s', 'lag p99 (ms)', 'duplicate checks', 'missed checks'],
        ...(shared
          ? [sharedRow('two services on one PostgreSQL', shared)]
          : [['two services on one PostgreSQL', `not measured: ${withoutPostgres}`, '', '', '']]),
        sharedRow('one service on SQLite (baseline)', alone),
        ['schedule', fixed(1)((options.sharedMonitors * 1_000) / PERIOD_MS), '', '0', '0'],
      ]),
    ];
    const aims = [
      {
        name: `upload throughput, runner / embedded >= ${AIM_RATIO}`,
        pass: result.ratio >= AIM_RATIO,
        detail: `${result.ratio.toFixed(3)} (rounds: ${result.ratios.map(fixed(3)).join(', ')})`,
      },
      { name: `runner CPU < ${AIM_RUNNER_CORES} core`, pass: runnerCores < AIM_RUNNER_CORES, detail: `${runnerCores.toFixed(3)} cores` },
      { name: `runner peak RSS < ${AIM_RUNNER_RSS_MB} MB`, pass: runnerRss < AIM_RUNNER_RSS_MB * 1_000_000, detail: `${mb(runnerRss)} MB` },
      {
        name: `results lost across a ${options.outageS} s outage = 0`,
        pass: cut.lost === 0,
        detail: `${cut.lost} lost, ${cut.storedFromOutage} of ${cut.scheduled} scheduled checks stored`,
      },
      ...(shared
        ? [
            { name: 'two services on PostgreSQL: duplicate checks = 0', pass: shared.slots.duplicates === 0, detail: String(shared.slots.duplicates) },
            { name: 'two services on PostgreSQL: missed checks = 0', pass: shared.slots.missed === 0, detail: String(shared.slots.missed) },
          ]
        : []),
    ];
    const width = Math.max(...aims.map((a) => a.name.length));
    out.push('', 'Aims:', ...aims.map((a) => `  ${verdict(a.pass)}  ${a.name.padEnd(width)}  ${a.detail}`));
    if (options.quick) out.push('', 'BENCH_QUICK: sizes and durations are reduced; the aims are meant for the full run.');
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    await proxy?.close();
    for (const target of targets) await target.close();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench:scale: ${String((error as Error)?.stack ?? error)}\n`);
  process.exitCode = 1;
}
