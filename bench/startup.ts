/**
 * Start-up benchmark: time from spawning `statusdesk serve` to its ready line, and its resident
 * memory once idle, next to the same figures for a bare node:http server started the same way:
 * on a new data folder, again on that folder (warm), and on a folder holding 10,000 monitors
 * (seeded once, before the runs, as SQL copies of one monitor the service created).
 *
 *   npm run bench:startup -- [--runs N] [--warmup N]
 *
 * Aims: with an empty data folder, ready in under 300 ms and idle RSS under 90 MB; with 10,000
 * monitors, ready in under 500 ms. Linux only for RSS (/proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openDatabase, withSqlite } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices } from '../server/services.ts';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { arch, availableParallelism, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { median, parseNumber, table } from './support/figures.ts';
import { describeExit, type Exit, SERVE, within } from './support/processes.ts';

/** Aims per scenario; the 10,000 monitors have no RSS aim (their rows are the service's data). */
const AIMS: Record<Exclude<ScenarioId, 'baseline'>, { readyMs: number; rssMb?: number }> = {
  first: { readyMs: 300, rssMb: 90 },
  warm: { readyMs: 300, rssMb: 90 },
  monitors: { readyMs: 500 },
};
const MONITOR_COUNT = 10_000;
/** Long enough for start-up garbage to settle and lazy work to run, short enough to keep runs quick. */
const IDLE_MS = 1_000;
const READY_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 5_000;
const KILL_TIMEOUT_MS = 2_000;
const MAX_RUNS = 50;

/**
 * The baseline does what the service must do at minimum (load Node, bind one loopback port, say
 * so on stdout) and stops on SIGTERM the same way, so the difference is Statusdesk's own cost.
 */
const BASELINE_SCRIPT = [
  "const server = require('node:http').createServer((req, res) => res.end('ok\\n'));",
  "server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ event: 'ready', url: 'http://127.0.0.1:' + server.address().port }) + '\\n'));",
  "process.once('SIGTERM', () => server.close());",
].join('\n');

type ScenarioId = 'baseline' | 'first' | 'warm' | 'monitors';

const SCENARIOS: Record<ScenarioId, string> = {
  baseline: 'bare node:http (baseline)',
  first: 'statusdesk serve, new data folder',
  warm: 'statusdesk serve, warm start',
  monitors: `statusdesk serve, ${MONITOR_COUNT.toLocaleString('en')} monitors`,
};

interface Sample {
  readyMs: number;
  rssBytes: number | undefined;
  /** Empty when the process exited with code 0 after SIGTERM. */
  exitProblem: string;
}

class StartFailure extends Error {}

function serveArgs(dataDir: string): string[] {
  // --host is the default already; spelled out so the bench can never bind beyond loopback.
  return [...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0', '--host', '127.0.0.1'];
}

/**
 * A data folder holding `count` TCP monitors: one created through the services (so the row is
 * what the service writes), the rest SQL copies of it. Hourly checks of a closed loopback port:
 * the engine schedules all of them, and none answers slowly.
 */
async function seedMonitors(dataDir: string, count: number): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating the monitor checks nothing.
    const services = createServices(db);
    try {
      const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
      const first = await services.monitors.create(actor, workspaceId, 'tcp', { name: 'bench 0', periodicity: '1h', uri: '127.0.0.1:1', tags: ['bench'] });
      await withSqlite(db, (sqlite) => {
        const { id: _id, ...row } = sqlite.prepare('select * from monitors where id = ?').get(Number(first.id)) as Record<string, unknown>;
        const columns = Object.keys(row);
        const insert = sqlite.prepare(`insert into monitors (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`);
        sqlite.transaction(() => {
          for (let n = 1; n < count; n++) insert.run({ ...row, name: `bench ${n}` });
        })();
      });
    } finally {
      services.close();
    }
  } finally {
    await db.destroy();
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The clock stops when the first stdout line arrives, before parsing, so the figure is what a
 * supervisor or test harness waiting on that line would see.
 */
function waitForReady(child: ChildProcess, started: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const stdout = child.stdout!;
    let buffered = '';
    const cleanup = () => {
      clearTimeout(timer);
      stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining: a full pipe would stall anything the process writes later.
      stdout.resume();
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onData = (chunk: string) => {
      const at = performance.now();
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      cleanup();
      const line = buffered.slice(0, newline);
      let event: unknown;
      try {
        event = (JSON.parse(line) as { event?: unknown }).event;
      } catch {
        event = undefined;
      }
      // The ready line carries a sign-in token: never echo it.
      if (event === 'ready') resolve(at - started);
      else reject(new StartFailure('the first line on stdout is not the ready line'));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new StartFailure(`exited (${describeExit({ code, signal })}) before the ready line`));
    const onError = (error: Error) => fail(new StartFailure(`could not be spawned: ${error.message}`));
    const timer = setTimeout(() => fail(new StartFailure(`no ready line within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    stdout.setEncoding('utf8');
    stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function stop(child: ChildProcess, exited: Promise<Exit>): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return `already exited (${describeExit(await exited)})`;
  child.kill('SIGTERM');
  const exit = await within(exited, EXIT_TIMEOUT_MS);
  if (exit) return exit.code === 0 ? '' : `exited with ${describeExit(exit)} on SIGTERM`;
  child.kill('SIGKILL');
  const killed = await within(exited, KILL_TIMEOUT_MS);
  return killed ? `needed SIGKILL after ${EXIT_TIMEOUT_MS} ms` : `still running ${KILL_TIMEOUT_MS} ms after SIGKILL (pid ${child.pid})`;
}

async function measure(scenario: ScenarioId, args: string[]): Promise<Sample> {
  let stderrTail = '';
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderrTail = (stderrTail + chunk).slice(-2_000)));
  let readyMs: number;
  try {
    readyMs = await waitForReady(child, started);
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await within(exited, KILL_TIMEOUT_MS);
    }
    const detail = stderrTail.trim() ? `\n--- stderr (tail) ---\n${stderrTail.trim()}` : '';
    throw new StartFailure(`${SCENARIOS[scenario]}: ${(error as Error).message}${detail}`);
  }
  await delay(IDLE_MS);
  if (child.exitCode !== null || child.signalCode !== null) {
    const detail = stderrTail.trim() ? `\n--- stderr (tail) ---\n${stderrTail.trim()}` : '';
    throw new StartFailure(`${SCENARIOS[scenario]}: exited (${describeExit(await exited)}) while idle${detail}`);
  }
  const rssBytes = residentBytes(child.pid!);
  const exitProblem = await stop(child, exited);
  return { readyMs, rssBytes, exitProblem };
}

// Decimal megabytes: the stricter reading of "90 MB", so a pass holds under either reading.
const mb = (bytes: number) => bytes / 1_000_000;

interface Summary {
  readyMedian: number;
  readyMin: number;
  readyMax: number;
  rssMedian: number | undefined;
  rssMin: number | undefined;
  rssMax: number | undefined;
}

function summarise(samples: Sample[]): Summary {
  const ready = samples.map((s) => s.readyMs);
  const rss = samples
    .map((s) => s.rssBytes)
    .filter((b): b is number => b !== undefined)
    .map(mb);
  // A partial RSS series would give a misleading median; show none rather than some.
  const hasRss = rss.length === samples.length;
  return {
    readyMedian: median(ready),
    readyMin: Math.min(...ready),
    readyMax: Math.max(...ready),
    rssMedian: hasRss ? median(rss) : undefined,
    rssMin: hasRss ? Math.min(...rss) : undefined,
    rssMax: hasRss ? Math.max(...rss) : undefined,
  };
}

const ratio = (value: number | undefined, base: number | undefined) =>
  value === undefined || base === undefined || base === 0 ? 'n/a' : `${(value / base).toFixed(1)}x`;
const ms = (value: number) => value.toFixed(0);
const mbText = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(1));

async function main(): Promise<number> {
  let runs: number;
  let warmup: number;
  try {
    const { values } = parseArgs({ options: { runs: { type: 'string' }, warmup: { type: 'string' } }, strict: true });
    runs = parseNumber('runs', values.runs, 7, 1, MAX_RUNS);
    warmup = parseNumber('warmup', values.warmup, 1, 0, MAX_RUNS);
  } catch (error) {
    process.stderr.write(`bench:startup: ${(error as Error).message}\nUsage: npm run bench:startup -- [--runs N] [--warmup N]\n`);
    return 2;
  }

  const samples: Record<ScenarioId, Sample[]> = { baseline: [], first: [], warm: [], monitors: [] };
  const exitProblems: string[] = [];
  const line = (text: string) => process.stderr.write(`${text}\n`);

  const monitorsDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-monitors-'));
  try {
    const seeding = performance.now();
    await seedMonitors(monitorsDir, MONITOR_COUNT);
    line(`seeded ${MONITOR_COUNT} monitors in ${ms(performance.now() - seeding)} ms`);

    for (let round = -warmup; round < runs; round++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-'));
      try {
        // Alternating which side goes first spreads any drift (thermal, page cache, other load)
        // over both instead of always penalising one; warm must follow first on the same folder.
        const order: ScenarioId[] = round % 2 === 0 ? ['baseline', 'first', 'warm', 'monitors'] : ['monitors', 'first', 'warm', 'baseline'];
        const results: string[] = [];
        for (const scenario of order) {
          const args = scenario === 'baseline' ? ['-e', BASELINE_SCRIPT] : serveArgs(scenario === 'monitors' ? monitorsDir : dataDir);
          const sample = await measure(scenario, args);
          if (round >= 0) samples[scenario].push(sample);
          if (sample.exitProblem) exitProblems.push(`${SCENARIOS[scenario]}: ${sample.exitProblem}`);
          results.push(`${scenario} ${ms(sample.readyMs)} ms ${mbText(sample.rssBytes === undefined ? undefined : mb(sample.rssBytes))} MB`);
        }
        line(`${round < 0 ? 'warm-up' : `run ${round + 1}/${runs}`}: ${results.join(' | ')}`);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(monitorsDir, { recursive: true, force: true });
  }

  const summary = {
    baseline: summarise(samples.baseline),
    first: summarise(samples.first),
    warm: summarise(samples.warm),
    monitors: summarise(samples.monitors),
  };
  const base = summary.baseline;
  const rows = [['scenario', 'ready ms (median)', 'min-max', 'vs base', 'idle RSS MB (median)', 'min-max', 'vs base']];
  for (const id of ['baseline', 'first', 'warm', 'monitors'] as const) {
    const s = summary[id];
    rows.push([
      SCENARIOS[id],
      ms(s.readyMedian),
      `${ms(s.readyMin)}-${ms(s.readyMax)}`,
      ratio(s.readyMedian, base.readyMedian),
      mbText(s.rssMedian),
      s.rssMin === undefined ? 'n/a' : `${mbText(s.rssMin)}-${mbText(s.rssMax)}`,
      ratio(s.rssMedian, base.rssMedian),
    ]);
  }

  const out: string[] = [
    '',
    `Start-up: median of ${runs} run${runs === 1 ? '' : 's'} per scenario (${warmup} warm-up round${warmup === 1 ? '' : 's'} discarded), ` +
      `RSS read ${IDLE_MS} ms after the ready line; Node ${process.version}, ${platform()} ${arch()}, ${availableParallelism()} CPUs`,
    '',
    table(rows),
    '',
    'Aims:',
  ];
  for (const id of ['first', 'warm', 'monitors'] as const) {
    const s = summary[id];
    const aim = AIMS[id];
    const readyMet = `(< ${aim.readyMs} ms) ${s.readyMedian < aim.readyMs ? 'met' : 'MISSED'}`;
    const rssMet =
      aim.rssMb === undefined
        ? '(no aim)'
        : s.rssMedian === undefined
          ? 'not measured (needs Linux /proc)'
          : `(< ${aim.rssMb} MB) ${s.rssMedian < aim.rssMb ? 'met' : 'MISSED'}`;
    // MiB alongside, since ps and top report binary units and the two readings differ by ~5%.
    const mib = s.rssMedian === undefined ? '' : ` (${((s.rssMedian * 1_000_000) / 1024 ** 2).toFixed(1)} MiB)`;
    out.push(`  ${SCENARIOS[id]}: ready ${ms(s.readyMedian)} ms ${readyMet}; idle RSS ${mbText(s.rssMedian)} MB${mib} ${rssMet}`);
  }
  if (exitProblems.length > 0) {
    out.push('', 'Did not exit cleanly on SIGTERM:', ...exitProblems.map((p) => `  ${p}`));
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench:startup: ${error instanceof StartFailure ? error.message : String((error as Error)?.stack ?? error)}\n`);
  process.exitCode = 1;
}
