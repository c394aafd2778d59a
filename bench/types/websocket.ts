/**
 * The WebSocket row of bench:checks' `types` part: 2,000 WebSocket monitors at 1 m (a quick run:
 * 200 at 30 s, one period) against a loopback WebSocket server of the `ws` package, checked by
 * one engine in a process of its own (started as the service is, from this file bundled as the
 * service ships), on a real SQLite data folder seeded through the monitor service. Each check
 * connects, makes the opening handshake, and closes the socket cleanly (1000) once it is open.
 *
 * Baseline, in the same run and at the engine's rate: the bare `ws` client doing the same (a
 * socket opened, the handshake, a clean close waited for), in its own process from the same
 * bundle, half a period's worth before the engine and half after (drift on a busy machine falls
 * on both). The server runs in a third process, so its CPU is never counted.
 *
 *   node bench/types/websocket.ts [--quick]     prints the row (BENCH_QUICK=1 also makes it quick)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { openDatabase } from '../../server/db/open.ts';
import type { Actor } from '../../server/domain/actor.ts';
import { ensureOwner } from '../../server/domain/users/users.ts';
import { createServices } from '../../server/services.ts';
import { type EngineInput, type EngineReport, engineMain } from '../support/engine-child.ts';
import { bundleForService, endChild, forkScript, nextMessage } from '../support/processes.ts';
import { pacedChecks, readStored, runChild } from '../support/type-bench.ts';
import { type TypeRow, typeRows } from '../support/type-rows.ts';

const SELF = fileURLToPath(import.meta.url);
const FULL = { monitors: 2_000, period: { name: '1m', ms: 60_000 }, periods: 2 } as const;
const QUICK = { monitors: 200, period: { name: '30s', ms: 30_000 }, periods: 1 } as const;
/** Past the last whole period: the slots of its last seconds may still be in flight at the end. */
const RUN_MARGIN_MS = 6_000;
/** Far above any loopback upgrade. */
const TIMEOUT_MS = 10_000;
const CHILD_START_TIMEOUT_MS = 30_000;
/** The baseline's checks in flight at most: past it a slot is skipped (and counted). */

const line = (text: string) => process.stderr.write(`${text}\n`);

// ---- the WebSocket server's process --------------------------------------------------------------

interface TargetsReady {
  type: 'ready';
  url: string;
}

async function targetsMain(): Promise<void> {
  const { startWebSocketPeer } = await import('../../test/support/websocket-peer.ts');
  const peer = await startWebSocketPeer();
  // The peer keeps every upgrade it saw: for a bench, only that it answers matters.
  setInterval(() => {
    peer.upgrades.length = 0;
    peer.closes.length = 0;
  }, 1_000).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') void peer.close().finally(() => process.exit(0));
  });
  process.send!({ type: 'ready', url: peer.url('/') } satisfies TargetsReady);
}

async function startTargets(): Promise<{ url: string; stop(): Promise<void> }> {
  const { child, exited } = forkScript(SELF, 'targets');
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' }));
  try {
    const ready = await nextMessage(child, 'WebSocket server start', CHILD_START_TIMEOUT_MS, (m): m is TargetsReady => (m as TargetsReady)?.type === 'ready');
    return { url: ready.url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- the baseline: the bare ws client ------------------------------------------------------------

interface BaselineInput {
  url: string;
  perSecond: number;
  durationMs: number;
}

interface BaselineReport {
  type: 'baseline';
  checks: number;
  failures: number;
  firstFailure: string;
  skipped: number;
  cpuMs: number;
}

/** One check with the bare client: open, the handshake, a clean close waited for. */
function bareCheck(url: string): Promise<string | null> {
  return new Promise((done) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: TIMEOUT_MS });
    let problem: string | null = null;
    ws.on('open', () => ws.close(1000));
    ws.on('error', (error) => (problem ??= error.message));
    ws.on('close', () => done(problem));
  });
}

async function baselineMain(input: BaselineInput): Promise<void> {
  for (let i = 0; i < 20; i++) await bareCheck(input.url); // warm-up, not measured
  const figures = await pacedChecks(input.perSecond, input.durationMs, (_i) => bareCheck(input.url));
  process.send!({ type: 'baseline', ...figures } satisfies BaselineReport, () => process.exit(0));
}

// ---- the row -------------------------------------------------------------------------------------

/** Monitors created through the monitor service, as the CLI or the UI creates them. */
async function seed(dataDir: string, url: string, count: number, period: string): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    for (let i = 0; i < count; i++) {
      await services.monitors.create(actor, workspaceId, 'websocket', {
        name: `bench websocket ${i}`,
        url,
        periodicity: period,
        regions: ['iad'],
        timeout: TIMEOUT_MS,
        retry: 1,
      });
    }
  } finally {
    await db.destroy();
  }
}

export async function benchRow(options: { quick: boolean }): Promise<TypeRow> {
  const size = options.quick ? QUICK : FULL;
  const tempDirs: string[] = [];
  let bundle: string | undefined;
  let targets: Awaited<ReturnType<typeof startTargets>> | undefined;
  try {
    bundle = await bundleForService(SELF, 'bench-websocket', ['better-sqlite3']);
    targets = await startTargets();
    const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-websocket-'));
    tempDirs.push(dataDir);
    await seed(dataDir, targets.url, size.monitors, size.period.name);
    const durationMs = size.periods * size.period.ms + RUN_MARGIN_MS;
    const perSecond = (size.monitors * 1000) / size.period.ms;
    const baselineInput: BaselineInput = { url: targets.url, perSecond, durationMs: size.period.ms / 2 };
    const isBaseline = (m: unknown): m is BaselineReport => (m as BaselineReport)?.type === 'baseline';
    line(`   websocket: baseline (bare ws client), first half: ${baselineInput.durationMs / 1000} s at ${perSecond.toFixed(1)} checks/s`);
    const before = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    line(`   websocket: engine, ${size.monitors} monitors at ${size.period.name} for ${durationMs / 1000} s`);
    const report = await runChild(
      bundle,
      'engine',
      { dataDir, durationMs } satisfies EngineInput,
      'engine run',
      durationMs + 180_000,
      (m): m is EngineReport => (m as EngineReport)?.type === 'report',
    );
    line('   websocket: baseline, second half');
    const after = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    const stored = await readStored(dataDir);

    const engineUs = ((report.cpuUserMs + report.cpuSystemMs) * 1000) / Math.max(1, report.started);
    const baselineChecks = before.checks + after.checks;
    const baselineUs = ((before.cpuMs + after.cpuMs) * 1000) / Math.max(1, baselineChecks);
    const baselineFailures = before.failures + after.failures;
    const notes = [
      `${report.started} checks started, ${stored.up} stored up, ${stored.other} not${stored.problem ? ` (mostly: ${stored.problem})` : ''}`,
      `baseline ${baselineChecks} checks, ${baselineFailures} failed${baselineFailures ? ` (${before.firstFailure || after.firstFailure})` : ''}, ${before.skipped + after.skipped} skipped`,
      `peak RSS ${(report.rssPeak / 1e6).toFixed(0)} MB`,
      `lag max ${report.lagMax === null ? 'n/a' : `${report.lagMax.toFixed(0)} ms`}`,
      report.machineBusyCores === null ? '' : `machine busy ${report.machineBusyCores.toFixed(2)} cores`,
    ].filter(Boolean);
    return {
      type: 'websocket',
      scale: `${size.monitors.toLocaleString('en')} monitors at ${size.period.name}${options.quick ? ', one period' : ''}`,
      cpuPerCheckUs: engineUs,
      lagP99Ms: report.lagP99 ?? Number.NaN,
      baseline: { name: 'bare ws client open+close', cpuPerCheckUs: baselineUs },
      notes: notes.join('; '),
    };
  } finally {
    await targets?.stop().catch((error: Error) => line(`websocket bench: stopping the server: ${error.message}`));
    if (bundle) await rm(bundle, { force: true });
    for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
  }
}

// ---- run alone, or as a child of itself ----------------------------------------------------------

const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;
if (isEntry && role === 'targets') {
  await targetsMain();
} else if (isEntry && (role === 'engine' || role === 'baseline')) {
  process.on('disconnect', () => process.exit(1));
  const input = await new Promise<unknown>((done) => process.once('message', done));
  if (role === 'engine') await engineMain(input as EngineInput);
  else await baselineMain(input as BaselineInput);
} else if (isEntry) {
  const quick = process.argv.includes('--quick') || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  // Not awaited here: typeRows imports this very module, which must have finished evaluating first.
  void typeRows(['websocket'], quick, line).then(
    ({ text }) => process.stdout.write(`${text.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`bench websocket: ${String((error as Error)?.stack ?? error)}\n`);
      process.exitCode = 1;
    },
  );
}
