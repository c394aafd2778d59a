/**
 * MCP monitor benchmark, two parts, all against loopback targets (127.0.0.1 only):
 *
 *   1. HTTP: 500 MCP monitors (Streamable HTTP) at 30s, created through the monitor service in a
 *      real SQLite data folder, checked by one engine with its schedule on for at least two full
 *      periods, against MCP servers built with the SDKs: four on the 2.x stateless handler
 *      (`@modelcontextprotocol/server`), one in five monitors on the 1.x stateful server
 *      (`@modelcontextprotocol/sdk`, a session per check, ended by DELETE); some servers declare
 *      prompts and resources. Beside it in the same run, the baseline: the bare 2.x
 *      `@modelcontextprotocol/client` Client doing the same handshake (`server/discover`, then
 *      `initialize`) and the same listings (tools/list, and prompts/list and resources/list where
 *      declared, every page) against the same servers at the engine's rate, in its own process,
 *      half a period before the engine and half after (drift on a busy machine falls on both).
 *      Ratio = baseline CPU per check / engine CPU per check: the engine's checks per CPU second
 *      against the bare client's. Aims: ratio >= 0.8, schedule lag p99 < 2 s, no missed periods.
 *   2. stdio: 20 MCP monitors (stdio) at 1m, each check starting the stdio test server
 *      (test/support/mcp-stdio-server.ts, 1.x and 2.x SDKs) with this Node, for at least two
 *      full periods. Printed: CPU per check of the engine and of the servers it started, and the
 *      processes left behind once the engine has stopped: live children of the engine process,
 *      and any process whose command line is this run's stdio server. Aim: 0.
 *
 *   npm run bench:mcp-checks -- [--http-monitors N] [--stdio-monitors N] [--periods N]
 *   BENCH_QUICK=1 npm run bench:mcp-checks     a smoke run: 50 HTTP and 4 stdio monitors, one 30s period each
 *
 * Layout as bench/checks.ts: the MCP servers run in a child process, so their CPU is never
 * counted; the engine runs alone in another child (the main process seeds the database first and
 * reads the stored results after), started with the service's Node flags from this file bundled
 * as the service ships; the baseline runs in a third child from the same bundle. CPU is each
 * process's own user + system time (a stdio server's CPU is its own process's, shown apart).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { arch, availableParallelism, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { offsetOf } from '../server/checks/scheduler.ts';
import { openDatabase, withSqlite } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { SERVICE_NODE_FLAGS } from '../server/heap-growth.ts';
import { createServices } from '../server/services.ts';
import { type EngineInput, type EngineReport, engineMain, slotsIn } from './support/engine-child.ts';
import { parseNumber, percentile, table } from './support/figures.ts';
import { bundleForService, CHILD_STOP_TIMEOUT_MS, endChild, forkScript, nextMessage, within } from './support/processes.ts';
import {
  BEHAVIOUR_ENV,
  type Generation,
  type HttpMcpServer,
  type McpBehaviour,
  STDIO_SERVER_SCRIPT,
  type StdioServerSpec,
  startHttpMcpServer,
} from '../test/support/mcp-servers.ts';

const SELF = fileURLToPath(import.meta.url);
const CPUS = availableParallelism();
const HTTP_PERIOD = { name: '30s', ms: 30_000 } as const;
/** The scheduler's own periods only: 1m for stdio; a quick run takes the shortest, 30s. */
const STDIO_PERIOD = { name: '1m', ms: 60_000 } as const;
const QUICK_STDIO_PERIOD = HTTP_PERIOD;
/** Budgets far above any loopback answer; a stdio check includes starting Node and loading an SDK. */
const HTTP_TIMEOUT_MS = 10_000;
const STDIO_TIMEOUT_MS = 15_000;
/** Slower than this, a check is degraded: it counts, but not as a failure. */
const HTTP_DEGRADED_MS = 2_000;
const STDIO_DEGRADED_MS = 10_000;
/** Past the last whole period: the slots of its last seconds may still be in flight at the end. */
const RUN_MARGIN_MS = 6_000;
const END_MARGIN_MS = 5_000;

const AIM_RATIO = 0.8;
const AIM_LAG_P99_MS = 2_000;

/**
 * The HTTP servers, monitors spread over them round robin: the 2.x stateless handler, and one in
 * five on the 1.x stateful server; three of the five declare prompts and resources.
 */
const SERVERS: { generation: Generation; behaviour: McpBehaviour }[] = [
  { generation: 'v2', behaviour: {} },
  { generation: 'v2', behaviour: { prompts: 3, resources: 3 } },
  { generation: 'v1', behaviour: { prompts: 3, resources: 3 } },
  { generation: 'v2', behaviour: {} },
  { generation: 'v2', behaviour: { prompts: 3, resources: 3 } },
];
/** stdio monitors alternate between the two SDKs' stdio servers. */
const STDIO_GENERATIONS: Generation[] = ['v2', 'v1'];
/** The baseline's checks in flight at most: past it a slot is skipped (and counted). */
const BASELINE_MAX_IN_FLIGHT = 64;
const CHILD_START_TIMEOUT_MS = 30_000;

const line = (text: string) => process.stderr.write(`${text}\n`);
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const int = (value: number) => value.toFixed(0);
const ms2 = (value: number) => value.toFixed(2);
const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const lagText = (v: number | null) => (v === null ? 'n/a' : `${ms2(v)} ms`);

interface Aim {
  name: string;
  met: boolean;
  detail: string;
}

// ---- the MCP servers' process ----------------------------------------------------------------

interface TargetsReady {
  type: 'ready';
  urls: string[];
}
type ToTargets = { type: 'cpu'; id: number } | { type: 'stop' };
interface TargetsCpu {
  type: 'cpu';
  id: number;
  /** User + system CPU time of the targets process so far, in microseconds. */
  micros: number;
  /** Sessions the 1.x stateful server holds open now: a check that ends its session leaves none. */
  openSessions: number;
}

async function targetsMain(): Promise<void> {
  const servers: HttpMcpServer[] = [];
  for (const { generation, behaviour } of SERVERS) servers.push(await startHttpMcpServer(generation, behaviour));
  // The bench is gone (crashed or killed): nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToTargets) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      const openSessions = servers.reduce((sum, server) => sum + server.openSessions(), 0);
      process.send!({ type: 'cpu', id: message.id, micros: user + system, openSessions } satisfies TargetsCpu);
    } else if (message.type === 'stop') {
      void Promise.all(servers.map((server) => server.close().catch(() => {}))).finally(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', urls: servers.map((server) => server.url) } satisfies TargetsReady);
}

interface Targets {
  urls: string[];
  /** CPU time of the targets process so far (microseconds), and the 1.x sessions open. */
  cpu(): Promise<{ micros: number; openSessions: number }>;
  stop(): Promise<void>;
}

async function startTargets(): Promise<Targets> {
  const { child, exited } = forkScript(SELF, 'targets');
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' } satisfies ToTargets));
  let ready: TargetsReady;
  try {
    ready = await nextMessage(child, 'MCP servers start', CHILD_START_TIMEOUT_MS, (m): m is TargetsReady => (m as TargetsReady)?.type === 'ready');
  } catch (error) {
    await stop();
    throw error;
  }
  let nextId = 0;
  return {
    urls: ready.urls,
    async cpu() {
      const id = nextId++;
      const answer = nextMessage(
        child,
        'MCP servers cpu',
        CHILD_START_TIMEOUT_MS,
        (m): m is TargetsCpu => (m as TargetsCpu)?.type === 'cpu' && (m as TargetsCpu).id === id,
      );
      child.send({ type: 'cpu', id } satisfies ToTargets);
      const { micros, openSessions } = await answer;
      return { micros, openSessions };
    },
    stop,
  };
}

// ---- the baseline: the bare 2.x client ----------------------------------------------------------

interface BaselineInput {
  urls: string[];
  /** Checks started per second, spread evenly: the engine's rate. */
  perSecond: number;
  durationMs: number;
}

interface BaselineReport {
  type: 'baseline';
  checks: number;
  failures: number;
  firstFailure: string;
  skipped: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  elapsedMs: number;
  p50: number;
  p99: number;
  rssPeak: number;
}

/** Every page of a listing, following nextCursor, as the probe reads them. */
async function allPages(list: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined }>): Promise<void> {
  let cursor: string | undefined;
  do cursor = (await list(cursor)).nextCursor || undefined;
  while (cursor !== undefined);
}

/**
 * One check with the bare client: the handshake the probe makes (`server/discover` first, then
 * `initialize` for a 2025-era server), tools/list, and prompts/list and resources/list where the
 * server declares them, every page; the session ended (DELETE) where the server keeps one.
 */
async function bareCheck(url: string): Promise<string | null> {
  const client = new Client({ name: 'bench', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' }, defaultCacheTtlMs: 0 });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const options = { timeout: HTTP_TIMEOUT_MS };
  try {
    await client.connect(transport, options);
    const capabilities = client.getServerCapabilities() ?? {};
    if (capabilities.tools) await allPages((cursor) => client.listTools(cursor === undefined ? undefined : { cursor }, options));
    if (capabilities.prompts) await allPages((cursor) => client.listPrompts(cursor === undefined ? undefined : { cursor }, options));
    if (capabilities.resources) await allPages((cursor) => client.listResources(cursor === undefined ? undefined : { cursor }, options));
    if (transport.sessionId !== undefined) await transport.terminateSession();
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.close().catch(() => {});
  }
}

async function baselineMain(input: BaselineInput): Promise<void> {
  // Warm-up, not measured: one check on each server.
  for (const url of input.urls) await bareCheck(url);
  const interval = 1000 / input.perSecond;
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure = '';
  let skipped = 0;
  let inFlight = 0;
  let rssPeak = process.memoryUsage.rss();
  const running = new Set<Promise<void>>();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; ; i++) {
    const at = started + i * interval;
    if (at >= started + input.durationMs) break;
    const wait = at - performance.now();
    if (wait > 0) await delay(wait);
    if (inFlight >= BASELINE_MAX_IN_FLIGHT) {
      skipped++;
      continue;
    }
    inFlight++;
    const t0 = performance.now();
    const check = bareCheck(input.urls[i % input.urls.length]!).then((problem) => {
      latencies.push(performance.now() - t0);
      inFlight--;
      if (problem !== null && failures++ === 0) firstFailure = problem;
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      running.delete(check);
    });
    running.add(check);
  }
  await Promise.all(running);
  const elapsedMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const report: BaselineReport = {
    type: 'baseline',
    checks: latencies.length,
    failures,
    firstFailure,
    skipped,
    cpuUserMs: user / 1000,
    cpuSystemMs: system / 1000,
    elapsedMs,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    rssPeak,
  };
  process.send!(report, () => process.exit(0));
}

async function runBaseline(bundle: string, input: BaselineInput): Promise<BaselineReport> {
  const { child, exited } = forkScript(bundle, 'baseline', [...SERVICE_NODE_FLAGS]);
  try {
    const answer = nextMessage(child, 'baseline run', input.durationMs + 120_000, (m): m is BaselineReport => (m as BaselineReport)?.type === 'baseline');
    child.send(input);
    return await answer;
  } finally {
    await within(exited, CHILD_STOP_TIMEOUT_MS);
    await endChild(child, exited);
  }
}

// ---- the engine ----------------------------------------------------------------------------------

/** The engine alone in its own process, started as the service is (SERVICE_NODE_FLAGS), on `dataDir`. */
async function runEngine(bundle: string, input: EngineInput): Promise<EngineReport> {
  const { child, exited } = forkScript(bundle, 'engine', [...SERVICE_NODE_FLAGS]);
  try {
    const answer = nextMessage(child, 'engine run', input.durationMs + 180_000, (m): m is EngineReport => (m as EngineReport)?.type === 'report');
    child.send(input);
    return await answer;
  } finally {
    await within(exited, CHILD_STOP_TIMEOUT_MS);
    await endChild(child, exited);
  }
}

/** Monitors created through the monitor service, as the CLI or the UI creates them. */
async function seed(dataDir: string, inputs: Record<string, unknown>[]): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    for (const input of inputs) await services.monitors.create(actor, workspaceId, 'mcp', input);
  } finally {
    await db.destroy();
  }
}

interface Stored {
  perMonitor: { id: number; n: number }[];
  byResult: { result: string; n: number }[];
  problems: { message: string; n: number }[];
  pins: number;
  drifts: number;
}

/** What the engine stored, read after it closed (pending results flushed). */
async function readStored(dataDir: string): Promise<Stored> {
  const db = await openDatabase(dataDir);
  try {
    return await withSqlite(db, (sqlite) => ({
      perMonitor: sqlite.prepare('select m.id, count(r.id) as n from monitors m left join check_results r on r.monitor_id = m.id group by m.id').all() as {
        id: number;
        n: number;
      }[],
      byResult: sqlite.prepare('select result, count(*) as n from check_results group by 1 order by 1').all() as { result: string; n: number }[],
      problems: sqlite.prepare("select message, count(*) as n from check_results where result != 'up' group by 1 order by 2 desc limit 5").all() as {
        message: string;
        n: number;
      }[],
      pins: sqlite.prepare('select count(*) from mcp_tool_pins').pluck().get() as number,
      drifts: sqlite.prepare('select count(*) from mcp_tool_drifts').pluck().get() as number,
    }));
  } finally {
    await db.destroy();
  }
}

/** Whole periods run, monitors with fewer results, and slots that never ran (from the scheduler's start to shortly before the end). */
function periodsOf(report: EngineReport, stored: Stored, periodMs: number) {
  const windowEnd = report.endedAt - END_MARGIN_MS;
  const periods = Math.floor((windowEnd - report.runningAt) / periodMs);
  let below = 0;
  let missedSlots = 0;
  for (const m of stored.perMonitor) {
    if (m.n < periods) below++;
    const expected = slotsIn(report.runningAt, windowEnd, offsetOf(m.id, periodMs), periodMs);
    if (m.n < expected) missedSlots += expected - m.n;
  }
  const total = stored.perMonitor.reduce((sum, m) => sum + m.n, 0);
  const count = (result: string) => stored.byResult.find((r) => r.result === result)?.n ?? 0;
  return { periods, below, missedSlots, total, degraded: count('degraded'), down: count('down') };
}

const engineCpuMs = (report: EngineReport) => report.cpuUserMs + report.cpuSystemMs;
/** Engine CPU per check started, microseconds. */
const engineUsPerCheck = (report: EngineReport) => (engineCpuMs(report) * 1000) / Math.max(1, report.started);

// ---- part 1: HTTP ------------------------------------------------------------------------------

async function httpPart(options: Options, targets: Targets, bundle: string, tempDirs: string[]): Promise<{ text: string[]; aims: Aim[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-mcp-'));
  tempDirs.push(dataDir);
  const seeding = performance.now();
  await seed(
    dataDir,
    Array.from({ length: options.httpMonitors }, (_, i) => ({
      name: `bench mcp http ${i}`,
      periodicity: HTTP_PERIOD.name,
      timeout: HTTP_TIMEOUT_MS,
      degraded: HTTP_DEGRADED_MS,
      retry: 1,
      transport: 'http',
      server: targets.urls[i % targets.urls.length]!,
    })),
  );
  const durationMs = options.periods * HTTP_PERIOD.ms + RUN_MARGIN_MS;
  line(`seeded ${options.httpMonitors} HTTP MCP monitors in ${int(performance.now() - seeding)} ms; the engine runs for ${durationMs / 1000} s`);

  // The baseline at the engine's rate, one period's worth of checks: half before the engine, half after.
  const perSecond = (options.httpMonitors * 1000) / HTTP_PERIOD.ms;
  const baselineInput: BaselineInput = { urls: targets.urls, perSecond, durationMs: HTTP_PERIOD.ms / 2 };
  line(`baseline (bare client), first half: ${baselineInput.durationMs / 1000} s at ${perSecond.toFixed(1)} checks/s`);
  const before = await runBaseline(bundle, baselineInput);

  const targetsBefore = await targets.cpu();
  const targetsFrom = performance.now();
  line('engine run');
  const report = await runEngine(bundle, { dataDir, durationMs });
  const targetsAfter = await targets.cpu();
  const targetShare = (targetsAfter.micros - targetsBefore.micros) / 1000 / (performance.now() - targetsFrom);

  line('baseline (bare client), second half');
  const after = await runBaseline(bundle, baselineInput);
  const stored = await readStored(dataDir);

  const { periods, below, missedSlots, total, degraded, down } = periodsOf(report, stored, HTTP_PERIOD.ms);
  const elapsedMs = report.endedAt - report.runningAt;
  const baseline = {
    checks: before.checks + after.checks,
    failures: before.failures + after.failures,
    firstFailure: before.firstFailure || after.firstFailure,
    skipped: before.skipped + after.skipped,
    cpuMs: before.cpuUserMs + before.cpuSystemMs + after.cpuUserMs + after.cpuSystemMs,
    elapsedMs: before.elapsedMs + after.elapsedMs,
    rssPeak: Math.max(before.rssPeak, after.rssPeak),
  };
  const baselineUs = (baseline.cpuMs * 1000) / Math.max(1, baseline.checks);
  const engineUs = engineUsPerCheck(report);
  const ratio = baselineUs / engineUs;
  const rows = [
    ['figure', 'engine', 'baseline (bare 2.x client)'],
    [
      'checks done',
      `${report.started} (${total} stored: ${degraded} degraded, ${down} down)`,
      `${baseline.checks} (${baseline.failures} failed, ${baseline.skipped} skipped)`,
    ],
    ['run', `${(elapsedMs / 1000).toFixed(1)} s, ${plural(periods, 'full period')}`, `${(baseline.elapsedMs / 1000).toFixed(1)} s (two halves)`],
    ['checks per second', (report.started / (elapsedMs / 1000)).toFixed(1), (baseline.checks / (baseline.elapsedMs / 1000)).toFixed(1)],
    [
      'CPU per check (user + system)',
      `${int(engineUs)} us (${int((report.cpuUserMs * 1000) / Math.max(1, report.started))} + ${int((report.cpuSystemMs * 1000) / Math.max(1, report.started))})`,
      `${int(baselineUs)} us`,
    ],
    ['process CPU', `${pct(engineCpuMs(report) / elapsedMs)} of one core`, `${pct(baseline.cpuMs / baseline.elapsedMs)} of one core`],
    ['check latency p50 / p99', '-', `${ms2(before.p50)}/${ms2(before.p99)} ms, ${ms2(after.p50)}/${ms2(after.p99)} ms`],
    ['schedule lag p50 / p99 / max', `${lagText(report.lagP50)} / ${lagText(report.lagP99)} / ${lagText(report.lagMax)}`, '-'],
    [`missed periods (monitors with < ${periods} results; missed slots)`, `${below}; ${missedSlots}`, '-'],
    ['peak RSS', `${mb(report.rssPeak)} MB`, `${mb(baseline.rssPeak)} MB (the same bundle loaded)`],
    ['engine.start() / engine.close()', `${int(report.startMs)} ms / ${int(report.closeMs)} ms`, '-'],
    ['tool sets pinned / drift events', `${stored.pins} of ${options.httpMonitors} / ${stored.drifts}`, '-'],
    ['MCP servers process CPU (not counted)', `${pct(targetShare)} of one core`, '-'],
    ['1.x sessions left open on the server', String(targetsAfter.openSessions), '-'],
    [`machine busy during the engine run (of ${CPUS} cores)`, report.machineBusyCores === null ? 'n/a' : `${report.machineBusyCores.toFixed(2)} cores`, '-'],
    ['engine warnings/errors logged', String(report.logLines), '-'],
  ];
  const servers = SERVERS.map(({ generation, behaviour }) => `${generation}${behaviour.prompts ? '+prompts+resources' : ''}`).join(', ');
  const text = [
    `1. HTTP: ${options.httpMonitors} MCP monitors (Streamable HTTP) at ${HTTP_PERIOD.name} over ${SERVERS.length} loopback servers (${servers}), ` +
      'in one engine (default concurrency) on a real SQLite file, in its own process.',
    `   Baseline: the bare 2.x Client (versionNegotiation auto, the same listings), at the engine's rate (${perSecond.toFixed(1)} checks/s), ` +
      `${baselineInput.durationMs / 1000} s before the engine and ${baselineInput.durationMs / 1000} s after, in its own process.`,
    '',
    table(rows, 1),
    '',
    `Ratio (baseline CPU per check / engine CPU per check): ${ratio.toFixed(2)}`,
  ];
  if (stored.problems.length > 0) text.push('Most frequent messages of checks not up:', ...stored.problems.map((p) => `  ${p.n} x ${p.message}`));
  if (baseline.failures > 0) text.push(`First baseline failure: ${baseline.firstFailure}`);
  if (report.logSample.length > 0) text.push('First lines the engine logged:', ...report.logSample.map((s) => `  ${s}`));
  const aims: Aim[] = [
    { name: `1. CPU per check: baseline / engine >= ${AIM_RATIO}`, met: ratio >= AIM_RATIO, detail: ratio.toFixed(2) },
    { name: `1. schedule lag p99 < ${AIM_LAG_P99_MS / 1000} s`, met: report.lagP99 !== null && report.lagP99 < AIM_LAG_P99_MS, detail: lagText(report.lagP99) },
    {
      name: '1. no missed periods',
      met: periods >= 1 && below === 0 && missedSlots === 0,
      detail: `${below} monitors below ${periods} results; ${missedSlots} missed slots${periods < 2 ? ` (only ${plural(periods, 'period')} run)` : ''}`,
    },
    {
      name: '1. no check failed (engine and baseline)',
      met: down === 0 && baseline.failures === 0 && total > 0,
      detail: `${down} engine checks down (${degraded} degraded: slower than ${HTTP_DEGRADED_MS / 1000} s), ${baseline.failures} baseline failures`,
    },
  ];
  return { text, aims };
}

// ---- part 2: stdio -----------------------------------------------------------------------------

/** Live processes whose command line holds `tag` (this run's stdio servers), read from /proc. */
function processesTagged(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').includes(tag)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

async function stdioPart(options: Options, bundle: string, tempDirs: string[], tag: string): Promise<{ text: string[]; aims: Aim[] }> {
  const period = options.quick ? QUICK_STDIO_PERIOD : STDIO_PERIOD;
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-mcp-'));
  tempDirs.push(dataDir);
  await seed(
    dataDir,
    Array.from({ length: options.stdioMonitors }, (_, i) => {
      const spec: StdioServerSpec = { generation: STDIO_GENERATIONS[i % STDIO_GENERATIONS.length]! };
      return {
        name: `bench mcp stdio ${i}`,
        periodicity: period.name,
        timeout: STDIO_TIMEOUT_MS,
        degraded: STDIO_DEGRADED_MS,
        transport: 'stdio',
        server: process.execPath,
        // The tag (ignored by the server) tells this run's servers from any other's on the machine.
        args: [STDIO_SERVER_SCRIPT, tag],
        env: { [BEHAVIOUR_ENV]: JSON.stringify(spec) },
        allowCommand: true,
      };
    }),
  );
  const durationMs = options.periods * period.ms + RUN_MARGIN_MS;
  line(`seeded ${options.stdioMonitors} stdio MCP monitors at ${period.name}; the engine runs for ${durationMs / 1000} s`);
  const report = await runEngine(bundle, { dataDir, durationMs });
  // The engine process has exited: a server it left would now be an orphan, found by its tag.
  const orphans = processesTagged(tag);
  const stored = await readStored(dataDir);
  const { periods, below, missedSlots, total, degraded, down } = periodsOf(report, stored, period.ms);
  const elapsedMs = report.endedAt - report.runningAt;
  const leftBehind = report.childrenAfterClose + orphans.length;
  const serversUs = report.childrenCpuMs === null ? null : (report.childrenCpuMs * 1000) / Math.max(1, report.started);
  const rows = [
    ['figure', 'value'],
    ['checks done', `${report.started} (${total} stored: ${degraded} degraded, ${down} down)`],
    ['run', `${(elapsedMs / 1000).toFixed(1)} s, ${plural(periods, 'full period')} at ${period.name}`],
    ['engine CPU per check (user + system)', `${int(engineUsPerCheck(report))} us (${pct(engineCpuMs(report) / elapsedMs)} of one core over the run)`],
    ['stdio servers CPU per check (their own processes)', serversUs === null ? 'n/a' : `${int(serversUs)} us`],
    ['schedule lag p50 / p99 / max', `${lagText(report.lagP50)} / ${lagText(report.lagP99)} / ${lagText(report.lagMax)}`],
    [`missed periods (monitors with < ${periods} results; missed slots)`, `${below}; ${missedSlots}`],
    ['peak RSS (engine process)', `${mb(report.rssPeak)} MB`],
    ['tool sets pinned / drift events', `${stored.pins} of ${options.stdioMonitors} / ${stored.drifts}`],
    ['processes left: children of the engine after close', String(report.childrenAfterClose)],
    ["processes left: this run's stdio servers after the engine exited", String(orphans.length)],
    ['engine warnings/errors logged', String(report.logLines)],
  ];
  const text = [
    `2. stdio: ${options.stdioMonitors} MCP monitors (stdio) at ${period.name}, each check starting ${STDIO_SERVER_SCRIPT.split('/').slice(-3).join('/')} ` +
      `(${STDIO_GENERATIONS.join(' and ')} SDKs) with ${process.execPath.split('/').slice(-3).join('/')}, in one engine in its own process.`,
    '',
    table(rows, 1),
  ];
  if (stored.problems.length > 0) text.push('Most frequent messages of checks not up:', ...stored.problems.map((p) => `  ${p.n} x ${p.message}`));
  if (report.logSample.length > 0) text.push('First lines the engine logged:', ...report.logSample.map((s) => `  ${s}`));
  const aims: Aim[] = [
    {
      name: '2. no process left behind',
      met: leftBehind === 0,
      detail: `${report.childrenAfterClose} children of the engine, ${orphans.length} servers running`,
    },
    {
      name: '2. no check failed',
      met: down === 0 && total > 0,
      detail: `${down} of ${total} down (${degraded} degraded: slower than ${STDIO_DEGRADED_MS / 1000} s)`,
    },
  ];
  // Anything left is ended here, so that the machine is as it was.
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return { text, aims };
}

// ---- main ------------------------------------------------------------------------------------------

interface Options {
  quick: boolean;
  httpMonitors: number;
  stdioMonitors: number;
  periods: number;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: { 'http-monitors': { type: 'string' }, 'stdio-monitors': { type: 'string' }, periods: { type: 'string' } },
    strict: true,
  });
  const quick = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  return {
    quick,
    httpMonitors: parseNumber('http-monitors', values['http-monitors'], quick ? 50 : 500, 1, 20_000),
    stdioMonitors: parseNumber('stdio-monitors', values['stdio-monitors'], quick ? 4 : 20, 0, 200),
    periods: parseNumber('periods', values.periods, quick ? 1 : 2, 1, 20),
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(
      `bench:mcp-checks: ${(error as Error).message}\nUsage: npm run bench:mcp-checks -- [--http-monitors N] [--stdio-monitors N] [--periods N]\n`,
    );
    return 2;
  }
  const tempDirs: string[] = [];
  const tag = `--statusdesk-bench-${process.pid}-${Date.now()}`;
  let targets: Targets | undefined;
  let bundle: string | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await targets?.stop().catch((error: Error) => line(`bench:mcp-checks: stopping the MCP servers: ${error.message}`));
      for (const pid of processesTagged(tag)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (bundle) await rm(bundle, { force: true });
      for (const dir of tempDirs)
        await rm(dir, { recursive: true, force: true }).catch((error: Error) => line(`bench:mcp-checks: removing ${dir}: ${error.message}`));
    })());
  // Interrupted: children and temporary folders go too.
  const onSignal = (signal: NodeJS.Signals) => {
    line(`bench:mcp-checks: ${signal}, cleaning up`);
    void cleanup().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // The engine and the baseline run this file bundled as the service ships; the SDKs' servers
    // are the targets' only (they run this file as it is), so they stay out of the bundle.
    bundle = await bundleForService(SELF, 'bench-mcp-checks', [
      'better-sqlite3',
      '@modelcontextprotocol/sdk',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
    ]);
    targets = await startTargets();
    const out: string[] = [
      '',
      `MCP monitor benchmark${options.quick ? ' (BENCH_QUICK: smoke-run sizes, one period)' : ''}; Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs; ` +
        'MCP servers on 127.0.0.1 in a child process.',
    ];
    const aims: Aim[] = [];
    line('-- http');
    const http = await httpPart(options, targets, bundle, tempDirs);
    out.push('', ...http.text);
    aims.push(...http.aims);
    if (options.stdioMonitors > 0) {
      line('-- stdio');
      const stdio = await stdioPart(options, bundle, tempDirs, tag);
      out.push('', ...stdio.text);
      aims.push(...stdio.aims);
    }
    const width = Math.max(...aims.map((a) => a.name.length));
    out.push('', 'Aims:', ...aims.map((a) => `  ${(a.met ? 'met' : 'MISSED').padEnd(6)}  ${a.name.padEnd(width)}  ${a.detail}`));
    if (options.quick) out.push('', 'BENCH_QUICK: sizes and durations are reduced; the aims are meant for the full run.');
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
if (role === 'targets') {
  await targetsMain();
} else if (role === 'engine' || role === 'baseline') {
  process.on('disconnect', () => process.exit(1));
  const input = await new Promise<unknown>((done) => process.once('message', done));
  if (role === 'engine') await engineMain(input as EngineInput);
  else await baselineMain(input as BaselineInput);
} else {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.stderr.write(`bench:mcp-checks: ${String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = 1;
  }
}
