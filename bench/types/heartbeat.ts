/**
 * The heartbeat row of bench:checks' `types` part: 10,000 heartbeat monitors (a quick run: 1,000),
 * each expecting a ping a minute with a minute of grace, pinged once a minute by a load generator
 * (this process), the pings spread evenly over the minute, against the real service (`statusdesk
 * serve` from dist/, started as it ships, checks on, over a SQLite data folder seeded through the
 * monitor service). One monitor in a hundred is pinged once and then never again: its deadline
 * passes during the run, and the engine records it down.
 *
 * Figures: the service's CPU time per ping (all of it, from /proc: the HTTP front, the token's
 * lookup, storing the ping and its check result, the deadlines, the periodic states); the p99 of
 * the ping endpoint's answer under that load, as the generator times it; and the lag of deadline
 * evaluation, from the stored down results (when each was recorded against the deadline its
 * record names). Nothing is probed, so the engine's own schedule lag says little: the deadline's is
 * the row's lag.
 *
 * Baseline, in the same run and at the same rate: a bare node:http server in a process of its
 * own answering `GET /ping/<token>` with a plain-text OK, half the baseline's time before the
 * service's run and half after (drift on a busy machine falls on both). Its CPU per request is the
 * least an answer to the same request costs in Node.
 *
 *   node bench/types/heartbeat.ts [--quick]     prints the row (BENCH_QUICK=1 also makes it quick); needs npm run build
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openDatabase, withSqlite } from '../../server/db/open.ts';
import type { Actor } from '../../server/domain/actor.ts';
import { ensureOwner } from '../../server/domain/users/users.ts';
import { createServices } from '../../server/services.ts';
import { percentile, processCpuSeconds } from '../support/figures.ts';
import { endChild, forkScript, nextMessage, SERVE, spawnReady } from '../support/processes.ts';
import { type TypeRow, typeRows } from '../support/type-rows.ts';

const SELF = fileURLToPath(import.meta.url);
const FULL = { monitors: 10_000, baselineMs: 40_000 } as const;
const QUICK = { monitors: 1_000, baselineMs: 20_000 } as const;
const MINUTE = 60_000;
/** Each monitor expects a ping a minute, and waits a minute more. */
const GRACE_MS = MINUTE;
/** One monitor in this many (the first ones) is pinged once, at the start, and never again. */
const SILENT_EVERY = 100;
/** The silent monitors' deadlines pass two minutes after their ping; the run covers them. */
const RUN_MS = 2 * MINUTE + 20_000;
/** Connections the generator keeps open to the service, as many jobs on a few machines would. */
const SOCKETS = 32;
const TIMEOUT_MS = 10_000;

const line = (text: string) => process.stderr.write(`${text}\n`);
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

// ---- the baseline: a bare node:http server ------------------------------------------------------

interface BaselineReady {
  type: 'ready';
  port: number;
}

async function baselineMain(): Promise<void> {
  const server = http.createServer((req, res) => {
    const ok = req.method === 'GET' && req.url?.startsWith('/ping/');
    res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(ok ? 'OK' : 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') server.close(() => process.exit(0));
  });
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies BaselineReady);
}

async function startBaseline(): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const { child, exited } = forkScript(SELF, 'baseline');
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' }));
  try {
    const ready = await nextMessage(child, 'baseline start', 30_000, (m): m is BaselineReady => (m as BaselineReady)?.type === 'ready');
    return { port: ready.port, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- the load generator --------------------------------------------------------------------------

interface Load {
  sent: number;
  failed: number;
  firstFailure: string;
  /** Answer times in ms, sorted. */
  answers: Float64Array;
}

/**
 * Pings `paths` for `durationMs`, each once a minute at its own offset (spread evenly over the
 * minute); a path in `once` only in the first minute. Times each answer.
 */
async function pingLoad(port: number, paths: readonly string[], durationMs: number, once: (index: number) => boolean = () => false): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
  const spacing = MINUTE / paths.length;
  const times: number[] = [];
  let failed = 0;
  let firstFailure = '';
  const running = new Set<Promise<void>>();
  const ping = (path: string) =>
    new Promise<void>((done) => {
      const started = performance.now();
      const fail = (why: string) => {
        if (failed++ === 0) firstFailure = why;
        done();
      };
      const req = http.request({ host: '127.0.0.1', port, path, agent, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.once('end', () => {
          if (res.statusCode === 200) times.push(performance.now() - started);
          else fail(`status ${res.statusCode}`);
          done();
        });
        res.once('error', (error) => fail(error.message));
      });
      req.once('timeout', () => req.destroy(new Error('timed out')));
      req.once('error', (error) => fail(error.message));
      req.end();
    });
  const start = performance.now();
  for (let slot = 0; ; slot++) {
    const minute = Math.floor(slot / paths.length);
    const index = slot % paths.length;
    const at = start + minute * MINUTE + index * spacing;
    if (at - start >= durationMs) break;
    if (minute > 0 && once(index)) continue;
    const wait = at - performance.now();
    if (wait > 1) await delay(wait);
    const call = ping(paths[index]!).then(() => void running.delete(call));
    running.add(call);
  }
  await Promise.all(running);
  agent.destroy();
  return { sent: times.length + failed, failed, firstFailure, answers: Float64Array.from(times).sort() };
}

// ---- the row -------------------------------------------------------------------------------------

/** Heartbeat monitors created through the monitor service, as the CLI or the UI creates them; their ping paths. */
async function seed(dataDir: string, count: number): Promise<string[]> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors records nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    const paths: string[] = [];
    for (let i = 0; i < count; i++) {
      const { pingToken } = await services.monitors.createHeartbeat(actor, workspaceId, {
        name: `bench heartbeat ${i}`,
        schedule: '1m',
        grace: GRACE_MS,
        // Its state is recorded on its own once an hour; its pings and deadlines are the load.
        periodicity: '1h',
        regions: ['iad'],
      });
      paths.push(`/ping/${pingToken}`);
    }
    return paths;
  } finally {
    await db.destroy();
  }
}

/** What the service stored: results by outcome, and the lag of each silent monitor's first down result after its deadline. */
async function readStored(dataDir: string): Promise<{ up: number; down: number; lags: Float64Array; pings: number }> {
  const db = await openDatabase(dataDir);
  try {
    return await withSqlite(db, (sqlite) => {
      const up = sqlite.prepare("select count(*) from check_results where result = 'up'").pluck().get() as number;
      const down = sqlite.prepare("select count(*) from check_results where result = 'down'").pluck().get() as number;
      const pings = sqlite.prepare('select count(*) from heartbeat_pings').pluck().get() as number;
      const firstDowns = sqlite
        .prepare("select started_at, details from check_results where id in (select min(id) from check_results where result = 'down' group by monitor_id)")
        .all() as { started_at: number; details: string }[];
      const lags = firstDowns.flatMap(({ started_at, details }) => {
        const expected = (JSON.parse(details) as { heartbeat?: { expectedBy?: string } }).heartbeat?.expectedBy;
        return expected ? [started_at - (Date.parse(expected) + GRACE_MS)] : [];
      });
      return { up, down, pings, lags: Float64Array.from(lags).sort() };
    });
  } finally {
    await db.destroy();
  }
}

/** The baseline for `durationMs` at the service's rate, and its CPU per request. */
async function baselineRun(paths: readonly string[], durationMs: number): Promise<{ load: Load; cpuSeconds: number }> {
  const baseline = await startBaseline();
  try {
    const before = processCpuSeconds(baseline.pid) ?? 0;
    const load = await pingLoad(baseline.port, paths, durationMs);
    return { load, cpuSeconds: (processCpuSeconds(baseline.pid) ?? 0) - before };
  } finally {
    await baseline.stop();
  }
}

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)} ms`);

export async function benchRow(options: { quick: boolean }): Promise<TypeRow> {
  const size = options.quick ? QUICK : FULL;
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-heartbeat-'));
  try {
    line(`   heartbeat: seeding ${size.monitors.toLocaleString('en')} monitors`);
    const paths = await seed(dataDir, size.monitors);
    const rate = (size.monitors * 1000) / MINUTE;
    // The first of every SILENT_EVERY, pinged in the run's first moments: their deadlines pass two minutes later, within the run.
    const silent = Math.ceil(size.monitors / SILENT_EVERY);

    line(`   heartbeat: baseline (bare node:http), first half: ${size.baselineMs / 2000} s at ${rate.toFixed(1)} pings/s`);
    const first = await baselineRun(paths, size.baselineMs / 2);

    line(`   heartbeat: the service, ${size.monitors.toLocaleString('en')} monitors pinged once a minute for ${RUN_MS / 1000} s`);
    const served = await spawnReady(
      'statusdesk serve',
      [...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0'],
      { ...process.env, STATUSDESK_CHECKS: 'on', STATUSDESK_LOG_LEVEL: 'warn' },
      join(dataDir, 'service.log'),
      (ready) => Number(new URL(String(ready.apiUrl)).port),
    );
    let load: Load;
    let serviceCpu: number;
    try {
      // A first request loads the routes, as the service's first caller would; not measured.
      await pingLoad(served.port, paths.slice(-1), 1);
      const before = processCpuSeconds(served.child.pid!) ?? 0;
      load = await pingLoad(served.port, paths, RUN_MS, (index) => index < silent);
      serviceCpu = (processCpuSeconds(served.child.pid!) ?? 0) - before;
    } finally {
      const problem = await served.stop();
      if (problem) line(`   heartbeat: stopping the service: ${problem}`);
    }

    line('   heartbeat: baseline, second half');
    const second = await baselineRun(paths, size.baselineMs / 2);
    const stored = await readStored(dataDir);

    const pings = load.sent - load.failed;
    const cpuPerPingUs = (serviceCpu * 1e6) / Math.max(1, pings);
    const baselineRequests = first.load.sent - first.load.failed + second.load.sent - second.load.failed;
    const baselineUs = ((first.cpuSeconds + second.cpuSeconds) * 1e6) / Math.max(1, baselineRequests);
    const baselineAnswers = Float64Array.from([...first.load.answers, ...second.load.answers]).sort();
    const notes = [
      `ping answer p50 ${ms(percentile(load.answers, 0.5))}, p99 ${ms(percentile(load.answers, 0.99))} (bare node:http p99 ${ms(percentile(baselineAnswers, 0.99))})`,
      `${pings.toLocaleString('en')} pings answered OK, ${load.failed} failed${load.failed ? ` (${load.firstFailure})` : ''}; ${stored.pings.toLocaleString('en')} kept`,
      `${stored.up.toLocaleString('en')} results up, ${stored.down} down; ${stored.lags.length} of ${silent} silent monitors' deadlines seen, lag max ${ms(stored.lags.at(-1) ?? Number.NaN)}`,
      `CPU per ping: all the service's CPU over the run (front, lookup, storing the ping and its result, deadlines, periodic states)`,
    ];
    return {
      type: 'heartbeat',
      scale: `${size.monitors.toLocaleString('en')} monitors pinged at 1 m${options.quick ? ', quick' : ''}`,
      cpuPerCheckUs: cpuPerPingUs,
      lagP99Ms: percentile(stored.lags, 0.99),
      baseline: { name: 'bare node:http answering the ping', cpuPerCheckUs: baselineUs },
      notes: notes.join('; '),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

// ---- run alone, or as a child of itself ----------------------------------------------------------

const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;
if (isEntry && role === 'baseline') {
  await baselineMain();
} else if (isEntry) {
  const quick = process.argv.includes('--quick') || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  // Not awaited here: typeRows imports this very module, which must have finished evaluating first.
  void typeRows(['heartbeat'], quick, line).then(
    ({ text }) => process.stdout.write(`${text.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`bench heartbeat: ${String((error as Error)?.stack ?? error)}\n`);
      process.exitCode = 1;
    },
  );
}
