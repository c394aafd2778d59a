// bench:desktop: the service as the desktop app starts it (main/'s supervisor running the service
// host, dist/desktop-host.js, in a child process with a message channel, as utilityProcess.fork
// does in the app), beside `statusdesk serve`, in the same run, on the same data folder of 1,000
// monitors:
//
//   start to first rows   from starting the process to the dashboard's first monitor rows in
//                         Chromium, signed in by the link each hands out (the host over its channel,
//                         serve in its ready line)
//   idle memory           the process's resident memory 5 s after its first rows, its monitors
//                         scheduled (every 10 minutes, against a loopback listener)
//
// The baseline is `statusdesk serve`: what the desktop app's way of starting adds is the difference.
// Rounds alternate the two. Usage: npm run bench:desktop -- [--rounds N] [--monitors N]
// The app runs the host on Electron's own Node; here it runs on the Node that runs npm's scripts.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { arch, availableParallelism, loadavg, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { createSupervisor, forkedHost, type HostProcess } from '../main/src/supervisor.ts';
import { withLocalOwner } from '../server/cli/local.ts';
import { SERVICE_NODE_FLAGS } from '../server/heap-growth.ts';
import { CHROMIUM_ARGS, findChromium } from '../test/support/browser.ts';
import { median, parseNumber, table } from './support/figures.ts';
import { SERVE, spawnReady } from './support/processes.ts';

const HOST = fileURLToPath(new URL('../dist/desktop-host.js', import.meta.url));
const IDLE_MS = 5_000;
const WAIT_MS = 30_000;

const line = (text: string) => process.stdout.write(`${text}\n`);
const ms = (value: number) => `${value.toFixed(0)} ms`;
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

/** Resident memory of a process, in KiB (Linux). */
async function rssKib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
}

async function seed(dataDir: string, count: number, target: string): Promise<void> {
  await withLocalOwner(dataDir, async (services, owner) => {
    const ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    for (let i = 0; i < count; i++)
      await services.monitors.create(owner, ws, 'tcp', { name: `svc-${String(i).padStart(4, '0')}`, uri: target, periodicity: '10m' });
  });
}

/** The first monitor rows of the dashboard a sign-in link opens, in a fresh browser context. */
async function firstRows(browser: Browser, link: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(link, { waitUntil: 'commit' });
    await page.getByRole('list', { name: 'Monitors' }).getByRole('link').first().waitFor({ timeout: WAIT_MS });
  } finally {
    await context.close();
  }
}

interface Measured {
  startToRows: number;
  rss: number;
}

/** The desktop app's way: the supervisor forks the host, sends start, asks for a sign-in link. */
async function desktopRound(browser: Browser, dataDir: string): Promise<Measured> {
  let child: ChildProcess | undefined;
  const supervisor = createSupervisor({
    spawn(): HostProcess {
      // With Node's flags, as the desktop app's service process has them.
      child = fork(HOST, [], { execArgv: [...SERVICE_NODE_FLAGS], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      return forkedHost(child);
    },
    onEvent: () => undefined,
    onStateChange: () => undefined,
  });
  const start = performance.now();
  try {
    await supervisor.start({ type: 'start', dataDir, ports: { api: 0, dashboard: 0 } });
    await firstRows(browser, await supervisor.requestSignIn());
    const startToRows = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { startToRows, rss: await rssKib(child!.pid!) };
  } finally {
    await supervisor.stop();
  }
}

/** The command's way: `statusdesk serve`, its sign-in link from its ready line. */
async function serveRound(browser: Browser, dataDir: string, logFile: string): Promise<Measured> {
  const start = performance.now();
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STATUSDESK_')));
  const served = await spawnReady('statusdesk serve', [...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0'], env, logFile, (ready) =>
    Number(new URL(String(ready.apiUrl)).port),
  );
  try {
    await firstRows(browser, String(served.ready.signInUrl));
    const startToRows = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { startToRows, rss: await rssKib(served.child.pid!) };
  } finally {
    await served.stop();
  }
}

async function main(): Promise<number> {
  let rounds: number;
  let monitors: number;
  try {
    const { values } = parseArgs({ options: { rounds: { type: 'string' }, monitors: { type: 'string' } }, strict: true });
    rounds = parseNumber('rounds', values.rounds, 3, 1, 15);
    monitors = parseNumber('monitors', values.monitors, 1_000, 1, 50_000);
  } catch (error) {
    process.stderr.write(`bench:desktop: ${(error as Error).message}\nUsage: npm run bench:desktop -- [--rounds N] [--monitors N]\n`);
    return 2;
  }
  const executablePath = findChromium();
  if (!executablePath) {
    process.stderr.write('bench:desktop: no Chromium found: install chromium or set CHROMIUM_PATH\n');
    return 1;
  }
  const root = await mkdtemp(join(tmpdir(), 'statusdesk-bench-desktop-'));
  const listener = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const target = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const dataDir = join(root, 'data');
  await seed(dataDir, monitors, target);
  line(`${monitors} monitors stored, checked every 10 minutes against ${target}`);
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    // Warm-up: the files of both processes in the page cache, Chromium started.
    await desktopRound(browser, dataDir);
    await serveRound(browser, dataDir, join(root, 'serve.log'));
    const desktop: Measured[] = [];
    const serve: Measured[] = [];
    for (let i = 0; i < rounds; i++) {
      desktop.push(await desktopRound(browser, dataDir));
      serve.push(await serveRound(browser, dataDir, join(root, 'serve.log')));
    }
    const m = (list: Measured[], pick: (r: Measured) => number) => median(list.map(pick));
    const ratio = (pick: (r: Measured) => number) => median(desktop.map((d, i) => pick(d) / pick(serve[i]!)));
    line('');
    line(
      table([
        [`figure (median of ${rounds} rounds)`, 'desktop host', 'statusdesk serve', 'ratio'],
        ['start to first rows', ms(m(desktop, (r) => r.startToRows)), ms(m(serve, (r) => r.startToRows)), `${ratio((r) => r.startToRows).toFixed(2)}x`],
        [`idle memory (RSS, ${IDLE_MS / 1000} s after)`, mib(m(desktop, (r) => r.rss)), mib(m(serve, (r) => r.rss)), `${ratio((r) => r.rss).toFixed(2)}x`],
      ]),
    );
    line('');
    line(
      `machine: ${platform()} ${arch()}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}; ${await browser.version()}; Node ${process.version}`,
    );
    return 0;
  } finally {
    await browser.close();
    listener.close();
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
