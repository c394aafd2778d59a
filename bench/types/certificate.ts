/**
 * The certificate row of bench:checks' `types` part: 2,000 certificate monitors at 1 m (a quick
 * run: 200 at 30 s, one period) against four loopback TLS servers (127.0.0.1, monitors spread over
 * them), whose ECDSA certificate a CA made for the run signs, checked by one engine in a process of
 * its own (started as the service is, from this file bundled as the service ships, the CA given to
 * it in NODE_EXTRA_CA_CERTS as an owner would), on a real SQLite data folder seeded through the
 * monitor service. Each check connects, makes the TLS handshake, records the certificate, judges
 * it and closes: every check is up.
 *
 * Baseline, in the same run and at the engine's rate: bare `tls.connect` doing the same handshake
 * against the same servers, verifying the chain against a trust store of the same size and the
 * name, then `getPeerCertificate()` and close, in its own process from the same bundle, half a
 * period's worth before the engine and half after (drift on a busy machine falls on both). The
 * servers run in a third process, so their CPU is never counted.
 *
 *   node bench/types/certificate.ts [--quick]     prints the row (BENCH_QUICK=1 also makes it quick)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect as tlsConnect, createSecureContext, createServer as createTlsServer, getCACertificates, type SecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
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
const SERVERS = 4;
/** Past the last whole period: the slots of its last seconds may still be in flight at the end. */
const RUN_MARGIN_MS = 6_000;
/** Far above any loopback handshake. */
const TIMEOUT_MS = 10_000;
const CHILD_START_TIMEOUT_MS = 30_000;
/** The baseline's checks in flight at most: past it a slot is skipped (and counted). */
const DAY_MS = 86_400_000;

const line = (text: string) => process.stderr.write(`${text}\n`);

interface Pems {
  ca: string;
  key: string;
  cert: string;
}

/** A CA for the run and a server certificate it signs for 127.0.0.1, valid 90 more days. */
async function makeCertificates(): Promise<Pems> {
  const now = Date.now();
  const ca = await generate([{ name: 'commonName', value: 'Statusdesk Bench CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 365 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'bench.statusdesk.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 90 * DAY_MS),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { ca: ca.cert, key: leaf.private, cert: leaf.cert };
}

// ---- the TLS servers' process ----------------------------------------------------------------------

interface TargetsReady {
  type: 'ready';
  uris: string[];
}

async function targetsMain(pems: Pems): Promise<void> {
  const uris: string[] = [];
  const servers = [];
  for (let i = 0; i < SERVERS; i++) {
    // A server as a web server is: it completes the handshake and lets the client close.
    const server = createTlsServer({ key: pems.key, cert: pems.cert }, (socket) => {
      socket.on('error', () => {});
      socket.resume();
    });
    server.on('tlsClientError', () => {});
    await new Promise<void>((done) => server.listen({ host: '127.0.0.1', port: 0, backlog: 1024 }, done));
    const address = server.address() as { port: number };
    uris.push(`127.0.0.1:${address.port}`);
    servers.push(server);
  }
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') process.exit(0);
  });
  process.send!({ type: 'ready', uris } satisfies TargetsReady);
}

async function startTargets(pems: Pems): Promise<{ uris: string[]; stop(): Promise<void> }> {
  const { child, exited } = forkScript(SELF, 'targets');
  const stop = () => endChild(child, exited, () => child.send({ type: 'stop' }));
  try {
    const ready = nextMessage(child, 'TLS servers start', CHILD_START_TIMEOUT_MS, (m): m is TargetsReady => (m as TargetsReady)?.type === 'ready');
    child.send(pems);
    return { uris: (await ready).uris, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- the baseline: bare tls.connect and getPeerCertificate -------------------------------------------

interface BaselineInput {
  uris: string[];
  ca: string;
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

/** One check with Node's own API: the handshake, the chain and the name verified, the certificate read, the socket closed. */
function bareCheck(uri: string, trust: SecureContext): Promise<string | null> {
  const [host, port] = uri.split(':') as [string, string];
  return new Promise((done) => {
    const socket = tlsConnect({ host, port: Number(port), secureContext: trust, ALPNProtocols: ['h2', 'http/1.1'], rejectUnauthorized: true });
    const timer = setTimeout(() => socket.destroy(new Error('timed out')), TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const peer = socket.getPeerCertificate();
      socket.destroy();
      done(peer.valid_to ? null : 'no certificate');
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      done(error.message);
    });
  });
}

async function baselineMain(input: BaselineInput): Promise<void> {
  // A trust store of the size the engine's has (Node's and the system's roots), with the run's CA.
  const trust = createSecureContext({ ca: [...new Set([...getCACertificates('default'), ...safeSystem(), input.ca])] });
  for (let i = 0; i < 20; i++) await bareCheck(input.uris[i % input.uris.length]!, trust); // warm-up, not measured
  const figures = await pacedChecks(input.perSecond, input.durationMs, (i) => bareCheck(input.uris[i % input.uris.length]!, trust));
  process.send!({ type: 'baseline', ...figures } satisfies BaselineReport, () => process.exit(0));
}

function safeSystem(): string[] {
  try {
    return getCACertificates('system');
  } catch {
    return [];
  }
}

// ---- the row -------------------------------------------------------------------------------------

/** Monitors created through the monitor service, as the CLI or the UI creates them, spread over the servers. */
async function seed(dataDir: string, uris: string[], count: number, period: string): Promise<void> {
  const db = await openDatabase(dataDir);
  try {
    const userId = await ensureOwner(db);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The default engine of createServices does not schedule: creating monitors checks nothing.
    const services = createServices(db);
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    for (let i = 0; i < count; i++) {
      await services.monitors.create(actor, workspaceId, 'certificate', {
        name: `bench certificate ${i}`,
        uri: uris[i % uris.length],
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
    bundle = await bundleForService(SELF, 'bench-certificate', ['better-sqlite3']);
    const pems = await makeCertificates();
    targets = await startTargets(pems);
    const dataDir = await mkdtemp(join(tmpdir(), 'statusdesk-bench-certificate-'));
    tempDirs.push(dataDir);
    const caFile = join(dataDir, 'bench-ca.pem');
    await writeFile(caFile, pems.ca);
    await seed(dataDir, targets.uris, size.monitors, size.period.name);
    const durationMs = size.periods * size.period.ms + RUN_MARGIN_MS;
    const perSecond = (size.monitors * 1000) / size.period.ms;
    const baselineInput: BaselineInput = { uris: targets.uris, ca: pems.ca, perSecond, durationMs: size.period.ms / 2 };
    const isBaseline = (m: unknown): m is BaselineReport => (m as BaselineReport)?.type === 'baseline';
    line(
      `   certificate: baseline (bare tls.connect + getPeerCertificate), first half: ${baselineInput.durationMs / 1000} s at ${perSecond.toFixed(1)} checks/s`,
    );
    const before = await runChild(bundle, 'baseline', baselineInput, 'baseline run', baselineInput.durationMs + 60_000, isBaseline);
    line(`   certificate: engine, ${size.monitors} monitors at ${size.period.name} for ${durationMs / 1000} s`);
    const report = await runChild(
      bundle,
      'engine',
      { dataDir, durationMs } satisfies EngineInput,
      'engine run',
      durationMs + 180_000,
      (m): m is EngineReport => (m as EngineReport)?.type === 'report',
      { NODE_EXTRA_CA_CERTS: caFile },
    );
    line('   certificate: baseline, second half');
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
      type: 'certificate',
      scale: `${size.monitors.toLocaleString('en')} monitors at ${size.period.name}${options.quick ? ', one period' : ''}`,
      cpuPerCheckUs: engineUs,
      lagP99Ms: report.lagP99 ?? Number.NaN,
      baseline: { name: 'bare tls.connect + getPeerCertificate', cpuPerCheckUs: baselineUs },
      notes: notes.join('; '),
    };
  } finally {
    await targets?.stop().catch((error: Error) => line(`certificate bench: stopping the servers: ${error.message}`));
    if (bundle) await rm(bundle, { force: true });
    for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
  }
}

// ---- run alone, or as a child of itself ----------------------------------------------------------

const role = process.argv.includes('--role') ? process.argv[process.argv.indexOf('--role') + 1] : undefined;
const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;
if (isEntry && role === 'targets') {
  process.on('disconnect', () => process.exit(0));
  const pems = await new Promise<Pems>((done) => process.once('message', (m) => done(m as Pems)));
  await targetsMain(pems);
} else if (isEntry && (role === 'engine' || role === 'baseline')) {
  process.on('disconnect', () => process.exit(1));
  const input = await new Promise<unknown>((done) => process.once('message', done));
  if (role === 'engine') await engineMain(input as EngineInput);
  else await baselineMain(input as BaselineInput);
} else if (isEntry) {
  const quick = process.argv.includes('--quick') || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  // Not awaited here: typeRows imports this very module, which must have finished evaluating first.
  void typeRows(['certificate'], quick, line).then(
    ({ text }) => process.stdout.write(`${text.join('\n')}\n`),
    (error: unknown) => {
      process.stderr.write(`bench certificate: ${String((error as Error)?.stack ?? error)}\n`);
      process.exitCode = 1;
    },
  );
}
