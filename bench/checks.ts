/**
 * Check engine benchmark, five parts, all against loopback targets (127.0.0.0/8 only):
 *
 *   1. Throughput: sustained checks per second through the engine's TCP and gRPC/h2c probes at a
 *      fixed concurrency (closedLoop of bench/support/load.ts), next to a baseline in the same run
 *      doing the least the same check can with Node's own clients: a bare `net.connect` + close,
 *      and a bare node:http2 grpc.health.v1.Health/Check (the message framed by hand, a fresh h2c
 *      connection per call, closed after). The gRPC probe speaks HTTP/2 itself (http2-call.ts)
 *      and costs less than that baseline, so its ratio may pass 1. Aim: engine / baseline >= 0.5
 *      for each protocol.
 *   2. Schedule: 20,000 TCP and 5,000 gRPC monitors at 30s, stored in a real SQLite file, checked
 *      by one engine with its schedule on for at least two full periods. Aims: schedule lag
 *      p99 < 2 s, no missed periods, peak RSS < 400 MB.
 *   3. Summary: the 14-day summary of one monitor with 14 days of results at 30s (40,320 rows),
 *      next to a raw SQL scan computing the same counts and percentiles. Aim: median < 50 ms.
 *   4. Scale, the long part (10 minutes): 80,000 TCP and 20,000 gRPC monitors at 30s, as part 2,
 *      against targets of their own (64 TCP listeners and 16 grpc-js servers on 127.0.0.1 to
 *      127.0.0.8: ~3,300 connections a second leave as many sockets in TIME_WAIT a minute, and
 *      each (address, port) pair has the kernel's whole ephemeral range). Aims: schedule lag
 *      p99 < 1 s, no missed slot, engine CPU < one core, peak RSS < 500 MB and flat over the last
 *      5 minutes (RSS and heap every 30 s and their slope are printed), no check failing for want
 *      of a local port. Printed too: the database's bytes per stored check and per rollup row (as
 *      stored, and projected to a full hour and day from the run's latencies), and what a day at
 *      that rate takes with and without retention.
 *
 *   5. Types: a row per monitor type of bench/types/ (DNS, certificate, ping, WebSocket, heartbeat),
 *      each at a scale that fits it against loopback peers of its own, with the engine's CPU per
 *      check, the schedule lag p99, and a baseline measured in the same run (support/type-rows.ts).
 *
 *   npm run bench:checks -- [--parts throughput,schedule,summary,scale,types] [--rounds N] [--round-ms MS]
 *       [--warmup-ms MS] [--concurrency N] [--tcp-monitors N] [--grpc-monitors N] [--schedule-s S]
 *       [--summary-calls N] [--scale-tcp-monitors N] [--scale-grpc-monitors N] [--scale-s S]
 *       [--profile-engine DIR] [--types dns,ping,...]
 *   BENCH_QUICK=1 npm run bench:checks      a smoke run: smaller sizes, shorter rounds, one period
 *
 * Layout: the targets (8 TCP listeners and 4 grpc-js health servers) run in a child process, so
 * their CPU is never counted against the engine. Part 1 and part 3 run on the main process. Parts 2
 * and 4 run the engine alone in a second child process (the main process seeds the database first and
 * counts the stored results after), so its CPU time and RSS are the engine's only: no load
 * generator, no garbage of part 1. --profile-engine DIR writes a V8 CPU profile
 * and a sampling heap profile of that child (node --cpu-prof --heap-prof) to DIR. The profiler's
 * signals cut SQLite's busy waits short (each sleep ends at the next sample, yet counts in full),
 * so a profiled engine may log "database is locked" for a write of its own connection that waited
 * a few ms behind the result writer; a run without profiling waits as long as the busy timeout.
 * That child runs this file bundled by esbuild, as the service runs: without Node's TypeScript
 * loader in memory, and started with the service's Node flags (SERVICE_NODE_FLAGS).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import net from 'node:net';
import { arch, availableParallelism, platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type * as Grpc from '@grpc/grpc-js';
import pino from 'pino';
import { parseTarget, trustStore } from '../server/checks/connection.ts';
import { createCheckEngine } from '../server/checks/engine.ts';
import { type GrpcProbeConfig, probeGrpc } from '../server/checks/grpc-probe.ts';
import { createResultStore, DAY_MS, DEFAULT_MAX_RAW_RESULTS, HOUR_MS, type StoredCheck } from '../server/checks/result-store.ts';
import { offsetOf } from '../server/checks/scheduler.ts';
import { probeTcp } from '../server/checks/tcp-probe.ts';
import { type Db, openDatabase, withSqlite } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { CheckOutcome, MonitorSummary } from '../server/domain/monitors/check-results.ts';
import { LatencyHistogram } from '../server/domain/monitors/latency-histogram.ts';
import type { Monitor } from '../server/domain/monitors/monitors.ts';
import { createServices } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { SERVICE_NODE_FLAGS } from '../server/heap-growth.ts';
import { VERSION } from '../server/package-root.ts';
import { type EngineInput, type EngineReport, engineMain, MEMORY_SERIES_MS, slotsIn } from './support/engine-child.ts';
import { busyCores, compare, machineTicks, median, parseNumber, percentile, table } from './support/figures.ts';
import { closedLoop, failuresOf, type LoadFigures } from './support/load.ts';
import { typeRows, typesWithRows } from './support/type-rows.ts';
import { bundleForService, CHILD_STOP_TIMEOUT_MS, endChild, forkScript, nextMessage } from './support/processes.ts';
import { seededRandom } from '../test/support/seeded-random.ts';

const SELF = fileURLToPath(import.meta.url);
const CPUS = availableParallelism();
const HOST = '127.0.0.1';
/** Listeners of parts 1 to 3: 8 TCP listeners and 4 grpc-js health servers on 127.0.0.1. */
const TARGETS: TargetLayout = { tcpListeners: 8, grpcServers: 4, addresses: 1 };
/**
 * Listeners of the scale part: ~3,300 connections a second, each leaving a socket in TIME_WAIT on
 * the engine's side for a minute, need many (address, port) pairs for the kernel's ephemeral
 * ports; 127.0.0.1 to 127.0.0.8 (all loopback on Linux) each with 8 TCP listeners and 2 gRPC servers.
 */
const SCALE_TARGETS: TargetLayout = { tcpListeners: 64, grpcServers: 16, addresses: 8 };
const PERIOD_MS = 30_000;
/** Probe budget in part 1 and for the seeded monitors: far above any loopback answer. */
const TIMEOUT_MS = 10_000;
const USER_AGENT = `statusdesk/${VERSION}`;

const AIM_RATIO = 0.5;
const AIM_LAG_P99_MS = 2_000;
const AIM_RSS_MB = 400;
const AIM_SUMMARY_MS = 50;
const AIM_SCALE_LAG_P99_MS = 1_000;
const AIM_SCALE_RSS_MB = 500;
/** "Flat": RSS grows less than this over the last part of the run (least-squares slope). */
const AIM_FLAT_MB_PER_MIN = 1;
const FLAT_WINDOW_MS = 300_000;
const SCALE_SERIES_MS = 30_000;
const TIME_WAIT_SAMPLE_MS = 10_000;

/** A slot this close to the end of the run may still be in flight when the engine closes. */
const END_MARGIN_MS = 5_000;
const CHILD_START_TIMEOUT_MS = 30_000;
const PROFILE_WRITE_TIMEOUT_MS = 180_000;
const SUMMARY_ROWS_BATCH = 1_000;
const SUMMARY_WARMUP_CALLS = 5;

const line = (text: string) => process.stderr.write(`${text}\n`);
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
/** `ms` in whole periods, as words. */
const wholePeriods = (ms: number) => {
  const n = Math.floor(ms / PERIOD_MS);
  return `${n} full period${n === 1 ? '' : 's'}`;
};

// ---- formatting -----------------------------------------------------------------------------

const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const int = fixed(0);
const ms2 = fixed(2);
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
// Decimal megabytes: the stricter reading of "400 MB".
const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

// ---- child processes -------------------------------------------------------------------------

type Role = 'targets' | 'engine';

/** How many listeners the targets process opens, spread round robin over 127.0.0.1 .. 127.0.0.<addresses>. */
interface TargetLayout {
  tcpListeners: number;
  grpcServers: number;
  addresses: number;
}

interface TargetsReady {
  type: 'ready';
  /** `host:port` of each listener. */
  tcp: string[];
  grpc: string[];
  /** Loopback addresses that could not be bound (not every system routes all of 127.0.0.0/8). */
  unbound: string[];
}
type ToTargets = { type: 'cpu'; id: number } | { type: 'stop' };
interface TargetsCpu {
  type: 'cpu';
  id: number;
  /** User + system CPU time of the targets process so far, in microseconds. */
  micros: number;
}

/**
 * This file bundled as the service ships, for the engine process: its memory is then the
 * service's, not that of Node's TypeScript loader.
 */
const bundleSelf = () => bundleForService(SELF, 'bench-checks-engine', ['better-sqlite3', '@grpc/grpc-js', 'grpc-health-check']);

const forkRole = (role: Role, execArgv: string[] = [], script = SELF, input = '') => forkScript(script, role, execArgv, input);

// ---- the targets process --------------------------------------------------------------------

/**
 * TCP listeners that accept and let the client close first (the probe destroys its socket right
 * after connecting; the listener ends its side on the client's FIN), and grpc-js servers with the
 * reference health service (grpc-health-check), the whole server SERVING.
 */
async function targetsMain(layout: TargetLayout): Promise<void> {
  const grpc = await import('@grpc/grpc-js');
  const { HealthImplementation } = await import('grpc-health-check');
  const tcpServers: net.Server[] = [];
  const grpcServers: Grpc.Server[] = [];
  const tcp: string[] = [];
  const grpcTargets: string[] = [];
  const listenTcp = async (host: string) => {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.resume();
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen({ host, port: 0, backlog: 4096 }, () => done());
    });
    tcpServers.push(server);
    return `${host}:${(server.address() as net.AddressInfo).port}`;
  };
  // 127.0.0.1 always; the others only where the system routes them to loopback.
  const hosts = [HOST];
  const unbound: string[] = [];
  for (let a = 2; a <= layout.addresses; a++) {
    const host = `127.0.0.${a}`;
    try {
      tcp.push(await listenTcp(host));
      hosts.push(host);
    } catch {
      unbound.push(host);
    }
  }
  while (tcp.length < layout.tcpListeners) tcp.push(await listenTcp(hosts[tcp.length % hosts.length]!));
  for (let i = 0; i < layout.grpcServers; i++) {
    const host = hosts[i % hosts.length]!;
    const server = new grpc.Server();
    new HealthImplementation({ '': 'SERVING' }).addToServer(server);
    const port = await new Promise<number>((done, fail) =>
      server.bindAsync(`${host}:0`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? fail(error) : done(bound))),
    );
    grpcServers.push(server);
    grpcTargets.push(`${host}:${port}`);
  }
  // The bench is gone (crashed or killed): nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToTargets) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ type: 'cpu', id: message.id, micros: user + system } satisfies TargetsCpu);
    } else if (message.type === 'stop') {
      for (const server of grpcServers) server.forceShutdown();
      for (const server of tcpServers) server.close();
      process.exit(0);
    }
  });
  process.send!({ type: 'ready', tcp, grpc: grpcTargets, unbound } satisfies TargetsReady);
}

interface Targets {
  /** `host:port` of each listener. */
  tcp: string[];
  grpc: string[];
  unbound: string[];
  /** CPU time of the targets process so far, in microseconds. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function startTargets(layout: TargetLayout): Promise<Targets> {
  const { child, exited } = forkRole('targets', [], SELF, JSON.stringify(layout));
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' } satisfies ToTargets));
  let ready: TargetsReady;
  try {
    ready = await nextMessage(child, 'targets start', CHILD_START_TIMEOUT_MS, (m): m is TargetsReady => (m as TargetsReady)?.type === 'ready');
  } catch (error) {
    await stop();
    throw error;
  }
  let nextId = 0;
  return {
    tcp: ready.tcp,
    grpc: ready.grpc,
    unbound: ready.unbound,
    async cpu() {
      const id = nextId++;
      const answer = nextMessage(
        child,
        'targets cpu',
        CHILD_START_TIMEOUT_MS,
        (m): m is TargetsCpu => (m as TargetsCpu)?.type === 'cpu' && (m as TargetsCpu).id === id,
      );
      child.send({ type: 'cpu', id } satisfies ToTargets);
      return (await answer).micros;
    },
    stop,
  };
}

// ---- part 1: throughput -----------------------------------------------------------------------

/** One check: resolves with null when it succeeded, or with what went wrong. */
type CheckOp = (slot: number) => Promise<string | null>;

interface RoundResult extends LoadFigures {
  /** CPU of the main process (the probes or the baseline loop) as a share of one core. */
  mainCpu: number;
  /** CPU of the targets process as a share of one core. */
  targetCpu: number;
  /** CPU of the whole machine, every process, in cores (NaN where /proc/stat is not readable). */
  machineCores: number;
}

async function runRound(op: CheckOp, concurrency: number, ms: number, targets: Targets): Promise<RoundResult> {
  const targetCpu = await targets.cpu();
  const machine = machineTicks();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const figures = await closedLoop(concurrency, ms, op);
  const elapsed = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const machineCores = busyCores(machine, machineTicks()) ?? NaN;
  const targetMicros = (await targets.cpu()) - targetCpu;
  return {
    ...figures,
    mainCpu: (user + system) / 1000 / elapsed,
    targetCpu: targetMicros / 1000 / elapsed,
    machineCores,
  };
}

function rawTcp(authority: string): Promise<string | null> {
  const { host, port } = parseTarget(authority);
  return new Promise((done) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      done(null);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      done(`net.connect: ${error.code ?? error.message}`);
    });
  });
}

/** An empty HealthCheckRequest (the whole server), framed: not compressed, 0 bytes long. */
const HEALTH_CHECK_FRAME = Buffer.alloc(5);
/** HealthCheckResponse { status: SERVING }, framed: field 1, varint 1. */
const SERVING_FRAME = Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]);

/**
 * The gRPC baseline: grpc.health.v1.Health/Check on bare node:http2, the message framed by hand,
 * on a fresh h2c connection per call, destroyed after; the answer must be SERVING with
 * grpc-status 0. What the probe adds on top is its own work: phase timing, the deadline, the
 * metadata, decoding, the outcome.
 */
function bareGrpcHealth(authority: string): Promise<string | null> {
  return new Promise((done) => {
    const session = http2.connect(`http://${authority}`);
    let ended = false;
    const end = (problem: string | null) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      session.destroy();
      done(problem);
    };
    const timer = setTimeout(() => end(`http2: no answer within ${TIMEOUT_MS} ms`), TIMEOUT_MS);
    session.once('error', (error: NodeJS.ErrnoException) => end(`http2: ${error.code ?? error.message}`));
    const stream = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('trailers', (trailers) => (status = String(trailers['grpc-status'])));
    stream.once('error', (error: NodeJS.ErrnoException) => end(`http2 stream: ${error.code ?? error.message}`));
    stream.once('end', () => {
      const body = Buffer.concat(chunks);
      end(status === '0' && body.equals(SERVING_FRAME) ? null : `http2: grpc-status ${status}, ${body.length} bytes`);
    });
    stream.end(HEALTH_CHECK_FRAME);
  });
}

interface ThroughputCell {
  protocol: string;
  engine: RoundResult;
  baseline: RoundResult;
  ratio: number;
  engineRange: [number, number];
  baselineRange: [number, number];
  engineFailures: [string, number][];
  baselineFailures: [string, number][];
}

function summariseRounds(rounds: RoundResult[]): RoundResult {
  const of = (pick: (r: RoundResult) => number) => median(rounds.map(pick));
  return {
    ...rounds[0]!,
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    mainCpu: of((r) => r.mainCpu),
    targetCpu: of((r) => r.targetCpu),
    machineCores: of((r) => r.machineCores),
  };
}

async function throughputCell(protocol: string, engine: CheckOp, baseline: CheckOp, options: Options, targets: Targets): Promise<ThroughputCell> {
  const ops = { engine, baseline };
  const { samples, ratio } = await compare<'engine' | 'baseline', RoundResult>(
    ['engine', 'baseline'],
    options,
    (side, ms) => runRound(ops[side], options.concurrency, ms, targets),
    (round, last) => line(`${protocol}: round ${round + 1}/${options.rounds}: engine ${int(last.engine.rps)}/s | baseline ${int(last.baseline.rps)}/s`),
  );
  const range = (rounds: RoundResult[]): [number, number] => [Math.min(...rounds.map((r) => r.rps)), Math.max(...rounds.map((r) => r.rps))];
  return {
    protocol,
    engine: summariseRounds(samples.engine),
    baseline: summariseRounds(samples.baseline),
    ratio,
    engineRange: range(samples.engine),
    baselineRange: range(samples.baseline),
    engineFailures: failuresOf(samples.engine),
    baselineFailures: failuresOf(samples.baseline),
  };
}

async function throughput(options: Options, targets: Targets): Promise<{ text: string[]; aims: Aim[] }> {
  const tcpMonitors = targets.tcp.map((uri) => ({ uri, timeout: TIMEOUT_MS, degraded: null, retry: 0 }));
  const grpcMonitors: GrpcProbeConfig[] = targets.grpc.map((uri) => ({
    uri,
    service: '',
    tls: 'plaintext',
    metadata: {},
    timeout: TIMEOUT_MS,
    degraded: null,
    retry: 0,
  }));
  // What the engine passes every probe; built once, as the engine builds it on its first check.
  const probeOptions = { trust: trustStore(), userAgent: USER_AGENT };
  const outcome = (r: { result: CheckOutcome; message: string }) => (r.result === 'up' ? null : `${r.result}: ${r.message}`);

  const cells: ThroughputCell[] = [];
  cells.push(
    await throughputCell(
      'TCP',
      (slot) => probeTcp(tcpMonitors[slot % tcpMonitors.length]!).then(outcome),
      (slot) => rawTcp(targets.tcp[slot % targets.tcp.length]!),
      options,
      targets,
    ),
  );
  cells.push(
    await throughputCell(
      'gRPC/h2c',
      (slot) => probeGrpc(grpcMonitors[slot % grpcMonitors.length]!, probeOptions).then(outcome),
      (slot) => bareGrpcHealth(targets.grpc[slot % targets.grpc.length]!),
      options,
      targets,
    ),
  );

  const rows = [['protocol', 'engine checks/s', 'p50 ms', 'p99 ms', 'baseline checks/s', 'p50 ms', 'p99 ms', 'ratio', 'failures eng/base']];
  const diagnostics = [
    [
      'protocol',
      'checks/s min-max engine',
      'baseline',
      'bench process CPU eng/base',
      'targets process CPU eng/base',
      'CPU us/check eng/base',
      `other processes (of ${CPUS} cores) eng/base`,
    ],
  ];
  const aims: Aim[] = [];
  const failureLines: string[] = [];
  for (const cell of cells) {
    rows.push([
      cell.protocol,
      int(cell.engine.rps),
      ms2(cell.engine.p50),
      ms2(cell.engine.p99),
      int(cell.baseline.rps),
      ms2(cell.baseline.p50),
      ms2(cell.baseline.p99),
      cell.ratio.toFixed(2),
      `${cell.engine.errors}/${cell.baseline.errors}`,
    ]);
    const usPer = (r: RoundResult) => ((r.mainCpu * 1e6) / r.rps).toFixed(0);
    const others = (r: RoundResult) => (Number.isNaN(r.machineCores) ? 'n/a' : Math.max(0, r.machineCores - r.mainCpu - r.targetCpu).toFixed(2));
    diagnostics.push([
      cell.protocol,
      `${int(cell.engineRange[0])}-${int(cell.engineRange[1])}`,
      `${int(cell.baselineRange[0])}-${int(cell.baselineRange[1])}`,
      `${pct(cell.engine.mainCpu)}/${pct(cell.baseline.mainCpu)}`,
      `${pct(cell.engine.targetCpu)}/${pct(cell.baseline.targetCpu)}`,
      `${usPer(cell.engine)}/${usPer(cell.baseline)}`,
      `${others(cell.engine)}/${others(cell.baseline)}`,
    ]);
    const failuresOk = cell.engine.errors === 0;
    aims.push({
      name: `1. ${cell.protocol} throughput engine/baseline >= ${AIM_RATIO}`,
      pass: cell.ratio >= AIM_RATIO && failuresOk,
      detail: `${cell.ratio.toFixed(2)}${failuresOk ? '' : `, but ${cell.engine.errors} engine checks failed`}`,
    });
    for (const [side, failures] of [
      ['engine', cell.engineFailures],
      ['baseline', cell.baselineFailures],
    ] as const) {
      for (const [message, n] of failures.slice(0, 3)) failureLines.push(`  ${cell.protocol} ${side}: ${n} x ${message}`);
    }
  }
  const text = [
    `1. Throughput: ${options.concurrency} checks in flight, ${options.warmupMs} ms warm-up per side, then ${options.rounds} round${options.rounds === 1 ? '' : 's'} ` +
      `of ${options.roundMs} ms per side, engine and baseline alternating; medians of the rounds, ratio = median of per-round ratios.`,
    `   Engine: probeTcp / probeGrpc (h2c, whole-server health) as the engine calls them, timeout ${TIMEOUT_MS} ms, retry 0.`,
    `   Baseline: net.connect + destroy on 'connect'; Health/Check on bare node:http2, framed by hand, on a fresh h2c connection per call, destroyed after.`,
    `   Targets: ${targets.tcp.length} TCP listeners and ${targets.grpc.length} grpc-js health servers on ${HOST} in a child process; in-flight loops spread over them.`,
    '',
    table(rows),
    '',
    'Diagnostics (medians of the rounds; CPU as a share of one core; us/check = bench process CPU per check; other processes = machine CPU',
    'from /proc/stat minus the bench and targets processes, in cores: load on the machine that is not this bench):',
    table(diagnostics),
  ];
  if (failureLines.length > 0) text.push('', 'Failures (most frequent):', ...failureLines);
  return { text, aims };
}

// ---- part 2: the schedule ---------------------------------------------------------------------

/**
 * Seeds the database: the owner and their personal workspace (as the service's first start does),
 * one TCP and one gRPC monitor created through the monitor service, and the rest inserted with
 * SQL as copies of those two rows (same columns, same JSON layout), targets spread round robin.
 */
async function seedMonitors(dataDir: string, tcpCount: number, grpcCount: number, targets: Targets): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    const common = { periodicity: '30s', timeout: TIMEOUT_MS, degraded: 2_000, retry: 1, regions: ['iad', 'fra'], tags: ['bench'] };
    const templates = {
      tcp: await services.monitors.create(actor, workspaceId, 'tcp', { ...common, name: 'bench tcp 0', uri: targets.tcp[0]! }),
      grpc: await services.monitors.create(actor, workspaceId, 'grpc', {
        ...common,
        name: 'bench grpc 0',
        uri: targets.grpc[0]!,
        tls: 'plaintext',
      }),
    };
    await withSqlite(db, (sqlite) => {
      const rowOf = sqlite.prepare('select * from monitors where id = ?');
      const insert = sqlite.prepare(
        `insert into monitors (workspace_id, type, name, description, active, periodicity, regions, timeout_ms, degraded_ms, retry, open_telemetry, tags,
           settings, revision, created_at, updated_at)
         values (@workspace_id, @type, @name, @description, @active, @periodicity, @regions, @timeout_ms, @degraded_ms, @retry, @open_telemetry, @tags,
           @settings, @revision, @created_at, @updated_at)`,
      );
      const rows = {
        tcp: rowOf.get(Number(templates.tcp.id)) as Record<string, unknown> & { settings: string },
        grpc: rowOf.get(Number(templates.grpc.id)) as Record<string, unknown> & { settings: string },
      };
      const settings = { tcp: JSON.parse(rows.tcp.settings) as { uri: string }, grpc: JSON.parse(rows.grpc.settings) as { uri: string } };
      const total = tcpCount + grpcCount;
      const made = { tcp: 1, grpc: 1 };
      sqlite.transaction(() => {
        // Types interleaved in proportion, so ids (and with them schedule offsets) mix both.
        for (let k = 2; k < total; k++) {
          const wantGrpc = Math.floor(((k + 1) * grpcCount) / total) > Math.floor((k * grpcCount) / total);
          const type = (wantGrpc && made.grpc < grpcCount) || made.tcp >= tcpCount ? 'grpc' : 'tcp';
          const n = made[type]++;
          const uris = type === 'tcp' ? targets.tcp : targets.grpc;
          const { id: _id, ...row } = rows[type];
          insert.run({ ...row, name: `bench ${type} ${n}`, settings: JSON.stringify({ ...settings[type], uri: uris[n % uris.length] }) });
        }
      })();
    });
  } finally {
    await db.destroy();
  }
}

/** What a scheduled run is: part 2 (schedule) and part 4 (scale) differ only in size, length and aims. */
interface ScheduleRun {
  part: string;
  tcpMonitors: number;
  grpcMonitors: number;
  seconds: number;
  lagAimMs: number;
  rssAimMb: number;
  /** The scale part's further aims: engine CPU, flat memory, database size, ephemeral ports. */
  scale: boolean;
}

/** Sockets in TIME_WAIT on this machine (Linux /proc/net/tcp*), or null where it is not readable. */
function timeWaitSockets(): number | null {
  let n = 0;
  try {
    for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
      const text = readFileSync(file, 'latin1');
      // Column 4 (st) is the state; 06 is TIME_WAIT.
      for (let at = text.indexOf(' 06 '); at !== -1; at = text.indexOf(' 06 ', at + 4)) n++;
    }
    return n;
  } catch {
    return null;
  }
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * The bytes of a monitor's latency histogram once it holds `checks` checks, on average over 1,000
 * monitors (TCP the share `tcpShare`, the rest gRPC) whose checks take latencies drawn, seeded,
 * from a sample of this run's: what a rollup's histogram grows to by the end of its hour or day.
 */
function fullLatencyBytes(latencies: Map<string, number[]>, tcpShare: number, checks: number): number {
  const next = seededRandom(1);
  let bytes = 0;
  for (let monitor = 0; monitor < 1_000; monitor++) {
    const pool = latencies.get(monitor < 1_000 * tcpShare ? 'tcp' : 'grpc') ?? [];
    const histogram = new LatencyHistogram();
    for (let i = 0; i < checks && pool.length > 0; i++) histogram.add(pool[Math.floor(next() * pool.length)]!);
    bytes += histogram.encode().length;
  }
  return bytes / 1_000;
}

async function schedule(run: ScheduleRun, options: Options, targets: Targets, tempDirs: string[]): Promise<{ text: string[]; aims: Aim[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-checks-'));
  tempDirs.push(dataDir);
  const seeding = performance.now();
  await seedMonitors(dataDir, run.tcpMonitors, run.grpcMonitors, targets);
  line(
    `seeded ${run.tcpMonitors} TCP + ${run.grpcMonitors} gRPC monitors in ${int(performance.now() - seeding)} ms; running the schedule for ${run.seconds} s`,
  );

  // Started as the service is (SERVICE_NODE_FLAGS), so its heap is the service's.
  const execArgv = [
    ...SERVICE_NODE_FLAGS,
    ...(options.profileEngine ? ['--cpu-prof', '--cpu-prof-dir', options.profileEngine, '--heap-prof', '--heap-prof-dir', options.profileEngine] : []),
  ];
  const bundle = await bundleSelf();
  const { child, exited } = forkRole('engine', execArgv, bundle);
  const targetCpu = await targets.cpu();
  const targetFrom = performance.now();
  let report: EngineReport;
  let timeWaitPeak: number | null = null;
  const timeWaits = setInterval(() => {
    const n = timeWaitSockets();
    if (n !== null) timeWaitPeak = Math.max(timeWaitPeak ?? 0, n);
  }, TIME_WAIT_SAMPLE_MS);
  try {
    const answer = nextMessage(child, 'engine run', run.seconds * 1000 + 180_000, (m): m is EngineReport => (m as EngineReport)?.type === 'report');
    child.send({ dataDir, durationMs: run.seconds * 1000 } satisfies EngineInput);
    report = await answer;
    // Writing the profiles of a long run takes a while.
    await Promise.race([exited, delay(options.profileEngine ? PROFILE_WRITE_TIMEOUT_MS : CHILD_STOP_TIMEOUT_MS)]);
  } finally {
    clearInterval(timeWaits);
    await endChild(child, exited);
    await rm(bundle, { force: true });
  }
  // Over the engine process's whole life (start and close included): a slight overestimate of the run's.
  const targetShare = ((await targets.cpu()) - targetCpu) / 1000 / (performance.now() - targetFrom);

  // What was stored, per monitor, read after the engine closed (pending results flushed).
  const db = await openDatabase(dataDir);
  let perMonitor: { id: number; type: 'tcp' | 'grpc' | 'http'; n: number }[];
  let byResult: { type: string; result: string; n: number }[];
  let problems: { message: string; n: number }[];
  let sizes: { name: string; bytes: number }[];
  let rollupRows: number;
  /** The rollups folded by day, as they are once 15 days old (the scale part only): their rows and bytes. */
  let folded = { rows: 0, bytes: 0, latencyBytes: 0 };
  /** The bytes of a rollup's latency histogram, on average; and a sample of the latencies stored, by monitor type. */
  let rollupLatencyBytes = 0;
  const latencies = new Map<string, number[]>();
  try {
    [perMonitor, byResult, problems, sizes, rollupRows] = await withSqlite(db, (sqlite) => [
      sqlite.prepare('select m.id, m.type, count(r.id) as n from monitors m left join check_results r on r.monitor_id = m.id group by m.id').all() as {
        id: number;
        type: 'tcp' | 'grpc' | 'http';
        n: number;
      }[],
      sqlite
        .prepare('select m.type, r.result, count(*) as n from check_results r join monitors m on m.id = r.monitor_id group by 1, 2 order by 1, 2')
        .all() as {
        type: string;
        result: string;
        n: number;
      }[],
      sqlite.prepare("select message, count(*) as n from check_results where result != 'up' group by 1 order by 2 desc limit 5").all() as {
        message: string;
        n: number;
      }[],
      // Pages of each table and index: what a stored check costs on disk.
      sqlite.prepare('select name, sum(pgsize) as bytes from dbstat group by name').all() as { name: string; bytes: number }[],
      sqlite.prepare('select count(*) from check_rollups').pluck().get() as number,
    ]);
    if (run.scale) {
      await withSqlite(db, (sqlite) => {
        rollupLatencyBytes = sqlite.prepare('select avg(length(latency)) from check_rollups').pluck().get() as number;
        const sample = sqlite
          .prepare("select m.type, r.latency_ms from check_results r join monitors m on m.id = r.monitor_id where r.id % 50 = 0 and r.result != 'down'")
          .raw()
          .all() as [string, number][];
        for (const [type, ms] of sample) (latencies.get(type) ?? latencies.set(type, []).get(type)!).push(ms);
      });
      // Retention as it stands 16 days on: raw results gone, each monitor's hours folded into its day.
      await createResultStore(db).prune(report.endedAt + 16 * DAY_MS);
      folded = await withSqlite(db, (sqlite) => ({
        rows: sqlite.prepare('select count(*) from check_rollups').pluck().get() as number,
        bytes: sqlite.prepare("select sum(pgsize) from dbstat where name = 'check_rollups'").pluck().get() as number,
        latencyBytes: sqlite.prepare('select avg(length(latency)) from check_rollups').pluck().get() as number,
      }));
    }
  } finally {
    await db.destroy();
  }

  const elapsedMs = report.endedAt - report.runningAt;
  const windowEnd = report.endedAt - END_MARGIN_MS;
  // Whole periods before the end margin, as for the slots: a check still running when the engine
  // closes is dropped, so a monitor whose last slot came in the run's final moments stores one fewer.
  const periods = Math.floor((windowEnd - report.runningAt) / PERIOD_MS);
  let belowPeriods = 0;
  let missedSlots = 0;
  let monitorsMissingSlots = 0;
  let minRows = Infinity;
  for (const m of perMonitor) {
    minRows = Math.min(minRows, m.n);
    if (m.n < periods) belowPeriods++;
    // Every slot from the scheduler's start to shortly before the end was planned and must have run.
    const expected = slotsIn(report.runningAt, windowEnd, offsetOf(m.id, PERIOD_MS), PERIOD_MS);
    if (m.n < expected) {
      missedSlots += expected - m.n;
      monitorsMissingSlots++;
    }
  }
  const stored = perMonitor.reduce((sum, m) => sum + m.n, 0);
  const notUp = byResult.filter((r) => r.result !== 'up').reduce((sum, r) => sum + r.n, 0);
  const cpuShare = (report.cpuUserMs + report.cpuSystemMs) / elapsedMs;
  const lagText = (v: number | null) => (v === null ? 'n/a' : `${ms2(v)} ms`);

  // The memory of the last half of the run, at most its last 5 minutes: flat means no growth there.
  const flatFrom = Math.max(elapsedMs / 2, elapsedMs - FLAT_WINDOW_MS) / 1000;
  const tail = report.memory.filter(([t]) => t >= flatFrom);
  const rssSlope = slope(tail.map(([t, rss]) => [t / 60, rss / 1_000_000])); // MB per minute
  const heapSlope = slope(tail.map(([t, , heap]) => [t / 60, heap / 1_000_000]));
  const rssPeakTail = Math.max(...tail.map(([, rss]) => rss));
  const rssPeakHead = Math.max(0, ...report.memory.filter(([t]) => t < flatFrom).map(([, rss]) => rss));
  // Database: the raw table with its indexes per stored check, and a rollup row.
  const bytesOf = (names: string[]) => sizes.filter((x) => names.includes(x.name)).reduce((sum, x) => sum + x.bytes, 0);
  const rawBytes = bytesOf(['check_results', 'check_results_monitor', 'check_results_started']);
  const bytesPerCheck = stored === 0 ? 0 : rawBytes / stored;
  const rollupBytes = bytesOf(['check_rollups']);
  const bytesPerRollup = rollupRows === 0 ? 0 : rollupBytes / rollupRows;
  const checksPerDay = (report.jobs * DAY_MS) / PERIOD_MS;
  const rawPerDay = checksPerDay * bytesPerCheck;
  const bytesPerDayRollup = folded.rows === 0 ? 0 : folded.bytes / folded.rows;
  // A run is shorter than an hour, and an hour's rollup grows with its checks' latencies: rows as they are once full.
  const latencyBytesOf = (checks: number) => fullLatencyBytes(latencies, run.tcpMonitors / report.jobs, checks);
  const bytesPerHourRollup = bytesPerRollup - rollupLatencyBytes + latencyBytesOf(HOUR_MS / PERIOD_MS);
  const bytesPerFullDayRollup = bytesPerDayRollup - folded.latencyBytes + latencyBytesOf(DAY_MS / PERIOD_MS);
  const rollupsPerDay = report.jobs * 24 * bytesPerHourRollup;
  // What retention keeps: the newest DEFAULT_MAX_RAW_RESULTS raw results (or 14 days, if fewer), 15 days of hourly rollups and 75 of daily ones.
  const rawKept = Math.min(DEFAULT_MAX_RAW_RESULTS, checksPerDay * 14) * bytesPerCheck;
  const rollupsKept = 15 * rollupsPerDay + 75 * report.jobs * bytesPerFullDayRollup;
  const failedForPorts = problems.filter((p) => p.message === 'address not available').reduce((sum, p) => sum + p.n, 0);

  const rows = [
    ['figure', 'value'],
    ['monitors scheduled (TCP + gRPC)', `${report.jobs} (${run.tcpMonitors} + ${run.grpcMonitors}), all at 30s`],
    ['engine.start() (sync of all monitors)', `${int(report.startMs)} ms wall, ${int(report.startCpuMs)} ms CPU`],
    [
      'scheduled run (scheduler started -> end)',
      `${(elapsedMs / 1000).toFixed(1)} s = ${wholePeriods(elapsedMs)}, ${wholePeriods(windowEnd - report.runningAt)} before the last ${END_MARGIN_MS / 1000} s`,
    ],
    ['checks started', `${report.started} (${int(report.started / (elapsedMs / 1000))}/s; expected ~${int((report.jobs * 1000) / PERIOD_MS)}/s)`],
    ['check results stored', `${stored} (${notUp} not up)`],
    ['schedule lag p50 / p99 / max', `${lagText(report.lagP50)} / ${lagText(report.lagP99)} / ${lagText(report.lagMax)}`],
    ['skippedBusy / gaps', `${report.skippedBusy} / ${report.gaps}`],
    ['checks in flight max / waiting max (250 ms samples)', `${report.maxRunning} / ${report.maxWaiting}`],
    [`monitors with < ${periods} stored results`, `${belowPeriods} (fewest results of any monitor: ${minRows})`],
    [`missed slots (each slot from scheduler start to end - ${END_MARGIN_MS / 1000} s)`, `${missedSlots} in ${monitorsMissingSlots} monitors`],
    ['engine process CPU (user + system)', `${pct(cpuShare)} of one core (${int(report.cpuUserMs)} + ${int(report.cpuSystemMs)} ms)`],
    [
      'engine CPU per check started (user + system)',
      `${int(((report.cpuUserMs + report.cpuSystemMs) * 1000) / report.started)} us (${int((report.cpuUserMs * 1000) / report.started)} + ${int((report.cpuSystemMs * 1000) / report.started)})`,
    ],
    [
      'engine GC (service thread): young / the rest, count and time',
      `${report.gc.young[0]} / ${int(report.gc.young[1])} ms; ${report.gc.other[0]} / ${int(report.gc.other[1])} ms (${pct((report.gc.young[1] + report.gc.other[1]) / elapsedMs)} of the run)`,
    ],
    [
      'engine event loop: utilisation / delay p99 / max',
      `${pct(report.eventLoopUtilization)} / ${ms2(report.eventLoopDelayP99Ms)} ms / ${ms2(report.eventLoopDelayMaxMs)} ms`,
    ],
    [
      'engine RSS peak / at end; heap used peak',
      `${mb(report.rssPeak)} MB / ${mb(report.rssEnd)} MB; ${mb(report.heapUsedPeak)} MB at ${report.heapUsedPeakAt} s`,
    ],
    [
      `RSS / heap slope from ${int(flatFrom)} s to the end`,
      `${rssSlope.toFixed(2)} / ${heapSlope.toFixed(2)} MB per minute; RSS peak ${mb(rssPeakTail)} MB there, ${mb(rssPeakHead)} MB before`,
    ],
    ['database: raw results + indexes per stored check', `${int(bytesPerCheck)} bytes (${mb(rawBytes)} MB for ${stored} checks)`],
    [
      'database: a rollup row (monitor-hour); folded by day (monitor-day)',
      `${int(bytesPerRollup)} bytes, ${int(bytesPerHourRollup)} once the hour is full; ${int(bytesPerDayRollup)} bytes of this run's hours, ${int(bytesPerFullDayRollup)} of a full day`,
    ],
    [
      'database at this rate for a day, without retention',
      `${(rawPerDay / 1e9).toFixed(1)} GB raw (${int(checksPerDay)} checks) + ${(rollupsPerDay / 1e9).toFixed(2)} GB rollups`,
    ],
    [
      'database with retention, after a day / at most',
      `${((rawKept + rollupsPerDay) / 1e9).toFixed(2)} GB / ${((rawKept + rollupsKept) / 1e9).toFixed(1)} GB ` +
        `(raw capped at ${DEFAULT_MAX_RAW_RESULTS.toLocaleString('en')} checks = ${(rawKept / 1e9).toFixed(2)} GB; rollups ${(rollupsPerDay / 1e6).toFixed(0)} MB a day, ` +
        `hourly for 15 days, then ${((report.jobs * bytesPerFullDayRollup) / 1e6).toFixed(0)} MB a day folded by day, to 90 days: ${(rollupsKept / 1e9).toFixed(1)} GB)`,
    ],
    ['sockets in TIME_WAIT, peak (machine-wide)', timeWaitPeak === null ? 'n/a' : String(timeWaitPeak)],
    ['targets process CPU (not counted above)', `${pct(targetShare)} of one core`],
    [
      `other processes on the machine (of ${CPUS} cores)`,
      report.machineBusyCores === null
        ? 'n/a'
        : `${Math.max(0, report.machineBusyCores - cpuShare - targetShare).toFixed(2)} cores (machine busy ${report.machineBusyCores.toFixed(2)} cores)`,
    ],
    ['engine.close()', `${int(report.closeMs)} ms`],
    ['engine warnings/errors logged', String(report.logLines)],
  ];
  if (!run.scale)
    rows.splice(
      rows.findIndex(([figure]) => figure!.startsWith('RSS / heap slope')),
      6,
    );
  const seriesEvery = run.scale ? SCALE_SERIES_MS : MEMORY_SERIES_MS;
  const title = run.scale ? 'Scale' : 'Schedule';
  const text = [
    `${run.part}. ${title}: ${run.tcpMonitors} TCP monitors over ${targets.tcp.length} listeners and ${run.grpcMonitors} gRPC monitors (h2c) over ` +
      `${targets.grpc.length} grpc-js health servers, all at 30s, in one engine (default concurrency) on a real SQLite file, in its own process.`,
    ...(targets.unbound.length > 0 ? [`   Not bound (not routed to loopback here): ${targets.unbound.join(', ')}; every listener is on the others.`] : []),
    '',
    table(rows, 2),
    '',
    `Engine memory at start (RSS/heap used MB): ${report.stages.map(([name, rss, heap]) => `${name} ${mb(rss)}/${mb(heap)}`).join(', ')}`,
    `Engine memory every ${seriesEvery / 1000} s (s: RSS/heap used/heap committed (of it young generation)/external MB): ` +
      report.memory
        .filter(([t]) => (t * 1000) % seriesEvery === 0)
        .map(([t, rss, heap, external, committed, , young]) => `${t}: ${mb(rss)}/${mb(heap)}/${mb(committed)} (${mb(young)})/${mb(external)}`)
        .join(', '),
    // Where the lag comes from: a backlog of checks waiting for a place, and when it formed.
    `Checks waiting for a place, most in each ${seriesEvery / 1000} s (s: checks): ` +
      report.memory
        .filter(([t]) => (t * 1000) % seriesEvery === 0)
        .map(([t]) => `${t}: ${Math.max(0, ...report.memory.filter(([u]) => u > t - seriesEvery / 1000 && u <= t).map((entry) => entry[5]))}`)
        .join(', '),
    `Results by type: ${byResult.map((r) => `${r.type} ${r.result} ${r.n}`).join(', ')}`,
  ];
  if (problems.length > 0) text.push('Most frequent messages of checks not up:', ...problems.map((p) => `  ${p.n} x ${p.message}`));
  if (report.logSample.length > 0) text.push('First lines the engine logged:', ...report.logSample.map((s) => `  ${s}`));
  const lagOk = report.lagP99 !== null && report.lagP99 < run.lagAimMs;
  const aims: Aim[] = [
    { name: `${run.part}. schedule lag p99 < ${run.lagAimMs / 1000} s`, pass: lagOk, detail: lagText(report.lagP99) },
    {
      name: `${run.part}. no missed periods`,
      pass: periods >= 1 && belowPeriods === 0 && missedSlots === 0,
      detail: `${belowPeriods} monitors below ${periods} results; ${missedSlots} missed slots${periods < 2 ? ` (only ${periods} period${periods === 1 ? '' : 's'} run)` : ''}`,
    },
    { name: `${run.part}. peak RSS < ${run.rssAimMb} MB`, pass: report.rssPeak / 1_000_000 < run.rssAimMb, detail: `${mb(report.rssPeak)} MB` },
  ];
  if (run.scale) {
    aims.push(
      { name: `${run.part}. engine CPU < one core`, pass: cpuShare < 1, detail: `${pct(cpuShare)} of one core` },
      {
        name: `${run.part}. RSS flat from ${int(flatFrom)} s (slope < ${AIM_FLAT_MB_PER_MIN} MB/min)`,
        pass: rssSlope < AIM_FLAT_MB_PER_MIN && rssPeakTail <= rssPeakHead + AIM_FLAT_MB_PER_MIN * 1_000_000,
        detail: `${rssSlope.toFixed(2)} MB/min; peak ${mb(rssPeakTail)} MB vs ${mb(rssPeakHead)} MB before`,
      },
      {
        name: `${run.part}. no check failed for want of a local port`,
        pass: failedForPorts === 0,
        detail: failedForPorts === 0 ? `none (TIME_WAIT peak ${timeWaitPeak ?? 'n/a'})` : `${failedForPorts} checks: address not available`,
      },
    );
  }
  return { text, aims };
}

// ---- part 4: scale --------------------------------------------------------------------------------

/** 100,000 monitors at 30 s for 10 minutes against targets of their own (see SCALE_TARGETS). */
function scalePart(options: Options, targets: Targets, tempDirs: string[]): Promise<{ text: string[]; aims: Aim[] }> {
  const run: ScheduleRun = {
    part: '4',
    tcpMonitors: options.scaleTcpMonitors,
    grpcMonitors: options.scaleGrpcMonitors,
    seconds: options.scaleS,
    lagAimMs: AIM_SCALE_LAG_P99_MS,
    rssAimMb: AIM_SCALE_RSS_MB,
    scale: true,
  };
  return schedule(run, options, targets, tempDirs);
}

// ---- part 3: the 14-day summary ---------------------------------------------------------------

/** A small deterministic generator (mulberry32): the same results every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RawCounts {
  success: number;
  degraded: number;
  error: number;
  latency: { p50: number; p75: number; p90: number; p95: number; p99: number } | null;
  lastPingAt: number | null;
}

async function summaryPart(options: Options, tempDirs: string[]): Promise<{ text: string[]; aims: Aim[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-checks-'));
  tempDirs.push(dataDir);
  const db: Db = await openDatabase(dataDir);
  try {
    const fixedNow = Date.now();
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    const log = pino({ level: 'silent' });
    // A clock that stands still: the engine's window and the baseline's are the same milliseconds.
    const engine = createCheckEngine(db, { log, version: VERSION, schedule: false, now: () => fixedNow });
    const services = createServices(db, { checks: engine.checks });
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    const monitor: Monitor = await services.monitors.create(actor, workspaceId, 'tcp', {
      name: 'bench summary',
      periodicity: '30s',
      uri: `${HOST}:9`,
      timeout: TIMEOUT_MS,
      degraded: 100,
    });

    // 14 days at 30 s, ending 15 s before now: latencies log-normal around 2 ms, 1% degraded, 0.5% down.
    const count = (14 * DAY_MS) / PERIOD_MS;
    const first = fixedNow - 14 * DAY_MS + PERIOD_MS / 2;
    const next = random(42);
    const store = createResultStore(db);
    const writing = performance.now();
    for (let i = 0; i < count; i += SUMMARY_ROWS_BATCH) {
      const batch: StoredCheck[] = [];
      for (let j = i; j < Math.min(count, i + SUMMARY_ROWS_BATCH); j++) {
        const roll = next();
        const gauss = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
        const result: CheckOutcome = roll < 0.005 ? 'down' : roll < 0.015 ? 'degraded' : 'up';
        const latencyMs =
          Math.round((result === 'down' ? TIMEOUT_MS : result === 'degraded' ? 100 + 300 * next() : Math.min(99, 2 * Math.exp(0.5 * gauss))) * 1000) / 1000;
        batch.push({
          result,
          latencyMs,
          timing: { dns: null, connect: result === 'down' ? null : latencyMs, tls: null, ttfb: null, transfer: null, total: latencyMs },
          attempts: 1,
          message: result === 'down' ? `timed out after ${TIMEOUT_MS} ms` : `connected in ${latencyMs} ms`,
          grpcStatus: null,
          statusCode: null,
          url: null,
          responseHeaders: {},
          assertionResults: [],
          monitorId: Number(monitor.id),
          workspaceId,
          runner: 'local',
          regions: monitor.regions,
          startedAt: first + j * PERIOD_MS,
        });
      }
      await store.write(batch);
    }
    const writeMs = performance.now() - writing;
    line(`wrote ${count} results in ${int(writeMs)} ms; timing summaries`);

    // The baseline: every latency row of the window, counted, sorted, percentiles by nearest rank.
    const from = fixedNow - 14 * DAY_MS;
    // Prepared once, as the store prepares its statements.
    const scan = await withSqlite(db, (sqlite) =>
      sqlite.prepare('select result, latency_ms, started_at from check_results where monitor_id = ? and started_at >= ? and started_at <= ?').raw(),
    );
    const rawScan = () =>
      withSqlite(db, (): RawCounts => {
        const rows = scan.all(Number(monitor.id), from, fixedNow) as [CheckOutcome, number, number][];
        let success = 0;
        let degraded = 0;
        let error = 0;
        let last = 0;
        const latencies = new Float64Array(rows.length);
        let n = 0;
        for (const [result, latency, at] of rows) {
          if (result === 'down') error++;
          else {
            if (result === 'up') success++;
            else degraded++;
            latencies[n++] = latency;
          }
          if (at > last) last = at;
        }
        const sorted = latencies.subarray(0, n).sort();
        const q = (p: number) => percentile(sorted, p);
        return {
          success,
          degraded,
          error,
          latency: n === 0 ? null : { p50: q(0.5), p75: q(0.75), p90: q(0.9), p95: q(0.95), p99: q(0.99) },
          lastPingAt: last || null,
        };
      });
    const viaEngine = () => engine.checks.summary(monitor, '14d');
    const viaService = () => services.monitors.summary(actor, workspaceId, monitor.id, '14d');

    const timings = { engine: [] as number[], raw: [] as number[], service: [] as number[] };
    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    for (let i = 0; i < SUMMARY_WARMUP_CALLS; i++) {
      await viaEngine();
      await rawScan();
      await viaService();
    }
    for (let i = 0; i < options.summaryCalls; i++) {
      // Alternating order, as in the other parts.
      if (i % 2 === 0) {
        timings.engine.push(await time(viaEngine));
        timings.raw.push(await time(rawScan));
      } else {
        timings.raw.push(await time(rawScan));
        timings.engine.push(await time(viaEngine));
      }
      timings.service.push(await time(viaService));
    }

    // The two must agree: counts exactly, percentiles within the histogram's 1% (plus rounding).
    const summary: MonitorSummary = await viaEngine();
    const raw = await rawScan();
    const mismatches: string[] = [];
    if (summary.successCount !== raw.success) mismatches.push(`successCount ${summary.successCount} vs ${raw.success}`);
    if (summary.degradedCount !== raw.degraded) mismatches.push(`degradedCount ${summary.degradedCount} vs ${raw.degraded}`);
    if (summary.errorCount !== raw.error) mismatches.push(`errorCount ${summary.errorCount} vs ${raw.error}`);
    const rawLast = raw.lastPingAt === null ? null : new Date(raw.lastPingAt).toISOString();
    if (summary.lastPingAt !== rawLast) mismatches.push(`lastPingAt ${summary.lastPingAt} vs ${rawLast}`);
    let worstError = 0;
    const percentiles = ['p50', 'p75', 'p90', 'p95', 'p99'] as const;
    for (const p of percentiles) {
      const a = summary.latency?.[p];
      const b = raw.latency?.[p];
      if (a === undefined || b === undefined) {
        if (a !== b) mismatches.push(`${p} ${a} vs ${b}`);
        continue;
      }
      const relative = Math.abs(a - b) / b;
      worstError = Math.max(worstError, relative);
      if (relative > 0.011) mismatches.push(`${p} ${a} vs ${b} (${pct(relative)} off)`);
    }
    const total = summary.successCount + summary.degradedCount + summary.errorCount;

    const stat = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return [ms2(median(values)), ms2(percentile(sorted, 0.9)), ms2(sorted[0]!)];
    };
    const engineMedian = median(timings.engine);
    const rows = [
      ['query', 'median ms', 'p90 ms', 'min ms', 'vs raw scan'],
      ['engine.checks.summary(monitor, 14d)', ...stat(timings.engine), `${(engineMedian / median(timings.raw)).toFixed(2)}x`],
      ['raw SQL scan + sort (baseline)', ...stat(timings.raw), '1.00x'],
      ['MonitorService.summary (auth + load + engine)', ...stat(timings.service), `${(median(timings.service) / median(timings.raw)).toFixed(2)}x`],
    ];
    const text = [
      `3. Summary: one TCP monitor, ${count} results at 30 s over 14 days written through createResultStore().write in batches of ${SUMMARY_ROWS_BATCH} ` +
        `(${int(writeMs)} ms, ${int(count / (writeMs / 1000))} rows/s); ${options.summaryCalls} timed calls each after ${SUMMARY_WARMUP_CALLS} warm-up calls.`,
      '',
      table(rows),
      '',
      `Summary: ${summary.successCount} up, ${summary.degradedCount} degraded, ${summary.errorCount} down (${total} of ${count}); ` +
        `p50/p90/p99 ${summary.latency?.p50}/${summary.latency?.p90}/${summary.latency?.p99} ms; raw scan p50/p90/p99 ${raw.latency?.p50}/${raw.latency?.p90}/${raw.latency?.p99} ms.`,
      `Agreement with the raw scan: ${mismatches.length === 0 ? `counts and last ping equal, percentiles within ${pct(worstError)}` : `MISMATCH: ${mismatches.join('; ')}`}.`,
    ];
    const aims: Aim[] = [
      { name: `3. 14-day summary median < ${AIM_SUMMARY_MS} ms`, pass: engineMedian < AIM_SUMMARY_MS, detail: `${ms2(engineMedian)} ms` },
      { name: '3. summary agrees with the raw scan', pass: mismatches.length === 0, detail: mismatches.length === 0 ? 'yes' : mismatches.join('; ') },
    ];
    await engine.close();
    return { text, aims };
  } finally {
    await db.destroy();
  }
}

// ---- main ---------------------------------------------------------------------------------------

interface Aim {
  name: string;
  pass: boolean;
  detail: string;
}

const PARTS = ['throughput', 'schedule', 'summary', 'scale', 'types'] as const;
type Part = (typeof PARTS)[number];

interface Options {
  quick: boolean;
  parts: Part[];
  rounds: number;
  roundMs: number;
  warmupMs: number;
  concurrency: number;
  tcpMonitors: number;
  grpcMonitors: number;
  scheduleS: number;
  summaryCalls: number;
  scaleTcpMonitors: number;
  scaleGrpcMonitors: number;
  scaleS: number;
  profileEngine: string | undefined;
  /** The types of the `types` part (bench/types/), all by default. */
  types: string[] | undefined;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      parts: { type: 'string' },
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      'warmup-ms': { type: 'string' },
      concurrency: { type: 'string' },
      'tcp-monitors': { type: 'string' },
      'grpc-monitors': { type: 'string' },
      'schedule-s': { type: 'string' },
      'summary-calls': { type: 'string' },
      'scale-tcp-monitors': { type: 'string' },
      'scale-grpc-monitors': { type: 'string' },
      'scale-s': { type: 'string' },
      'profile-engine': { type: 'string' },
      types: { type: 'string' },
    },
    strict: true,
  });
  const quick = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  const parts = (values.parts ?? PARTS.join(',')).split(',').map((p) => p.trim());
  for (const p of parts) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--parts must list some of ${PARTS.join(', ')}, got ${p}`);
  return {
    quick,
    parts: parts as Part[],
    rounds: parseNumber('rounds', values.rounds, quick ? 3 : 5, 1, 15),
    roundMs: parseNumber('round-ms', values['round-ms'], quick ? 1_000 : 3_000, 200, 30_000),
    warmupMs: parseNumber('warmup-ms', values['warmup-ms'], quick ? 500 : 1_000, 0, 10_000),
    concurrency: parseNumber('concurrency', values.concurrency, 64, 1, 1_000),
    tcpMonitors: parseNumber('tcp-monitors', values['tcp-monitors'], quick ? 2_000 : 20_000, 1, 200_000),
    grpcMonitors: parseNumber('grpc-monitors', values['grpc-monitors'], quick ? 500 : 5_000, 1, 100_000),
    // One period plus the margin for a quick run; two full periods plus 5 s otherwise.
    scheduleS: parseNumber('schedule-s', values['schedule-s'], quick ? 36 : 66, 10, 3_600),
    summaryCalls: parseNumber('summary-calls', values['summary-calls'], 50, 1, 1_000),
    scaleTcpMonitors: parseNumber('scale-tcp-monitors', values['scale-tcp-monitors'], quick ? 8_000 : 80_000, 1, 400_000),
    scaleGrpcMonitors: parseNumber('scale-grpc-monitors', values['scale-grpc-monitors'], quick ? 2_000 : 20_000, 1, 100_000),
    scaleS: parseNumber('scale-s', values['scale-s'], quick ? 66 : 600, 10, 3_600),
    profileEngine: values['profile-engine'] === undefined ? undefined : resolve(values['profile-engine']),
    types: values.types?.split(',').map((t) => t.trim()),
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(
      `bench:checks: ${(error as Error).message}\nUsage: npm run bench:checks -- [--parts throughput,schedule,summary,scale,types] [--rounds N] [--round-ms MS] [--warmup-ms MS] ` +
        '[--concurrency N] [--tcp-monitors N] [--grpc-monitors N] [--schedule-s S] [--summary-calls N] [--scale-tcp-monitors N] [--scale-grpc-monitors N] ' +
        '[--scale-s S] [--profile-engine DIR] [--types dns,ping,...]\n',
    );
    return 2;
  }
  const tempDirs: string[] = [];
  let targets: Targets | undefined;
  let scaleTargets: Targets | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const t of [targets, scaleTargets]) await t?.stop().catch((error: Error) => line(`bench:checks: stopping the targets: ${error.message}`));
      for (const dir of tempDirs)
        await rm(dir, { recursive: true, force: true }).catch((error: Error) => line(`bench:checks: removing ${dir}: ${error.message}`));
    })());
  // Interrupted: children and temporary folders go too.
  const onSignal = (signal: NodeJS.Signals) => {
    line(`bench:checks: ${signal}, cleaning up`);
    void cleanup().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A failure outside the awaited chain (e.g. EPIPE on a closed stderr) still cleans up.
  const onFatal = (error: unknown) => {
    void cleanup().finally(() => {
      process.stderr.write(`bench:checks: ${String((error as Error)?.stack ?? error)}\n`, () => process.exit(1));
      setTimeout(() => process.exit(1), 1_000).unref();
    });
  };
  process.once('uncaughtException', onFatal);
  process.once('unhandledRejection', onFatal);

  try {
    targets = await startTargets(TARGETS);
    const out: string[] = [
      '',
      `Check engine benchmark${options.quick ? ' (BENCH_QUICK: smoke-run sizes)' : ''}; Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs; ` +
        `targets on ${HOST} in a child process.`,
    ];
    const aims: Aim[] = [];
    for (const part of options.parts) {
      line(`-- ${part}`);
      const result =
        part === 'throughput'
          ? await throughput(options, targets)
          : part === 'schedule'
            ? await schedule(
                {
                  part: '2',
                  tcpMonitors: options.tcpMonitors,
                  grpcMonitors: options.grpcMonitors,
                  seconds: options.scheduleS,
                  lagAimMs: AIM_LAG_P99_MS,
                  rssAimMb: AIM_RSS_MB,
                  scale: false,
                },
                options,
                targets,
                tempDirs,
              )
            : part === 'summary'
              ? await summaryPart(options, tempDirs)
              : part === 'types'
                ? { ...(await typeRows(options.types ?? (await typesWithRows()), options.quick, line)), aims: [] }
                : await scalePart(options, (scaleTargets = await startTargets(SCALE_TARGETS)), tempDirs).finally(() => scaleTargets?.stop());
      out.push('', ...result.text);
      aims.push(...result.aims);
    }
    const width = Math.max(...aims.map((a) => a.name.length));
    out.push('', 'Aims:', ...aims.map((a) => `  ${verdict(a.pass)}  ${a.name.padEnd(width)}  ${a.detail}`));
    if (options.quick) out.push('', 'BENCH_QUICK: sizes and durations are reduced; the aims are meant for the full run.');
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  }
}

const role = process.argv[process.argv.indexOf('--role') + 1];
if (process.argv.includes('--role') && role === 'targets') {
  await targetsMain(JSON.parse(process.argv[process.argv.indexOf('--role') + 2]!) as TargetLayout);
} else if (process.argv.includes('--role') && role === 'engine') {
  process.on('disconnect', () => process.exit(1));
  const input = await new Promise<EngineInput>((done) => process.once('message', (message: EngineInput) => done(message)));
  await engineMain(input);
} else {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.stderr.write(`bench:checks: ${String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = 1;
  }
}
