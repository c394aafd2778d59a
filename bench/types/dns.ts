/**
 * The DNS row of bench:checks' `types` part: 10,000 DNS monitors at 1 m (a quick run: 2,000 at
 * 30 s, one period) against a loopback DNS server (test/support/dns-server.ts, UDP), checked by
 * one engine in a process of its own (started as the service is, from this file bundled as the
 * service ships), on a real SQLite data folder seeded through the monitor service. Each check asks
 * the server for the A records of one name and holds the answer to a `contains` rule.
 *
 * Baseline, in the same run and at the engine's rate: bare queries with Node's own resolver (one
 * `node:dns` Resolver set to the server, `resolve4` per check), in its own process from the same
 * bundle, half a period's worth before the engine and half after (drift on a busy machine falls
 * on both). The server runs in a third process, so its CPU is never counted.
 *
 *   node bench/types/dns.ts [--quick]     prints the row (BENCH_QUICK=1 also makes it quick)
 */
import { Resolver } from 'node:dns';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../server/db/open.ts';
import type { Actor } from '../../server/domain/actor.ts';
import { ensureOwner } from '../../server/domain/users/users.ts';
import { createServices } from '../../server/services.ts';
import { type EngineInput, type EngineReport, engineMain } from '../support/engine-child.ts';
import { bundleForService, endChild, forkScript, nextMessage } from '../support/processes.ts';
import { pacedChecks, readStored, runChild } from '../support/type-bench.ts';
import { type TypeRow, typeRows } from '../support/type-rows.ts';

const SELF = fileURLToPath(import.meta.url);
const FULL = { monitors: 10_000, period: { name: '1m', ms: 60_000 }, periods: 2 } as const;
const QUICK = { monitors: 2_000, period: { name: '30s', ms: 30_000 }, periods: 1 } as const;
/** Past the last whole period: the slots of its last seconds may still be in flight at the end. */
const RUN_MARGIN_MS = 6_000;
/** Far above any loopback answer. */
const TIMEOUT_MS = 5_000;
const CHILD_START_TIMEOUT_MS = 30_000;
/** The baseline's queries in flight at most: past it a slot is skipped (and counted). */
/** The name every monitor asks about, and its answers. */
const NAME = 'www.bench.test';
const ADDRESSES = ['192.0.2.10', '192.0.2.11'];

const line = (text: string) => process.stderr.write(`${text}\n`);

// ---- the DNS server's process ------------------------------------------------------------------

interface TargetsReady {
  type: 'ready';
  address: string;
}

async function targetsMain(): Promise<void> {
  const { startDnsServer } = await import('../../test/support/dns-server.ts');
  const server = await startDnsServer({ [NAME]: { A: ADDRESSES } });
  // The server logs every query: for a bench, only that it answers matters.
  setInterval(() => {
    server.queries.udp.length = 0;
    server.queries.tcp.length = 0;
  }, 1_000).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') void server.close().finally(() => process.exit(0));
  });
  process.send!({ type: 'ready', address: server.address } satisfies TargetsReady);
}

async function startTargets(): Promise<{ address: string; stop(): Promise<void> }> {
  const { child, exited } = forkScript(SELF, 'targets');
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' }));
  try {
    const ready = await nextMessage(child, 'DNS server start', CHILD_START_TIMEOUT_MS, (m): m is TargetsReady => (m as TargetsReady)?.type === 'ready');
    return { address: ready.address, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- the baseline: bare Resolver queries ---------------------------------------------------------

interface BaselineInput {
  address: string;
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

async function baselineMain(input: BaselineInput): Promise<void> {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 1 });
  resolver.setServers([input.address]);
  /** One check with Node's resolver alone: the A records, and whether the expected address is among them. */
  const bareCheck = () =>
    new Promise<string | null>((done) =>
      resolver.resolve4(NAME, (error, addresses) => done(error ? (error.code ?? error.message) : addresses.includes(ADDRESSES[0]!) ? null : 'not found')),
    );
  for (let i = 0; i < 50; i++) await bareCheck(); // warm-up, not measured
  const figures = await pacedChecks(input.perSecond, input.durationMs, () => bareCheck());
  process.send!({ type: 'baseline', ...figures } satisfies BaselineReport, () => process.exit(0));
}

// ---- the row -------------------------------------------------------------------------------------

/** Monitors created through the monitor service, as the CLI or the UI creates them. */
async function seed(dataDir: string, resolverAddress: string, count: number, period: string): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    for (let i = 0; i < count; i++) {
      await services.monitors.create(actor, workspaceId, 'dns', {
        name: `bench dns ${i}`,
        host: NAME,
        resolver: resolverAddress,
        contains: [ADDRESSES[0]],
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
    bundle = await bundleForService(SELF, 'bench-dns', ['better-sqlite3']);
    targets = await startTargets();
    const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-dns-'));
    tempDirs.push(dataDir);
    line(`   dns: seeding ${size.monitors.toLocaleString('en')} monitors`);
    await seed(dataDir, targets.address, size.monitors, size.period.name);
    const durationMs = size.periods * size.period.ms + RUN_MARGIN_MS;
    const perSecond = (size.monitors * 1000) / size.period.ms;
    const baselineInput: BaselineInput = { address: targets.address, perSecond, durationMs: size.period.ms / 2 };
    const isBaseline = (m: unknown): m is BaselineReport => (m as BaselineReport)?.type === 'baseline';
    line(`   dns: baseline (bare Resolver queries), first half: ${baselineInput.durationMs / 1000} s at ${perSecond.toFixed(1)} queries/s`);
    const before = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    line(`   dns: engine, ${size.monitors.toLocaleString('en')} monitors at ${size.period.name} for ${durationMs / 1000} s`);
    const report = await runChild(
      bundle,
      'engine',
      { dataDir, durationMs } satisfies EngineInput,
      'engine run',
      durationMs + 180_000,
      (m): m is EngineReport => (m as EngineReport)?.type === 'report',
    );
    line('   dns: baseline, second half');
    const after = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    const stored = await readStored(dataDir);

    const engineUs = ((report.cpuUserMs + report.cpuSystemMs) * 1000) / Math.max(1, report.started);
    const baselineChecks = before.checks + after.checks;
    const baselineUs = ((before.cpuMs + after.cpuMs) * 1000) / Math.max(1, baselineChecks);
    const baselineFailures = before.failures + after.failures;
    const notes = [
      `${report.started} checks started, ${stored.up} stored up, ${stored.other} not${stored.problem ? ` (mostly: ${stored.problem})` : ''}`,
      `baseline ${baselineChecks} queries, ${baselineFailures} failed${baselineFailures ? ` (${before.firstFailure || after.firstFailure})` : ''}, ${before.skipped + after.skipped} skipped`,
      `peak RSS ${(report.rssPeak / 1e6).toFixed(0)} MB`,
      `lag p50 ${report.lagP50 === null ? 'n/a' : `${report.lagP50.toFixed(0)} ms`}, max ${report.lagMax === null ? 'n/a' : `${report.lagMax.toFixed(0)} ms`}`,
      `event loop ${(report.eventLoopUtilization * 100).toFixed(0)} % busy`,
      report.machineBusyCores === null ? '' : `machine busy ${report.machineBusyCores.toFixed(2)} cores`,
    ].filter(Boolean);
    return {
      type: 'dns',
      scale: `${size.monitors.toLocaleString('en')} monitors at ${size.period.name}${options.quick ? ', one period' : ''}`,
      cpuPerCheckUs: engineUs,
      lagP99Ms: report.lagP99 ?? Number.NaN,
      baseline: { name: 'bare Resolver resolve4', cpuPerCheckUs: baselineUs },
      notes: notes.join('; '),
    };
  } finally {
    await targets?.stop().catch((error: Error) => line(`dns bench: stopping the server: ${error.message}`));
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
  void typeRows(['dns'], quick, line).then(
    ({ text }) => process.stdout.write(`${text.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`bench dns: ${String((error as Error)?.stack ?? error)}\n`);
      process.exitCode = 1;
    },
  );
}
