/**
 * The engine alone in a process of its own, as the check benchmarks run it (bench/checks.ts,
 * bench/mcp-checks.ts): it opens a seeded data folder, runs the schedule for a while, reports what
 * it measured of itself (CPU, memory, schedule lag, GC, the processes it left) and exits. Its CPU
 * time and RSS are then the engine's only: no targets, no load generator, no seeding.
 */
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import pino from 'pino';
import { createCheckEngine } from '../../server/checks/engine.ts';
import { openDatabase } from '../../server/db/open.ts';
import { limitHeapGrowth } from '../../server/heap-growth.ts';
import { VERSION } from '../../server/package-root.ts';
import { createServices } from '../../server/services.ts';
import { busyCores, childrenCpuSeconds, machineTicks } from './figures.ts';
import { childProcesses } from './processes.ts';

const RSS_SAMPLE_MS = 250;
/** How often the engine's memory is put in its report's series. */
export const MEMORY_SERIES_MS = 5_000;

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Number of slots k*period + offset in [from, to). */
export const slotsIn = (from: number, to: number, offset: number, periodMs: number) =>
  Math.max(0, Math.ceil((to - offset) / periodMs) - Math.ceil((from - offset) / periodMs));

export interface EngineInput {
  dataDir: string;
  /** How long the schedule runs after engine.start() has returned. */
  durationMs: number;
}

export interface EngineReport {
  type: 'report';
  /** Epoch ms: before engine.start(), after it returned (scheduler running), when the run ended. */
  startCalledAt: number;
  runningAt: number;
  endedAt: number;
  startMs: number;
  startCpuMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  eventLoopUtilization: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** The service thread's garbage collections during the run: young (scavenges) and the rest (mark-compact, incremental steps, weak callbacks), count and ms. */
  gc: { young: [number, number]; other: [number, number] };
  rssPeak: number;
  rssEnd: number;
  heapUsedPeak: number;
  /** Seconds from the scheduler's start to the heap's peak (negative: during engine.start()). */
  heapUsedPeakAt: number;
  jobs: number;
  started: number;
  skippedBusy: number;
  gaps: number;
  lagP50: number | null;
  lagP99: number | null;
  lagMax: number | null;
  maxRunning: number;
  maxWaiting: number;
  logLines: number;
  logSample: string[];
  closeMs: number;
  /** RSS and heap used (bytes) of the engine process at each step of its start. */
  stages: [string, number, number][];
  /**
   * Every MEMORY_SERIES_MS from the scheduler's start: seconds, RSS, heap used, external + array
   * buffers, heap committed (bytes), the most checks waiting for a place since the previous
   * entry, and the young generation's part of the heap committed (bytes). RSS beyond the
   * committed heap and external is native memory.
   */
  memory: [number, number, number, number, number, number, number][];
  /** CPU time of the whole machine (every process) during the run, in cores. */
  machineBusyCores: number | null;
  /** CPU time (user + system) of the engine's child processes that ended during the run (stdio MCP servers), ms; null off Linux. */
  childrenCpuMs: number | null;
  /** Live processes whose parent is the engine process, counted after engine.close(): what a check left running. */
  childrenAfterClose: number;
}

/** What V8's young generation (new space and its large objects) holds committed, in bytes. */
function youngGeneration(): number {
  return getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('new_'))
    .reduce((sum, space) => sum + space.space_size, 0);
}

/** The engine child: opens the seeded database, runs the schedule, reports, exits. */
export async function engineMain(input: EngineInput): Promise<void> {
  // As startService does.
  limitHeapGrowth();
  const stages: EngineReport['stages'] = [];
  const stage = (name: string) => stages.push([name, process.memoryUsage.rss(), process.memoryUsage().heapUsed]);
  stage('modules loaded');
  let logLines = 0;
  const logSample: string[] = [];
  const log = pino(
    { level: 'warn', base: undefined },
    {
      write(text: string) {
        logLines++;
        if (logSample.length < 5) logSample.push(text.trim().slice(0, 400));
      },
    },
  );
  const db = await openDatabase(input.dataDir);
  // Wired as the service wires it; default concurrency, no OTLP endpoints.
  const engine = createCheckEngine(db, { log, version: VERSION, schedule: true });
  const services = createServices(db, { checks: engine.checks });
  // The tools each MCP check lists are pinned, or compared with the pin, as server/main.ts wires it.
  engine.onToolListing((listing) => {
    services.toolPins.listed(listing).catch((error: unknown) => log.error({ err: error, monitorId: listing.monitorId }, 'recording listed tools failed'));
  });
  stage('database open, engine created');

  let rssPeak = 0;
  let heapUsedPeak = 0;
  let heapUsedPeakAt = 0;
  let maxRunning = 0;
  let maxWaiting = 0;
  let maxWaitingOfEntry = 0;
  const memory: EngineReport['memory'] = [];
  let seriesFrom = 0;
  let nextSeriesAt = Infinity;
  const sample = () => {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    rssPeak = Math.max(rssPeak, rss);
    const t = performance.now();
    if (heapUsed > heapUsedPeak) {
      heapUsedPeak = heapUsed;
      heapUsedPeakAt = t;
    }
    const { running, waiting } = engine.scheduler.load;
    maxRunning = Math.max(maxRunning, running);
    maxWaiting = Math.max(maxWaiting, waiting);
    maxWaitingOfEntry = Math.max(maxWaitingOfEntry, waiting);
    if (t >= nextSeriesAt) {
      memory.push([Math.round((t - seriesFrom) / 1000), rss, heapUsed, external + arrayBuffers, heapTotal, maxWaitingOfEntry, youngGeneration()]);
      maxWaitingOfEntry = 0;
      nextSeriesAt += MEMORY_SERIES_MS;
    }
  };
  sample();
  const sampler = setInterval(sample, RSS_SAMPLE_MS);
  const delayHistogram = monitorEventLoopDelay({ resolution: 10 });

  const startCalledAt = Date.now();
  const startCpu = process.cpuUsage();
  const t0 = performance.now();
  await engine.start();
  const startMs = performance.now() - t0;
  const runningAt = Date.now();
  stage('engine.start() returned');
  const startCpuUsage = process.cpuUsage(startCpu);
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const machine = machineTicks();
  const childrenCpu = childrenCpuSeconds(process.pid);
  seriesFrom = nextSeriesAt = performance.now();
  delayHistogram.enable();
  const gc: EngineReport['gc'] = { young: [0, 0], other: [0, 0] };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail: { kind: number } }).detail.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gc.young : gc.other;
      kind[0]++;
      kind[1] += entry.duration;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  await delay(input.durationMs);
  gcObserver.disconnect();
  const endedAt = Date.now();
  const { user, system } = process.cpuUsage(cpu);
  const machineBusyCores = busyCores(machine, machineTicks());
  const childrenCpuNow = childrenCpuSeconds(process.pid);
  const utilization = performance.eventLoopUtilization(elu).utilization;
  delayHistogram.disable();
  sample();
  clearInterval(sampler);
  const { stats } = engine.scheduler;
  const report: EngineReport = {
    type: 'report',
    startCalledAt,
    runningAt,
    endedAt,
    startMs,
    startCpuMs: (startCpuUsage.user + startCpuUsage.system) / 1000,
    cpuUserMs: user / 1000,
    cpuSystemMs: system / 1000,
    eventLoopUtilization: utilization,
    eventLoopDelayP99Ms: delayHistogram.percentile(99) / 1e6,
    eventLoopDelayMaxMs: delayHistogram.max / 1e6,
    gc,
    rssPeak,
    rssEnd: process.memoryUsage.rss(),
    heapUsedPeak,
    heapUsedPeakAt: Math.round((heapUsedPeakAt - seriesFrom) / 1000),
    jobs: engine.scheduler.load.jobs,
    started: stats.started,
    skippedBusy: stats.skippedBusy,
    gaps: stats.gaps,
    lagP50: stats.lag.quantile(0.5) ?? null,
    lagP99: stats.lag.quantile(0.99) ?? null,
    lagMax: stats.lag.quantile(1) ?? null,
    maxRunning,
    maxWaiting,
    logLines: 0,
    logSample: [],
    closeMs: 0,
    stages,
    memory,
    machineBusyCores,
    childrenCpuMs: childrenCpu === undefined || childrenCpuNow === undefined ? null : (childrenCpuNow - childrenCpu) * 1000,
    childrenAfterClose: 0,
  };
  const closing = performance.now();
  await engine.close();
  await db.destroy();
  report.closeMs = performance.now() - closing;
  report.childrenAfterClose = childProcesses(process.pid).length;
  report.logLines = logLines;
  report.logSample = logSample;
  // Checks in flight at close are dropped; their sockets and timers need not keep us here.
  process.send!(report, () => process.exit(0));
}
