/**
 * RPC benchmark: ListMonitors with 100 stored monitors (34 TCP, 33 gRPC, 33 HTTP, created through
 * the RPC), at 1 and 16 concurrent clients, over Connect/HTTP 1.1 and gRPC/h2c, next to a bare
 * connect-node handler that returns an equal, precomputed ListMonitorsResponse.
 *
 *   npm run bench:rpc -- [--rounds N] [--round-ms MS] [--warmup-ms MS] [--log-level LEVEL] [--cpu-prof DIR]
 *
 * Aim: the service serves at least 0.9 of the bare handler's requests per second in every cell.
 * Both answer the same bytes. The bare handler is connect-node as an application uses it: its
 * message is encoded on every call. The service encodes a page's answer once for the binary
 * formats (server/rpc/encoded-once.ts) and then copies the bytes.
 *
 * `--cpu-prof DIR` writes a CPU profile of each server thread (service.cpuprofile, bare.cpuprofile)
 * to DIR, taken with node:inspector from start to stop, for reading where a request's time goes.
 *
 * Each cell (protocol x concurrency) warms both sides up, then runs rounds of fixed duration,
 * service and bare alternating (and swapping which goes first), and reports the medians of the
 * rounds. Defaults: 1 s warm-up and 5 rounds of 1.5 s per side, about 75 s for the 4 cells; short
 * alternating rounds keep a burst of other load on the machine from landing on one side only.
 *
 * Layout: the load generator (closedLoop of bench/support/load.ts, calling the Connect clients) runs on the main thread; the real service and
 * the bare handler each run on their own worker thread, so neither server shares an event loop
 * with the clients, and the two servers never run at the same time (their measurements alternate).
 * The busy share of each thread is reported too: when the client thread is saturated, the figures
 * say more about the client than about the servers.
 */
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import { durationFromMs } from '@bufbuild/protobuf/wkt';
import { type Client, createClient } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport, createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import http from 'node:http';
import http2 from 'node:http2';
import { openSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { arch, availableParallelism, platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  HTTPMethod,
  type ListMonitorsResponse,
  ListMonitorsRequestSchema,
  ListMonitorsResponseSchema,
  MonitorService,
  NumberComparator,
  Periodicity,
  StringComparator,
  TLSMode,
} from '../proto/gen/monitor/v1/monitor_pb.js';
import { compare, median, parseNumber, table } from './support/figures.ts';
import { closedLoop, type LoadFigures } from './support/load.ts';

const AIM_RATIO = 0.9;
/** The mix asked for: 100 monitors in all. */
const MONITOR_MIX = { tcp: 34, grpc: 33, http: 33 } as const;
const MONITOR_COUNT = MONITOR_MIX.tcp + MONITOR_MIX.grpc + MONITOR_MIX.http;
const CONCURRENCIES = [1, 16] as const;
const MAX_CONCURRENCY = Math.max(...CONCURRENCIES);
const CPUS = availableParallelism();
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** A worker that does not come up or stop within this time fails the bench rather than hanging it. */
const WORKER_TIMEOUT_MS = 30_000;
/** The one request every measured call sends: the whole list on one page. */
const LIST_REQUEST = create(ListMonitorsRequestSchema, { limit: MONITOR_COUNT });

type Protocol = 'connect-h1' | 'grpc-h2c';
const PROTOCOLS: Record<Protocol, string> = { 'connect-h1': 'Connect/HTTP 1.1', 'grpc-h2c': 'gRPC/h2c' };
type Side = 'service' | 'bare';

// ---- worker threads: the two servers ------------------------------------------------------

type WorkerInput = ({ role: 'service'; logLevel: string } | { role: 'bare'; rpcPath: string; response: Uint8Array }) & { cpuProf?: string };
type WorkerReady = { type: 'ready'; urls: Record<Protocol, string>; key: string; rpcPath: string };

/**
 * Resolves on the main thread's 'stop' message; until then answers each 'cpu' message with the
 * CPU time this thread has used (microseconds), which, unlike its busy time, a busy machine does
 * not inflate.
 */
const stopRequested = () =>
  new Promise<void>((resolve) => {
    const onMessage = (message: 'stop' | 'cpu') => {
      if (message === 'cpu') {
        const { user, system } = process.threadCpuUsage();
        parentPort!.postMessage({ type: 'cpu', us: user + system });
        return;
      }
      parentPort!.off('message', onMessage);
      resolve();
    };
    parentPort!.on('message', onMessage);
  });

/** The CPU time a server's thread has used so far, in microseconds. */
function threadCpuOf(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string; us: number }) => {
      if (message.type !== 'cpu') return;
      worker.off('message', onMessage);
      resolve(message.us);
    };
    worker.on('message', onMessage);
    worker.postMessage('cpu');
  });
}

const listenLoopback = (server: http.Server | http2.Http2Server) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

/**
 * The real service, started as the test harness starts it, with a logger that writes to a real
 * file descriptor through the destination `statusdesk serve` writes to stderr with (logDestination,
 * lines batched), but to /dev/null, so the cost of every access log line is paid and nothing piles up.
 */
async function serviceWorker(logLevel: string): Promise<void> {
  // Loaded here only: the bare handler's thread and the client thread never load service code.
  const [{ default: pino }, { logDestination }, { withLocalOwner }, { serviceConfig }, { startService }, { RPC_PATH }] = await Promise.all([
    import('pino'),
    import('../server/log-destination.ts'),
    import('../server/cli/local.ts'),
    import('../server/config.ts'),
    import('../server/main.ts'),
    import('../server/rpc/rpc-request.ts'),
  ]);
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-rpc-'));
  try {
    const log = pino({ level: logLevel, base: undefined }, logDestination(openSync('/dev/null', 'w')));
    // An empty environment: no STATUSDESK_* setting of the caller's shell changes what is measured.
    // No scheduled checks, as the test harness starts it: the bench measures answering, not probing.
    const env = { STATUSDESK_RATE_LIMIT: '0', STATUSDESK_CHECKS: 'off' };
    const service = await startService(serviceConfig({ dataDir, host: '127.0.0.1', port: '0', dashboardPort: '0' }, env), log);
    try {
      const key = await withLocalOwner(dataDir, async (services, owner) => {
        const workspace = await services.workspaces.getBySlug(owner, 'personal');
        const { secret } = await services.keys.create(owner, { workspaceId: Number(workspace.id), name: 'bench:rpc', scope: 'write' });
        return secret;
      });
      // The service's own URL says localhost; 127.0.0.1 keeps the bench on IPv4 loopback whatever
      // localhost resolves to.
      const url = `http://127.0.0.1:${new URL(service.apiUrl).port}${RPC_PATH}`;
      const ready: WorkerReady = { type: 'ready', urls: { 'connect-h1': url, 'grpc-h2c': url }, key, rpcPath: RPC_PATH };
      parentPort!.postMessage(ready);
      await stopRequested();
    } finally {
      await service.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The baseline: a plain connect-node adapter whose ListMonitors returns the precomputed message
 * (encoded, and compressed when asked, on every call), on a plain node:http server for
 * Connect/1.1 and a plain node:http2 server for gRPC/h2c.
 */
async function bareWorker(rpcPath: string, responseBytes: Uint8Array): Promise<void> {
  const response = fromBinary(ListMonitorsResponseSchema, responseBytes);
  const handler = connectNodeAdapter({
    // The same path as the service, so both sides are called with identical requests.
    requestPathPrefix: rpcPath,
    routes(router) {
      router.rpc(MonitorService.method.listMonitors, () => response);
    },
  });
  const h1 = http.createServer(handler);
  const h2 = http2.createServer(handler);
  const [h1Port, h2Port] = await Promise.all([listenLoopback(h1), listenLoopback(h2)]);
  const ready: WorkerReady = {
    type: 'ready',
    urls: { 'connect-h1': `http://127.0.0.1:${h1Port}${rpcPath}`, 'grpc-h2c': `http://127.0.0.1:${h2Port}${rpcPath}` },
    key: '',
    rpcPath,
  };
  parentPort!.postMessage(ready);
  await stopRequested();
  h1.closeAllConnections();
  await Promise.all([new Promise((resolve) => h1.close(resolve)), new Promise((resolve) => h2.close(resolve))]);
}

/** Runs `work` under the inspector's CPU profiler and writes the profile to `dir/name.cpuprofile`. */
async function profiled(dir: string, name: string, work: () => Promise<void>): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function workerMain(input: WorkerInput): Promise<void> {
  const work = () => (input.role === 'service' ? serviceWorker(input.logLevel) : bareWorker(input.rpcPath, input.response));
  await (input.cpuProf ? profiled(input.cpuProf, input.role, work) : work());
  // With the port closed and the servers gone, nothing is left on the loop: the thread ends.
  parentPort!.close();
}

// ---- main thread: set-up and load ---------------------------------------------------------

/** Resolves with the worker's next message; rejects if it fails or exits first, or times out. */
function nextMessage(worker: Worker, what: string): Promise<WorkerReady> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (message: WorkerReady) => {
      cleanup();
      resolve(message);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`${what}: ${error.stack ?? error.message}`));
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`${what}: the worker exited with code ${code}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what}: no answer within ${WORKER_TIMEOUT_MS} ms`));
    }, WORKER_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
}

interface Target {
  side: Side;
  worker: Worker;
  /** A write key of the service; empty for the bare handler, which checks none. */
  key: string;
  /** The path prefix of the RPC routes. */
  rpcPath: string;
  clients: Record<Protocol, Client<typeof MonitorService>>;
  /** Drops the client connections, then stops the server and waits for its thread to end. */
  stop(): Promise<void>;
}

/**
 * One transport per protocol, shared by all concurrent loops, as an application would share it.
 *
 * HTTP/1.1: connect-node passes `nodeOptions` to http.request, so each transport gets its own
 * http.Agent with keepAlive (connections are reused between calls, no handshake per call) and
 * maxSockets 16 (one connection per in-flight call at 16 clients; no queueing inside the agent).
 * HTTP/2: one Http2SessionManager per transport, i.e. one h2c connection carrying every call as
 * its own stream, which is what connect-node does by default.
 */
async function startTarget(side: Side, input: WorkerInput): Promise<Target> {
  const worker = new Worker(new URL(import.meta.url), { workerData: input });
  let running = true;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  let first: WorkerReady;
  try {
    first = await nextMessage(worker, `${side} start`);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_CONCURRENCY, maxFreeSockets: MAX_CONCURRENCY });
  const sessions = new Http2SessionManager(first.urls['grpc-h2c']);
  const clients: Record<Protocol, Client<typeof MonitorService>> = {
    'connect-h1': createClient(MonitorService, createConnectTransport({ baseUrl: first.urls['connect-h1'], httpVersion: '1.1', nodeOptions: { agent } })),
    'grpc-h2c': createClient(MonitorService, createGrpcTransport({ baseUrl: first.urls['grpc-h2c'], sessionManager: sessions })),
  };
  return {
    side,
    worker,
    key: first.key,
    rpcPath: first.rpcPath,
    clients,
    async stop() {
      agent.destroy();
      sessions.abort();
      if (!running) return;
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, WORKER_TIMEOUT_MS, true)));
      const timedOut = await Promise.race([exited.then(() => false), late]);
      clearTimeout(timer);
      if (timedOut) {
        await worker.terminate();
        throw new Error(`${side}: did not stop within ${WORKER_TIMEOUT_MS} ms; terminated`);
      }
    },
  };
}

const PERIODICITIES = [
  Periodicity.PERIODICITY_30S,
  Periodicity.PERIODICITY_1M,
  Periodicity.PERIODICITY_5M,
  Periodicity.PERIODICITY_10M,
  Periodicity.PERIODICITY_30M,
  Periodicity.PERIODICITY_1H,
];
const REGION_SETS = [['iad', 'fra'], ['ams', 'sin', 'syd'], ['gru'], ['iad', 'lhr', 'nrt', 'jnb']];

/**
 * Creates the monitors through the RPC, types interleaved so the newest-first list mixes them.
 * Every target is on loopback; nothing ever checks them during the bench (scheduled checks are off),
 * but if something did, it would not leave the machine.
 */
async function createMonitors(client: Client<typeof MonitorService>, headers: Record<string, string>): Promise<void> {
  const kinds = ['tcp', 'grpc', 'http'] as const;
  for (let i = 0; i < MONITOR_COUNT; i++) {
    // Round robin gives exactly 34/33/33 for 100.
    const kind = kinds[i % kinds.length]!;
    const common = {
      name: `bench ${kind} monitor ${i}`,
      description: `Created by bench/rpc.ts (${i}).`,
      periodicity: PERIODICITIES[i % PERIODICITIES.length]!,
      regions: REGION_SETS[i % REGION_SETS.length]!,
      timeout: durationFromMs(10_000),
      degraded: durationFromMs(2_000),
      retry: i % 4,
      tags: ['bench', `team-${i % 5}`],
    };
    const port = 20_000 + i;
    switch (kind) {
      case 'tcp':
        await client.createTCPMonitor({ monitor: { ...common, uri: `127.0.0.1:${port}` } }, { headers });
        break;
      case 'grpc':
        await client.createGRPCMonitor(
          {
            monitor: {
              ...common,
              uri: `127.0.0.1:${port}`,
              service: 'shop.v1.OrderService',
              tls: TLSMode.TLS_MODE_PLAINTEXT,
              metadata: { 'x-team': `team-${i % 5}` },
            },
          },
          { headers },
        );
        break;
      case 'http':
        await client.createHTTPMonitor(
          {
            monitor: {
              ...common,
              url: `http://127.0.0.1:${port}/healthz`,
              method: HTTPMethod.HTTP_METHOD_GET,
              headers: { accept: 'application/json' },
              statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
              headerAssertions: [{ key: 'content-type', comparator: StringComparator.CONTAINS, target: 'json' }],
              bodyAssertions: [{ comparator: StringComparator.CONTAINS, target: '"ok"' }],
            },
          },
          { headers },
        );
        break;
    }
  }
}

interface RoundResult extends LoadFigures {
  /** Busy share of the server's thread (event loop utilisation). */
  serverBusy: number;
  /** CPU time of the server's thread per request, in microseconds. */
  serverCpuUsPerRequest: number;
  /** CPU time of the whole process (every thread) as a share of all the machine's CPUs. */
  processCpu: number;
  /** CPU time of the whole process per request, in microseconds: client and server together. */
  processUsPerRequest: number;
}

/**
 * `concurrency` loops, each with one call in flight at a time, on the target's shared transport,
 * until `ms` have passed; calls in flight at the deadline finish and are counted. The server's
 * figures are its worker thread's: busy share, and busy time per request.
 */
async function runRound(target: Target, protocol: Protocol, concurrency: number, ms: number, headers: Record<string, string>): Promise<RoundResult> {
  const client = target.clients[protocol];
  const serverElu = target.worker.performance.eventLoopUtilization();
  const serverCpu = await threadCpuOf(target.worker);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const figures = await closedLoop(concurrency, ms, async () => {
    const response: ListMonitorsResponse = await client.listMonitors(LIST_REQUEST, { headers });
    return response.totalSize === MONITOR_COUNT ? null : `${target.side}: ListMonitors said ${response.totalSize} monitors, expected ${MONITOR_COUNT}`;
  });
  const elapsed = performance.now() - started;
  const server = target.worker.performance.eventLoopUtilization(serverElu);
  const { user, system } = process.cpuUsage(cpu);
  const serverCpuUs = (await threadCpuOf(target.worker)) - serverCpu;
  if (figures.errors > 0) throw new Error(figures.firstError);
  return {
    ...figures,
    serverBusy: server.utilization,
    serverUsPerRequest: (server.active * 1000) / figures.requests,
    serverCpuUsPerRequest: serverCpuUs / figures.requests,
    processCpu: (user + system) / 1000 / elapsed / CPUS,
    processUsPerRequest: (user + system) / figures.requests,
  };
}

interface CellSide {
  rps: number;
  p50: number;
  p99: number;
  rpsMin: number;
  rpsMax: number;
  serverBusy: number;
  serverUsPerRequest: number;
  serverCpuUsPerRequest: number;
  clientBusy: number;
  processCpu: number;
  processUsPerRequest: number;
}

function summarise(rounds: RoundResult[]): CellSide {
  const of = (pick: (r: RoundResult) => number) => median(rounds.map(pick));
  return {
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    rpsMin: Math.min(...rounds.map((r) => r.rps)),
    rpsMax: Math.max(...rounds.map((r) => r.rps)),
    serverBusy: of((r) => r.serverBusy),
    serverUsPerRequest: of((r) => r.serverUsPerRequest),
    serverCpuUsPerRequest: of((r) => r.serverCpuUsPerRequest),
    clientBusy: of((r) => r.clientBusy),
    processCpu: of((r) => r.processCpu),
    processUsPerRequest: of((r) => r.processUsPerRequest),
  };
}

const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const rpsText = fixed(0);
const msText = fixed(2);
const pct = (share: number) => `${(share * 100).toFixed(0)}%`;

interface Options {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  logLevel: string;
  cpuProf: string | undefined;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      'warmup-ms': { type: 'string' },
      'log-level': { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
    strict: true,
  });
  const logLevel = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${logLevel}`);
  return {
    rounds: parseNumber('rounds', values.rounds, 5, 1, 9),
    roundMs: parseNumber('round-ms', values['round-ms'], 1_500, 100, 10_000),
    warmupMs: parseNumber('warmup-ms', values['warmup-ms'], 1_000, 0, 10_000),
    logLevel,
    cpuProf: values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']),
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(
      `bench:rpc: ${(error as Error).message}\nUsage: npm run bench:rpc -- [--rounds N] [--round-ms MS] [--warmup-ms MS] [--log-level LEVEL] [--cpu-prof DIR]\n`,
    );
    return 2;
  }
  const { rounds, roundMs, warmupMs, logLevel, cpuProf } = options;
  const line = (text: string) => process.stderr.write(`${text}\n`);
  const targets: Target[] = [];
  if (cpuProf) await mkdir(cpuProf, { recursive: true });
  try {
    const service = await startTarget('service', { role: 'service', logLevel, cpuProf });
    targets.push(service);
    // Every call to either side carries the same headers: the bare handler ignores the key, but
    // its requests are then byte for byte those the service gets.
    const headers = { 'x-service-key': service.key };
    const setupStarted = performance.now();
    await createMonitors(service.clients['connect-h1'], headers);
    // The message the bare handler returns: fetched once from the service, kept as it came.
    const reference = await service.clients['connect-h1'].listMonitors(LIST_REQUEST, { headers });
    const counts = { tcp: reference.tcpMonitors.length, grpc: reference.grpcMonitors.length, http: reference.httpMonitors.length };
    if (counts.tcp !== MONITOR_MIX.tcp || counts.grpc !== MONITOR_MIX.grpc || counts.http !== MONITOR_MIX.http || reference.totalSize !== MONITOR_COUNT) {
      throw new Error(`ListMonitors returned ${JSON.stringify(counts)} of ${reference.totalSize}, expected ${JSON.stringify(MONITOR_MIX)} of ${MONITOR_COUNT}`);
    }
    const responseBytes = toBinary(ListMonitorsResponseSchema, reference);
    line(
      `created ${MONITOR_COUNT} monitors through the RPC in ${(performance.now() - setupStarted).toFixed(0)} ms; ListMonitors response ${responseBytes.length} bytes`,
    );
    const bare = await startTarget('bare', { role: 'bare', rpcPath: service.rpcPath, response: responseBytes, cpuProf });
    targets.push(bare);

    // Both sides answer both protocols with the same message.
    for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
      for (const target of [service, bare]) {
        const answer = await target.clients[protocol].listMonitors(LIST_REQUEST, { headers });
        if (!equals(ListMonitorsResponseSchema, answer, reference))
          throw new Error(`${target.side} over ${PROTOCOLS[protocol]} did not return the reference response`);
      }
    }

    const results = new Map<string, Record<Side, CellSide> & { ratio: number }>();
    for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
      for (const concurrency of CONCURRENCIES) {
        const label = `${PROTOCOLS[protocol]}, ${concurrency} client${concurrency === 1 ? '' : 's'}`;
        const sides = { service, bare };
        const { samples, ratio } = await compare<Side, RoundResult>(
          ['service', 'bare'],
          options,
          (side, ms) => runRound(sides[side], protocol, concurrency, ms, headers),
          (round, last) => line(`${label}: round ${round + 1}/${rounds}: service ${rpsText(last.service.rps)} rps | bare ${rpsText(last.bare.rps)} rps`),
        );
        results.set(`${protocol}/${concurrency}`, { service: summarise(samples.service), bare: summarise(samples.bare), ratio });
      }
    }

    const rows = [['protocol', 'clients', 'service rps', 'p50 ms', 'p99 ms', 'bare rps', 'p50 ms', 'p99 ms', 'ratio']];
    const diagnostics = [
      [
        'protocol',
        'clients',
        'rps min-max service',
        'bare',
        'server thread busy svc/bare',
        'server thread us/req svc/bare',
        'server thread CPU us/req svc/bare',
        'client thread busy svc/bare',
        `process CPU (of ${CPUS}) svc/bare`,
        'process CPU us/req svc/bare',
      ],
    ];
    let worst: { ratio: number; protocol: Protocol; concurrency: number } | undefined;
    for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
      for (const concurrency of CONCURRENCIES) {
        const cell = results.get(`${protocol}/${concurrency}`)!;
        const ratio = cell.ratio;
        if (!worst || ratio < worst.ratio) worst = { ratio, protocol, concurrency };
        rows.push([
          PROTOCOLS[protocol],
          String(concurrency),
          rpsText(cell.service.rps),
          msText(cell.service.p50),
          msText(cell.service.p99),
          rpsText(cell.bare.rps),
          msText(cell.bare.p50),
          msText(cell.bare.p99),
          ratio.toFixed(2),
        ]);
        const pair = (pick: (side: CellSide) => string) => `${pick(cell.service)}/${pick(cell.bare)}`;
        diagnostics.push([
          PROTOCOLS[protocol],
          String(concurrency),
          `${rpsText(cell.service.rpsMin)}-${rpsText(cell.service.rpsMax)}`,
          `${rpsText(cell.bare.rpsMin)}-${rpsText(cell.bare.rpsMax)}`,
          pair((c) => pct(c.serverBusy)),
          pair((c) => c.serverUsPerRequest.toFixed(0)),
          pair((c) => c.serverCpuUsPerRequest.toFixed(0)),
          pair((c) => pct(c.clientBusy)),
          pair((c) => pct(c.processCpu)),
          pair((c) => c.processUsPerRequest.toFixed(0)),
        ]);
      }
    }

    const out = [
      '',
      `ListMonitors (limit ${MONITOR_COUNT}) with ${MONITOR_COUNT} monitors stored (${MONITOR_MIX.tcp} TCP, ${MONITOR_MIX.grpc} gRPC, ${MONITOR_MIX.http} HTTP); ` +
        `response ${responseBytes.length} bytes binary; Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs`,
      `Per cell: ${warmupMs} ms warm-up per side, then ${rounds} round${rounds === 1 ? '' : 's'} of ${roundMs} ms per side, service and bare alternating; ` +
        'figures are medians of the rounds; the ratio is the median of the per-round ratios (service round / the bare round next to it).',
      `Service logger: pino level '${logLevel}' to /dev/null via logDestination (batched, as serve's stderr)` +
        (logLevel === 'info' ? ', i.e. the default level: one access log line per request.' : '.'),
      `Clients: one transport per side and protocol, shared by all loops; HTTP/1.1 through an http.Agent with keepAlive and maxSockets ${MAX_CONCURRENCY}, ` +
        'gRPC over one h2c connection; default accept-encoding (gzip, br), so both servers gzip the response.',
      'Service and bare handler run on two worker threads, the clients on the main thread; all on 127.0.0.1.',
      '',
      table(rows),
      '',
      'Diagnostics (medians of the rounds): "busy" is event-loop utilisation of a thread, "us/req" busy or CPU time per request',
      "(a server thread's CPU time, unlike its busy time, does not grow when other work on the machine takes the core away);",
      'process CPU counts every thread (clients, both servers, zlib and logging in the thread pool, GC) against all CPUs of the machine.',
      table(diagnostics),
      '',
      `Aim: service rps / bare rps >= ${AIM_RATIO} in every cell.`,
      `Worst ratio: ${worst!.ratio.toFixed(2)} (${PROTOCOLS[worst!.protocol]}, ${worst!.concurrency} client${worst!.concurrency === 1 ? '' : 's'}): ` +
        `aim ${worst!.ratio >= AIM_RATIO ? 'met' : 'MISSED'}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    for (const target of targets.reverse()) {
      try {
        await target.stop();
      } catch (error) {
        line(`bench:rpc: ${(error as Error).message}`);
      }
    }
  }
}

if (isMainThread) {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.stderr.write(`bench:rpc: ${String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = 1;
  }
} else {
  await workerMain(workerData as WorkerInput);
}
