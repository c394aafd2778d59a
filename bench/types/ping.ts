/**
 * The ping row of bench:checks' `types` part: 300 ping monitors at 1 m (a quick run: 100 at 30 s,
 * one period) against 127.0.0.1, checked by one engine in a process of its own (started as the
 * service is, from this file bundled as the service ships), on a real SQLite data folder seeded
 * through the monitor service. Each check runs the system's ping with the monitor's defaults
 * (3 echo requests, 1 s each at most) and reads its output.
 *
 * Baseline, in the same run and at the engine's rate: a bare `execFile` of ping with the same
 * arguments (those the probe makes, pingArguments), its output collected and not read, in its own
 * process from the same bundle, half a period's worth before the engine and half after (drift on
 * a busy machine falls on both). CPU per check is each Node process's own; the ping processes'
 * CPU (the children's, from /proc on Linux) is the same work on both sides, and is shown apart.
 * Needs the system's ping, allowed to send ICMP: without it the row says why and measures nothing.
 *
 *   node bench/types/ping.ts [--quick]     prints the row (BENCH_QUICK=1 also makes it quick)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPingPath, findPing, flavorOf, pingArguments, probePing } from '../../server/checks/ping-probe.ts';
import { openDatabase } from '../../server/db/open.ts';
import type { Actor } from '../../server/domain/actor.ts';
import { createDestinationPolicy } from '../../server/domain/destinations.ts';
import { ensureOwner } from '../../server/domain/users/users.ts';
import { createServices } from '../../server/services.ts';
import { type EngineInput, type EngineReport, engineMain } from '../support/engine-child.ts';
import { childrenCpuSeconds } from '../support/figures.ts';
import { bundleForService } from '../support/processes.ts';
import { pacedChecks, readStored, runChild } from '../support/type-bench.ts';
import { type TypeRow, typeRows } from '../support/type-rows.ts';

const SELF = fileURLToPath(import.meta.url);
const FULL = { monitors: 300, period: { name: '1m', ms: 60_000 }, periods: 2 } as const;
const QUICK = { monitors: 100, period: { name: '30s', ms: 30_000 }, periods: 1 } as const;
/** Past the last whole period: the slots of its last seconds may still be in flight at the end. */
const RUN_MARGIN_MS = 6_000;
const TARGET = '127.0.0.1';
/** The monitors' defaults: what a ping monitor made without them does. */
const COUNT = 3;
const PACKET_TIMEOUT_MS = 1_000;
const TIMEOUT_MS = 10_000;
/** The baseline's pings running at most: past it a slot is skipped (and counted). */

const line = (text: string) => process.stderr.write(`${text}\n`);

// ---- the baseline: a bare execFile of ping -------------------------------------------------------

interface BaselineInput {
  file: string;
  args: string[];
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
  /** The ping processes' CPU, ms; null off Linux. */
  childrenCpuMs: number | null;
}

/** One check with Node's own API: ping run with the probe's arguments, its output kept whole. */
function bareCheck(file: string, args: string[]): Promise<string | null> {
  return new Promise((done) => {
    execFile(file, args, { env: { LC_ALL: 'C' }, timeout: TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      done(error ? error.message : stdout.includes(' 0% packet loss') ? null : `not every packet answered: ${stdout.split('\n').at(-3)}`);
    });
  });
}

async function baselineMain(input: BaselineInput): Promise<void> {
  for (let i = 0; i < 5; i++) await bareCheck(input.file, input.args); // warm-up, not measured
  const children = childrenCpuSeconds(process.pid);
  const figures = await pacedChecks(input.perSecond, input.durationMs, (_i) => bareCheck(input.file, input.args));
  const childrenNow = childrenCpuSeconds(process.pid);
  process.send!(
    {
      type: 'baseline',
      ...figures,
      childrenCpuMs: children === undefined || childrenNow === undefined ? null : (childrenNow - children) * 1000,
    } satisfies BaselineReport,
    () => process.exit(0),
  );
}

// ---- the row -------------------------------------------------------------------------------------

/** Monitors created through the monitor service, as the CLI or the UI creates them, with the type's defaults. */
async function seed(dataDir: string, count: number, period: string): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    for (let i = 0; i < count; i++) {
      await services.monitors.create(actor, workspaceId, 'ping', {
        name: `bench ping ${i}`,
        host: TARGET,
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

/** The row of a machine whose ping cannot run: nothing measured, and why. */
const unmeasured = (scale: string, why: string): TypeRow => ({
  type: 'ping',
  scale,
  cpuPerCheckUs: Number.NaN,
  lagP99Ms: Number.NaN,
  notes: `not measured: ${why}`,
});

const perCheck = (ms: number | null, checks: number) => (ms === null ? 'n/a' : `${((ms * 1000) / Math.max(1, checks)).toFixed(0)} µs`);

export async function benchRow(options: { quick: boolean }): Promise<TypeRow> {
  const size = options.quick ? QUICK : FULL;
  const scale = `${size.monitors.toLocaleString('en')} monitors at ${size.period.name} against ${TARGET}${options.quick ? ', one period' : ''}`;
  // The system's ping, found and called as the probe finds and calls it.
  const ping = findPing('ping', defaultPingPath());
  if (!ping) return unmeasured(scale, "the system's ping is not installed");
  const probe = await probePing(
    { host: TARGET, count: 1, packetTimeout: PACKET_TIMEOUT_MS, degradedLoss: 0, timeout: TIMEOUT_MS, degraded: null, retry: 0 },
    { destinations: createDestinationPolicy() },
  );
  if (probe.result !== 'up') return unmeasured(scale, probe.message);
  const { args } = pingArguments(flavorOf(process.platform, ping.busybox), TARGET, COUNT, PACKET_TIMEOUT_MS);
  const { file } = ping;

  const tempDirs: string[] = [];
  let bundle: string | undefined;
  try {
    bundle = await bundleForService(SELF, 'bench-ping', ['better-sqlite3']);
    const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-ping-'));
    tempDirs.push(dataDir);
    await seed(dataDir, size.monitors, size.period.name);
    const durationMs = size.periods * size.period.ms + RUN_MARGIN_MS;
    const perSecond = (size.monitors * 1000) / size.period.ms;
    const baselineInput: BaselineInput = { file, args, perSecond, durationMs: size.period.ms / 2 };
    const isBaseline = (m: unknown): m is BaselineReport => (m as BaselineReport)?.type === 'baseline';
    line(`   ping: baseline (bare execFile of ping ${args.join(' ')}), first half: ${baselineInput.durationMs / 1000} s at ${perSecond.toFixed(1)} checks/s`);
    const before = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    line(`   ping: engine, ${size.monitors} monitors at ${size.period.name} for ${durationMs / 1000} s`);
    const report = await runChild(
      bundle,
      'engine',
      { dataDir, durationMs } satisfies EngineInput,
      'engine run',
      durationMs + 180_000,
      (m): m is EngineReport => (m as EngineReport)?.type === 'report',
    );
    line('   ping: baseline, second half');
    const after = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    const stored = await readStored(dataDir);

    const engineUs = ((report.cpuUserMs + report.cpuSystemMs) * 1000) / Math.max(1, report.started);
    const baselineChecks = before.checks + after.checks;
    const baselineUs = ((before.cpuMs + after.cpuMs) * 1000) / Math.max(1, baselineChecks);
    const baselineFailures = before.failures + after.failures;
    const baselineChildren = before.childrenCpuMs === null || after.childrenCpuMs === null ? null : before.childrenCpuMs + after.childrenCpuMs;
    const notes = [
      `${report.started} checks started, ${stored.up} stored up, ${stored.other} not${stored.problem ? ` (mostly: ${stored.problem})` : ''}`,
      `baseline ${baselineChecks} checks, ${baselineFailures} failed${baselineFailures ? ` (${before.firstFailure || after.firstFailure})` : ''}, ${before.skipped + after.skipped} skipped`,
      `ping processes' CPU per check: engine ${perCheck(report.childrenCpuMs, report.started)}, baseline ${perCheck(baselineChildren, baselineChecks)}`,
      `processes left after close ${report.childrenAfterClose}`,
      `peak RSS ${(report.rssPeak / 1e6).toFixed(0)} MB`,
      `lag max ${report.lagMax === null ? 'n/a' : `${report.lagMax.toFixed(0)} ms`}`,
      report.machineBusyCores === null ? '' : `machine busy ${report.machineBusyCores.toFixed(2)} cores`,
    ].filter(Boolean);
    return {
      type: 'ping',
      scale,
      cpuPerCheckUs: engineUs,
      lagP99Ms: report.lagP99 ?? Number.NaN,
      baseline: { name: 'bare execFile of ping', cpuPerCheckUs: baselineUs },
      notes: notes.join('; '),
    };
  } finally {
    if (bundle) await rm(bundle, { force: true });
    for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
  }
}

// ---- run alone, or as a child of itself ----------------------------------------------------------

const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;
if (isEntry && (role === 'engine' || role === 'baseline')) {
  process.on('disconnect', () => process.exit(1));
  const input = await new Promise<unknown>((done) => process.once('message', done));
  if (role === 'engine') await engineMain(input as EngineInput);
  else await baselineMain(input as BaselineInput);
} else if (isEntry) {
  const quick = process.argv.includes('--quick') || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  // Not awaited here: typeRows imports this very module, which must have finished evaluating first.
  void typeRows(['ping'], quick, line).then(
    ({ text }) => process.stdout.write(`${text.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`bench ping: ${String((error as Error)?.stack ?? error)}\n`);
      process.exitCode = 1;
    },
  );
}
