import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, delimiter } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PING_LIMITS } from '../../contract/limits.ts';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { PingCheck, ProbeResult } from '../domain/monitors/check-results.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import { findCommand } from '../domain/monitors/types/mcp.ts';
import { ConnectionFailure, DNS_ERRORS, Deadline, emptyTiming, raceDeadline, since, withRetries } from './connection.ts';
import { failedProbe, probeResult } from './outcome.ts';
import { parsePingOutput, type PingStatistics } from './ping-output.ts';

/**
 * The ping check (docs/reference/monitors.md, Ping). Node cannot send ICMP without privileges, so
 * the check runs the system's `ping` (iputils or BusyBox on Linux, macOS's and the BSDs', Windows'),
 * as a program with arguments, never through a shell: the host is resolved here first, the
 * destination policy judges the address, and ping is given that address (an IP address, which no
 * program reads as an option) with numbers the rules bounded. Ping is ended when it runs past
 * what its packets may take, and at the check's deadline. Its output is read by ping-output.ts.
 *
 * A round whose every packet is lost, and a name that does not resolve, are tried again up to
 * Retry while the budget lasts; the Timeout bounds the whole check, retries included.
 */

/** ICMP has no ports: the destination policy judges a ping's address on port 0. */
const NO_PORT = 0;
/** What ping may take past its packets' own time (start, the last answer, the summary) before it is ended. */
const MARGIN_MS = 1_000;
/** After SIGINT (which makes ping print its summary), the moment it has before SIGKILL. */
const SUMMARY_GRACE_MS = 300;
/** The most of ping's output kept: a summary is a few hundred bytes, ten replies a kilobyte. */
const MAX_OUTPUT = 64 * 1024;
/** iputils' interval between packets: the least a user who is not root may ask for. */
const IPUTILS_INTERVAL_S = 0.2;
/** The interval of the pings that are not told one (BusyBox, macOS, the BSDs, Windows). */
const DEFAULT_INTERVAL_MS = 1_000;

/** Where the probe looks for ping when the service's PATH lacks it: the folders the packages install it to. */
const SYSTEM_FOLDERS = process.platform === 'win32' ? ['C:\\Windows\\System32'] : ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/** The folders searched for ping: the service's PATH, then the system's own folders. */
export const defaultPingPath = () => [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SYSTEM_FOLDERS].join(delimiter);

export const PING_MISSING =
  "the system's ping command was not found: install it (iputils-ping on Debian and Ubuntu, iputils on Fedora and Arch, busybox on Alpine); macOS and Windows have it";

export const PING_NOT_PERMITTED =
  'may not send ICMP here: give the ping program CAP_NET_RAW (setcap cap_net_raw+ep on it, or the capability to its container), or allow ping sockets with sysctl net.ipv4.ping_group_range';

// ---- the command line ---------------------------------------------------------------------------

/** How ping is called, which its maker decides: iputils and BusyBox on Linux, macOS and the BSDs, Windows. */
export type PingFlavor = 'iputils' | 'busybox' | 'bsd' | 'windows';

/** The flavor of ping a platform has; on Linux, BusyBox's when the program is BusyBox. */
export function flavorOf(platform: NodeJS.Platform, busybox: boolean): PingFlavor {
  if (platform === 'win32') return 'windows';
  if (platform === 'darwin' || platform === 'freebsd') return 'bsd';
  return busybox ? 'busybox' : 'iputils';
}

export interface PingInvocation {
  /** The program: `ping`, or `ping6` for IPv6 on macOS and the BSDs. */
  program: 'ping' | 'ping6';
  args: string[];
  /** How long ping takes at most when no packet is answered: it is ended past this and a margin. */
  expectedMs: number;
}

/** Refused before anything runs: what the rules already refuse, checked again where the command line is made. */
export class PingArgumentError extends Error {}

/**
 * The command line of one round: `count` echo requests to `address`, each waited for
 * `packetTimeoutMs`. Made of validated values only: `address` must be an IP address (what the
 * host resolved to), never a name or anything that could be read as an option, and the numbers
 * whole and within the rules' bounds; anything else throws PingArgumentError.
 */
export function pingArguments(flavor: PingFlavor, address: string, count: number, packetTimeoutMs: number): PingInvocation {
  const family = isIP(address);
  if (family === 0 || address.startsWith('-')) throw new PingArgumentError(`ping is given an IP address only, not ${JSON.stringify(address)}`);
  if (!Number.isInteger(count) || count < PING_LIMITS.count.min || count > PING_LIMITS.count.max) {
    throw new PingArgumentError(`the count must be a whole number from ${PING_LIMITS.count.min} to ${PING_LIMITS.count.max}, not ${count}`);
  }
  const { min, max } = PING_LIMITS.packetTimeoutMs;
  if (!Number.isInteger(packetTimeoutMs) || packetTimeoutMs < min || packetTimeoutMs > max) {
    throw new PingArgumentError(`the packet timeout must be whole milliseconds from ${min} to ${max}, not ${packetTimeoutMs}`);
  }
  // Linux's pings count the wait in whole seconds (BusyBox, and iputils before 2019).
  const seconds = Math.ceil(packetTimeoutMs / 1000);
  const v6 = family === 6;
  switch (flavor) {
    case 'iputils':
      // -n: no reverse lookup of each answer's address; -W: the wait for each answer, in seconds.
      return {
        program: 'ping',
        args: ['-n', '-c', String(count), '-i', String(IPUTILS_INTERVAL_S), '-W', String(seconds), ...(v6 ? ['-6'] : []), address],
        expectedMs: (count - 1) * IPUTILS_INTERVAL_S * 1000 + seconds * 1000,
      };
    case 'busybox':
      return {
        program: 'ping',
        args: ['-c', String(count), '-W', String(seconds), ...(v6 ? ['-6'] : []), address],
        expectedMs: (count - 1) * DEFAULT_INTERVAL_MS + seconds * 1000,
      };
    case 'bsd': {
      // macOS' and FreeBSD's -W is in milliseconds and -t bounds the whole run in seconds;
      // their ping6 (IPv6) knows neither, so only the process's own end bounds it.
      const expectedMs = (count - 1) * DEFAULT_INTERVAL_MS + packetTimeoutMs;
      return v6
        ? { program: 'ping6', args: ['-n', '-c', String(count), address], expectedMs }
        : {
            program: 'ping',
            args: ['-n', '-c', String(count), '-W', String(packetTimeoutMs), '-t', String(Math.ceil(expectedMs / 1000)), address],
            expectedMs,
          };
    }
    case 'windows':
      // -n is the count on Windows, -w the wait for each answer in milliseconds.
      return {
        program: 'ping',
        args: ['-n', String(count), '-w', String(packetTimeoutMs), v6 ? '-6' : '-4', address],
        expectedMs: count * packetTimeoutMs + (count - 1) * DEFAULT_INTERVAL_MS,
      };
  }
}

// ---- finding ping --------------------------------------------------------------------------------

interface FoundPing {
  file: string;
  busybox: boolean;
}

/** The programs found, by name and search path; a program that is not found is looked for again at the next check. */
const found = new Map<string, FoundPing>();

/** The file of `program` on `path` (folders separated as PATH separates them), and whether it is BusyBox; undefined when there is none. */
export function findPing(program: string, path: string): FoundPing | undefined {
  const key = `${program}\0${path}`;
  let ping = found.get(key);
  if (!ping) {
    const file = findCommand(program, { PATH: path, ...(process.env.PATHEXT ? { PATHEXT: process.env.PATHEXT } : {}) }, '');
    if (!file) return undefined;
    let target = file;
    try {
      target = realpathSync(file);
    } catch {
      // a link that cannot be read: its own name tells
    }
    found.set(key, (ping = { file, busybox: /^busybox/i.test(basename(target)) }));
  }
  return ping;
}

// ---- running it ----------------------------------------------------------------------------------

interface PingRun {
  /** stdout and stderr, as ping wrote them. */
  output: string;
  /** Why ping was ended before it exited: it ran past its time, or the check's deadline came. */
  ended?: 'overran' | 'deadline';
  /** ping could not be started. */
  error?: NodeJS.ErrnoException;
}

/**
 * The environment ping runs with: English and a decimal dot (LC_ALL=C), and nothing of the
 * service's (its settings may hold secrets); on Windows the SYSTEMROOT its libraries need.
 */
function pingEnvironment(): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', LANG: 'C' };
  if (process.platform === 'win32' && process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

/**
 * Runs ping and gathers its output until it exits. Past `boundMs` it gets SIGINT, on which it
 * prints its summary, and SIGKILL a moment later; at the deadline (or the service stopping),
 * SIGKILL at once.
 */
function runPing(file: string, args: string[], boundMs: number, deadline: Deadline): Promise<PingRun> {
  return new Promise((resolve) => {
    // The budget was spent before (on the lookup, on earlier rounds): nothing is started.
    if (deadline.expired) return resolve({ output: '', ended: 'deadline' });
    let output = '';
    let ended: PingRun['ended'];
    let settled = false;
    let forceTimer: NodeJS.Timeout | undefined;
    const child = spawn(file, args, { env: pingEnvironment(), stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const keep = (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const end = (why: NonNullable<PingRun['ended']>) => {
      if (settled || (ended && why !== 'deadline')) return;
      ended = why;
      // Windows has no SIGINT to send: the process is ended at once there.
      if (why === 'overran' && process.platform !== 'win32') {
        child.kill('SIGINT');
        forceTimer = setTimeout(() => child.kill('SIGKILL'), SUMMARY_GRACE_MS);
      } else {
        child.kill('SIGKILL');
      }
    };
    const overrun = setTimeout(end, boundMs, 'overran');
    deadline.onEnd(() => end('deadline'));
    const finish = (run: PingRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(overrun);
      clearTimeout(forceTimer);
      deadline.onEnd(undefined);
      resolve(run);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      // Not started (ENOENT, EACCES); an error after the start is seen through the exit.
      if (child.pid === undefined) finish({ output, error });
    });
    child.once('close', () => finish({ output, ended }));
  });
}

// ---- the check -----------------------------------------------------------------------------------

export type PingProbeConfig = Pick<ConfigOf<'ping'>, 'host' | 'count' | 'packetTimeout' | 'degradedLoss' | 'timeout' | 'degraded' | 'retry'>;

export interface PingProbeOptions {
  stop?: AbortSignal;
  destinations?: DestinationPolicy;
  /**
   * Where ping is looked for, folders separated as in PATH; absent: the service's PATH, then the
   * system's folders (defaultPingPath).
   */
  path?: string;
  /** The platform whose ping and flags are used; absent: this one. */
  platform?: NodeJS.Platform;
}

/**
 * Where ping is looked for by checks that are not told (PingProbeOptions.path): set by a test
 * that runs the whole service with a ping of its own; undefined, the default (defaultPingPath).
 */
let searchPath: string | undefined;

/** Looks for ping in `path` (folders separated as in PATH) from now on; undefined: the default again. */
export function usePingSearchPath(path: string | undefined): void {
  searchPath = path;
}

/** Not worth another round: ping is missing, may not send, or said what cannot change. */
class PingFailure extends Error {}

/** The address to ping: the host itself when it is one, else what it resolves to; judged by the policy either way. */
async function addressOf(host: string, deadline: Deadline, timing: ProbeResult['timing'], destinations: DestinationPolicy | undefined): Promise<string> {
  let address = host;
  if (isIP(host) === 0) {
    const byName = destinations?.refusalOfName(host, NO_PORT);
    if (byName) throw new ConnectionFailure('policy', byName);
    const start = performance.now();
    try {
      address = (await raceDeadline(lookup(host), deadline)).address;
    } catch (error) {
      if (deadline.expired) throw deadline.timedOut();
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new ConnectionFailure('dns', `DNS lookup failed: ${DNS_ERRORS[code] ?? code} (${host})`);
    }
    timing.dns = since(start);
  }
  // The address pinged is the one judged: a name that resolves to a refused address is refused.
  const refused = destinations?.refusal(address, NO_PORT, host);
  if (refused) throw new ConnectionFailure('policy', refused);
  return address;
}

const shown = (host: string, address: string) => (host === address ? address : `${host} (${address})`);

export async function probePing(monitor: PingProbeConfig, options: PingProbeOptions = {}): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const timing = emptyTiming();
  const platform = options.platform ?? process.platform;
  const path = options.path ?? searchPath ?? defaultPingPath();
  let attempts = 0;
  // The record of the last round that ran ping, kept with a failure too (every packet lost).
  let lastRecord = null as PingCheck | null;
  try {
    const { statistics, address, record } = await withRetries(monitor.retry, deadline, async () => {
      attempts++;
      lastRecord = null;
      const address = await addressOf(monitor.host, deadline, timing, options.destinations);
      const v6 = isIP(address) === 6;
      const program = v6 && flavorOf(platform, false) === 'bsd' ? 'ping6' : 'ping';
      const ping = findPing(program, path);
      if (!ping) throw new PingFailure(PING_MISSING);
      const invocation = pingArguments(flavorOf(platform, ping.busybox), address, monitor.count, monitor.packetTimeout);
      const run = await runPing(ping.file, invocation.args, invocation.expectedMs + MARGIN_MS, deadline);
      if (run.error) {
        if (run.error.code === 'ENOENT') {
          found.clear(); // removed since it was found: looked for again next time
          throw new PingFailure(PING_MISSING);
        }
        throw new PingFailure(`could not run ${ping.file}: ${run.error.code ?? run.error.message}`);
      }
      if (run.ended === 'deadline') throw deadline.timedOut();
      const read = parsePingOutput(run.output, monitor.count);
      switch (read.kind) {
        case 'unknown-host':
          throw new ConnectionFailure('dns', `DNS lookup failed: no such host (${monitor.host})`);
        case 'not-permitted':
          throw new PingFailure(`${ping.file} ${PING_NOT_PERMITTED} (${read.line})`);
        case 'unreadable':
          throw new PingFailure(
            read.line ? `ping failed: ${read.line}` : `ping ended without a word (${run.ended === 'overran' ? 'it overran its time' : 'no output'})`,
          );
      }
      const record = (lastRecord = pingRecord(address, read.statistics));
      if (read.statistics.received === 0) {
        throw new ConnectionFailure('unreachable', `no answer from ${shown(monitor.host, address)}: all ${read.statistics.transmitted} packets lost`);
      }
      return { statistics: read.statistics, address, record };
    });
    timing.total = deadline.elapsed();
    return outcome(monitor, address, statistics, timing, attempts, record);
  } catch (error) {
    if (error instanceof PingArgumentError) return withRecord(failedProbe(deadline, timing, attempts, error.message), null);
    if (!(error instanceof ConnectionFailure) && !(error instanceof PingFailure)) throw error;
    return withRecord(failedProbe(deadline, timing, attempts, error.message), lastRecord);
  } finally {
    deadline.clear();
  }
}

function pingRecord(address: string, s: PingStatistics): PingCheck {
  return {
    address,
    transmitted: s.transmitted,
    received: s.received,
    lossPercent: s.lossPercent,
    rttMinMs: s.rttMinMs,
    rttAvgMs: s.rttAvgMs,
    rttMaxMs: s.rttMaxMs,
  };
}

const withRecord = (result: ProbeResult, ping: PingCheck | null): ProbeResult => {
  result.ping = ping;
  return result;
};

const ms = (value: number) => `${value} ms`;

/** Up, or degraded by the average round trip (`degraded`) or by the loss (`degradedLoss`), of a round that got answers. */
function outcome(
  monitor: PingProbeConfig,
  address: string,
  s: PingStatistics,
  timing: ProbeResult['timing'],
  attempts: number,
  record: PingCheck,
): ProbeResult {
  // A summary without times (a ping ended early, before it printed them) counts as 0: the packets were answered.
  const latency = s.rttAvgMs ?? 0;
  const answered = `${s.received} of ${s.transmitted} packets answered by ${shown(monitor.host, address)}`;
  const times = s.rttAvgMs === null ? '' : `, round trip ${ms(s.rttAvgMs)} on average (min ${ms(s.rttMinMs!)}, max ${ms(s.rttMaxMs!)})`;
  const lost = s.transmitted - s.received;
  let result: ProbeResult;
  if (s.lossPercent > monitor.degradedLoss) {
    result = probeResult(
      'degraded',
      latency,
      timing,
      attempts,
      `${lost} of ${s.transmitted} packets lost (${s.lossPercent} %), above the degraded threshold of ${monitor.degradedLoss} % loss${times}`,
    );
  } else if (monitor.degraded !== null && latency > monitor.degraded) {
    result = probeResult(
      'degraded',
      latency,
      timing,
      attempts,
      `round trip ${ms(latency)} on average, slower than the degraded threshold of ${ms(monitor.degraded)} (${s.received} of ${s.transmitted} packets answered)`,
    );
  } else {
    result = probeResult('up', latency, timing, attempts, `${answered}${times}`);
  }
  return withRecord(result, record);
}
