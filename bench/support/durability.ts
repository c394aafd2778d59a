/**
 * Crash durability, as the benchmark and the test both measure it: `statusdesk serve` (the built
 * bundle, as shipped) on one data folder kept across cycles; in each cycle a few clients write over
 * the RPC and keep a ledger of every write the service acknowledged, the process is killed with
 * SIGKILL at a random moment, started again, and every acknowledged write must be in the database,
 * which must pass `PRAGMA integrity_check`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Client, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import Database from 'better-sqlite3';
import { MonitorService, Periodicity } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { percentile } from './figures.ts';
import { type Child, spawnReady, within } from './processes.ts';
import { seededRandom } from '../../test/support/seeded-random.ts';

export const CLI = new URL('../../bin/statusdesk.js', import.meta.url).pathname;
export const BUNDLE = new URL('../../dist/statusdesk.js', import.meta.url).pathname;
const DATABASE_FILE = 'statusdesk.db';
const KILL_TIMEOUT_MS = 5_000;

export interface DurabilityOptions {
  cycles: number;
  /** Concurrent writers per cycle. */
  clients: number;
  /** The kill comes at a random moment between these, after the writers start. */
  minWriteMs: number;
  maxWriteMs: number;
  /** Seeds the kill moments and the mix of writes. */
  seed: number;
  /** One line per cycle, as it ends. */
  progress?: (line: string) => void;
}

export interface DurabilityFigures {
  cycles: number;
  /** Writes the service answered with success, over all cycles. */
  acknowledged: number;
  /** Acknowledged writes missing from the database after a restart. */
  lost: number;
  /** Cycles after whose restart `PRAGMA integrity_check` was not `ok`. */
  corrupt: number;
  /** Writes that failed other than by the kill (an error answer before it). */
  refused: number;
  /** Spawn to ready line of each restart after a kill, ms. */
  restartMs: number[];
  restartP50: number;
  restartP99: number;
  /** What went wrong, cycle by cycle (missing ids, integrity messages, refused writes). */
  problems: string[];
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`statusdesk ${args[0]} ${args[1] ?? ''}: ${stderr || error.message}`)) : resolve(stdout.trim()),
    );
  });
}

interface Ledger {
  pages: Set<string>;
  monitors: Set<string>;
}

/**
 * Writers on `apiUrl` until `stop` resolves: each awaits one write at a time, and an answer with
 * success puts the new id in the ledger. Returns the failures that came before the kill.
 */
async function write(
  apiUrl: string,
  key: string,
  clients: number,
  cycle: number,
  ledger: Ledger,
  random: () => number,
  killed: () => boolean,
): Promise<string[]> {
  const transport = createConnectTransport({
    baseUrl: `${apiUrl}/rpc`,
    httpVersion: '1.1',
    interceptors: [
      (next) => (req) => {
        req.header.set('x-service-key', key);
        return next(req);
      },
    ],
  });
  const pages: Client<typeof StatusPageService> = createClient(StatusPageService, transport);
  const monitors: Client<typeof MonitorService> = createClient(MonitorService, transport);
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; !killed(); n++) {
        const name = `c${cycle}-w${client}-${n}`;
        try {
          if (random() < 0.5) {
            const page = (await pages.createStatusPage({ slug: `d-${name}`, title: `Durability ${name}` })).statusPage!;
            ledger.pages.add(page.id);
          } else {
            const monitor = (
              await monitors.createTCPMonitor({
                monitor: { name: `durability ${name}`, uri: '127.0.0.1:9', periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
              })
            ).monitor!;
            ledger.monitors.add(monitor.id);
          }
        } catch (error) {
          if (!killed()) failures.push(`${name}: ${(error as Error).message}`);
          return;
        }
      }
    }),
  );
  return failures;
}

/** Ids in the ledger that the database does not have, and what integrity_check says. */
function verify(dataDir: string, ledger: Ledger): { missing: string[]; integrity: string } {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const ids = (table: string) => new Set((db.prepare(`SELECT id FROM ${table}`).all() as { id: number }[]).map((r) => String(r.id)));
    const pages = ids('status_pages');
    const monitors = ids('monitors');
    const missing = [
      ...[...ledger.pages].filter((id) => !pages.has(id)).map((id) => `status page ${id}`),
      ...[...ledger.monitors].filter((id) => !monitors.has(id)).map((id) => `monitor ${id}`),
    ];
    const integrity = (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    return { missing, integrity };
  } finally {
    db.close();
  }
}

/** Runs the cycles on a fresh data folder, which is removed afterwards. */
export async function runDurability(options: DurabilityOptions): Promise<DurabilityFigures> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build first`);
  // The same kill moments for the same seed.
  const random = seededRandom(options.seed);
  const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-durability-'));
  const logFile = join(dataDir, 'serve.log');
  const env: NodeJS.ProcessEnv = { ...process.env, STATUSDESK_CHECKS: 'off', STATUSDESK_RATE_LIMIT: '0', STATUSDESK_LOG_LEVEL: 'warn' };
  const start = async (): Promise<{ serve: Child; ms: number }> => {
    const t0 = performance.now();
    const serve = await spawnReady('statusdesk serve', [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0'], env, logFile, (ready) =>
      Number(new URL(String(ready.apiUrl)).port),
    );
    return { serve, ms: performance.now() - t0 };
  };
  const ledger: Ledger = { pages: new Set(), monitors: new Set() };
  const restartMs: number[] = [];
  const problems: string[] = [];
  let lost = 0;
  let corrupt = 0;
  let refused = 0;
  let serve: Child | undefined;
  try {
    // The first start makes the database; the key is issued by the owner's local tools, as a user would.
    serve = (await start()).serve;
    const key = await cli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'durability', '--data-dir', dataDir], env);
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const apiUrl = String(serve.ready.apiUrl);
      const before = ledger.pages.size + ledger.monitors.size;
      let dead = false;
      const writing = write(apiUrl, key, options.clients, cycle, ledger, random, () => dead);
      const killAfter = options.minWriteMs + random() * (options.maxWriteMs - options.minWriteMs);
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      const exited = new Promise((resolve) => serve!.child.once('exit', resolve));
      dead = true;
      serve.child.kill('SIGKILL');
      if ((await within(exited, KILL_TIMEOUT_MS)) === undefined)
        throw new Error(`cycle ${cycle}: the service did not exit ${KILL_TIMEOUT_MS} ms after SIGKILL`);
      const failures = await writing;
      refused += failures.length;
      if (failures.length) problems.push(`cycle ${cycle}: ${failures.length} write(s) failed before the kill, the first: ${failures[0]}`);

      const restarted = await start();
      serve = restarted.serve;
      restartMs.push(restarted.ms);
      const { missing, integrity } = verify(dataDir, ledger);
      lost += missing.length;
      if (missing.length)
        problems.push(`cycle ${cycle}: ${missing.length} acknowledged write(s) missing after the restart: ${missing.slice(0, 10).join(', ')}`);
      if (integrity !== 'ok') {
        corrupt++;
        problems.push(`cycle ${cycle}: integrity_check: ${integrity.slice(0, 500)}`);
      }
      options.progress?.(
        `cycle ${cycle}/${options.cycles}: killed after ${killAfter.toFixed(0)} ms, ${ledger.pages.size + ledger.monitors.size - before} writes acknowledged, ` +
          `restart to ready ${restarted.ms.toFixed(0)} ms, ${missing.length} lost, integrity ${integrity === 'ok' ? 'ok' : 'NOT ok'}`,
      );
    }
  } catch (error) {
    const tail = serve?.logTail();
    throw new Error(`${(error as Error).message}${tail ? `\n--- serve stderr (tail) ---\n${tail}` : ''}`);
  } finally {
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const sorted = [...restartMs].sort((a, b) => a - b);
  return {
    cycles: options.cycles,
    acknowledged: ledger.pages.size + ledger.monitors.size,
    lost,
    corrupt,
    refused,
    restartMs,
    restartP50: percentile(sorted, 0.5),
    restartP99: percentile(sorted, 0.99),
    problems,
  };
}
