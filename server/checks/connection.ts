import { lookup } from 'node:dns/promises';
import type { EventEmitter } from 'node:events';
import { isIP, type Socket, connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { CertificateCheck, Timing } from '../domain/monitors/check-results.ts';
import { certificateRecord } from './certificate-record.ts';

/** node:tls, loaded with the first check that needs it rather than with the service. */
const nodeTls = () => process.getBuiltinModule('node:tls');

/**
 * Opening a connection to a target phase by phase (DNS, TCP, TLS), timing each phase, within the
 * check's budget, with retries of failed attempts. Every probe connects through here, so every
 * probe times and names failures the same way.
 */

export interface Target {
  /** Hostname or IP address, without brackets. */
  host: string;
  port: number;
  /** `host:port` as configured (IPv6 in brackets): the HTTP/2 `:authority`. */
  authority: string;
}

/** A validated `host:port` (see hostPortProblem) as its parts. */
export function parseTarget(uri: string): Target {
  const match = /^\[(.+)\]:(\d+)$/.exec(uri) ?? /^([^:]+):(\d+)$/.exec(uri);
  if (!match) throw new Error(`not a host:port target: ${uri}`);
  return { host: match[1]!, port: Number(match[2]), authority: uri };
}

/** `policy`: the destination policy refused the address (domain/destinations.ts); nothing was connected. */
export type FailureKind = 'dns' | 'refused' | 'unreachable' | 'reset' | 'timeout' | 'tls' | 'certificate' | 'protocol' | 'policy';

/** The connection could not be made: retried up to the monitor's Retry, then reported. */
export class ConnectionFailure extends Error {
  readonly kind: FailureKind;

  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * The deadlines alive under each stop signal: one listener per signal ends them all, where a
 * listener per check would cost an add and a search of the signal's listeners on every check.
 */
const aliveUnder = new WeakMap<AbortSignal, Set<Deadline>>();

function deadlinesUnder(stop: AbortSignal): Set<Deadline> {
  let alive = aliveUnder.get(stop);
  if (!alive) {
    const deadlines = (alive = new Set());
    aliveUnder.set(stop, deadlines);
    stop.addEventListener('abort', () => deadlines.forEach((deadline) => deadline.end()), { once: true });
  }
  return alive;
}

/**
 * The whole budget of one check: every phase and every retry spend from it. `stop` (the engine
 * closing) ends it early too, so nothing of a check outlives the service. A check waits for one
 * thing at a time (see until), so a deadline tells one waiter when it ends: no AbortController,
 * no event listeners, on the path every check takes.
 */
export class Deadline {
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #alive: Set<Deadline> | undefined;
  #expired = false;
  #waiter: (() => void) | undefined;
  readonly started = performance.now();
  readonly ms: number;

  constructor(ms: number, stop?: AbortSignal) {
    this.ms = ms;
    // Made after the engine stopped: ended from the start, with no timer to wait for.
    this.#expired = stop?.aborted === true;
    this.#timer = this.#expired ? undefined : setTimeout(endDeadline, ms, this);
    if (stop && !this.#expired) (this.#alive = deadlinesUnder(stop)).add(this);
  }

  /** Ends the budget now: the wait in progress gives up. */
  end(): void {
    if (this.#expired) return;
    this.#expired = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  /** Calls `waiter` when the budget ends, in place of the previous one; undefined: no one waits any more. */
  onEnd(waiter: (() => void) | undefined): void {
    this.#waiter = waiter;
  }

  get expired(): boolean {
    return this.#expired;
  }

  elapsed(): number {
    return round(performance.now() - this.started);
  }

  remaining(): number {
    return Math.max(0, this.ms - (performance.now() - this.started));
  }

  timedOut(): ConnectionFailure {
    return new ConnectionFailure('timeout', `timed out after ${this.ms} ms`);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#alive?.delete(this);
    this.#waiter = undefined;
  }
}

const endDeadline = (deadline: Deadline) => deadline.end();

/** Milliseconds with microsecond precision: enough for loopback, short in JSON. */
export const round = (ms: number) => Math.round(ms * 1000) / 1000;

export const since = (start: number) => round(performance.now() - start);

export function emptyTiming(): Timing {
  return { dns: null, connect: null, tls: null, ttfb: null, transfer: null, total: null };
}

/**
 * Resolves when `emitter` emits `event`; rejects when it emits `error` or `close` first, or when
 * `deadline` ends (with its timeout failure). Listeners are removed either way.
 */
export function until<T = unknown>(emitter: EventEmitter, event: string, deadline: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (deadline.expired) return reject(deadline.timedOut());
    const done = () => {
      emitter.off(event, onEvent).off('error', onError).off('close', onClose);
      deadline.onEnd(undefined);
    };
    const onEvent = (value: T) => {
      done();
      resolve(value);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(Object.assign(new Error('connection closed'), { code: 'ECONNRESET' }));
    };
    emitter.on(event, onEvent).on('error', onError).on('close', onClose);
    deadline.onEnd(() => {
      done();
      reject(deadline.timedOut());
    });
  });
}

/** `promise`, or the deadline's timeout failure if the deadline ends first. */
export function raceDeadline<T>(promise: Promise<T>, deadline: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (deadline.expired) return reject(deadline.timedOut());
    deadline.onEnd(() => reject(deadline.timedOut()));
    promise.then(
      (value) => {
        deadline.onEnd(undefined);
        resolve(value);
      },
      (error: unknown) => {
        deadline.onEnd(undefined);
        reject(error);
      },
    );
  });
}

const SOCKET_ERRORS: Record<string, [FailureKind, string]> = {
  ECONNREFUSED: ['refused', 'connection refused'],
  ECONNRESET: ['reset', 'connection reset by the server'],
  EPIPE: ['reset', 'connection reset by the server'],
  EHOSTUNREACH: ['unreachable', 'host unreachable'],
  ENETUNREACH: ['unreachable', 'network unreachable'],
  EADDRNOTAVAIL: ['unreachable', 'address not available'],
  ETIMEDOUT: ['timeout', 'connection timed out'],
};

function socketFailure(error: unknown, deadline: Deadline): ConnectionFailure {
  if (deadline.expired) return deadline.timedOut();
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const [kind, message] = SOCKET_ERRORS[code] ?? ['unreachable', `connection failed: ${code || (error as Error).message}`];
  return new ConnectionFailure(kind, message);
}

/** A failed lookup's code in words (`ENOTFOUND`: no such host). */
export const DNS_ERRORS: Record<string, string> = {
  ENOTFOUND: 'no such host',
  ENODATA: 'no address for the host',
  EAI_AGAIN: 'the resolver did not answer',
  ESERVFAIL: 'the resolver failed',
};

export interface TlsSettings {
  /** Verify the certificate against `trust`; false accepts any certificate. */
  verify: boolean;
  /** ALPN protocols offered, e.g. ['h2']. */
  alpn: string[];
  trust: SecureContext;
  /** The name sent in SNI and verified; absent: the host, and no SNI for an IP address (whose address is verified). */
  servername?: string;
  /**
   * Receives the server's certificate as a check records it, once per handshake, before it is
   * verified: a certificate that fails is recorded too.
   */
  onCertificate?: (certificate: CertificateCheck) => void;
}

/**
 * The trust store for verified TLS: Node's bundled roots with NODE_EXTRA_CA_CERTS, the operating
 * system's store (internal CAs usually live there), and `extra` PEM certificates.
 */
export function trustStore(extra: string[] = []): SecureContext {
  const certificates = new Set([...nodeTls().getCACertificates('default'), ...systemCertificates(), ...extra]);
  return nodeTls().createSecureContext({ ca: [...certificates] });
}

function systemCertificates(): string[] {
  try {
    return nodeTls().getCACertificates('system');
  } catch {
    return []; // no readable system store: the bundled roots still apply
  }
}

/**
 * One connection attempt: resolves the host (a literal IP has no DNS phase), asks `destinations`
 * whether the address may be connected to, connects, and with `tls` performs the handshake and
 * verifies the certificate. Each phase's duration lands in `timing` as it completes, so a failure
 * keeps the phases that did happen. `writes: false` is for a check that only connects and closes:
 * Nagle's algorithm only matters to a connection that sends, so it skips turning it off (noDelay,
 * a system call per connection).
 */
export async function openConnection(
  target: Target,
  deadline: Deadline,
  timing: Timing,
  tls: TlsSettings | undefined,
  destinations: DestinationPolicy | undefined,
  { writes = true } = {},
): Promise<Socket | TLSSocket> {
  timing.dns = timing.connect = timing.tls = null;
  let address = target.host;
  if (isIP(target.host) === 0) {
    // A metadata service's name is refused without a lookup, which elsewhere would only fail.
    const byName = destinations?.refusalOfName(target.host, target.port);
    if (byName) throw new ConnectionFailure('policy', byName);
    const start = performance.now();
    try {
      address = (await raceDeadline(lookup(target.host), deadline)).address;
    } catch (error) {
      if (deadline.expired) throw deadline.timedOut();
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new ConnectionFailure('dns', `DNS lookup failed: ${DNS_ERRORS[code] ?? code} (${target.host})`);
    }
    timing.dns = since(start);
  }
  // The address connected to is the one judged: a name that resolves to a refused address
  // (DNS rebinding included) is refused like the address itself.
  const refused = destinations?.refusal(address, target.port, target.host);
  if (refused) throw new ConnectionFailure('policy', refused);

  const start = performance.now();
  const socket = netConnect({ host: address, port: target.port, noDelay: writes });
  try {
    await until(socket, 'connect', deadline);
  } catch (error) {
    socket.destroy();
    throw socketFailure(error, deadline);
  }
  timing.connect = since(start);
  if (!tls) return socket;

  const handshake = performance.now();
  const secure = nodeTls().connect({
    socket,
    servername: tls.servername ?? (isIP(target.host) === 0 ? target.host : undefined),
    ALPNProtocols: tls.alpn,
    secureContext: tls.trust,
    // Verified below, so that a bad certificate is told apart from a failed handshake.
    rejectUnauthorized: false,
  });
  try {
    await until(secure, 'secureConnect', deadline);
  } catch (error) {
    secure.destroy();
    if (deadline.expired) throw deadline.timedOut();
    const reason = (error as { reason?: string }).reason ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConnectionFailure('tls', `TLS handshake failed: ${reason}`);
  }
  timing.tls = since(handshake);
  if (!tls.verify && !tls.onCertificate) return secure;
  // Read once per connection, for the record and the verification both.
  const peer = secure.getPeerCertificate();
  const name = tls.servername ?? target.host;
  let trusted: boolean | undefined;
  if (tls.onCertificate && peer.valid_to) {
    const record = certificateRecord(secure, peer, name, Date.now());
    tls.onCertificate(record);
    trusted = record.verified && record.nameMatches;
  }
  // The failure's message says only that it failed; what the certificate is, the record says.
  if (tls.verify && !(trusted ?? (secure.authorized && nodeTls().checkServerIdentity(name, peer) === undefined))) {
    secure.destroy();
    throw new ConnectionFailure('certificate', 'certificate verification failed');
  }
  return secure;
}

/** Failures another attempt cannot change: the budget is spent, the certificate is wrong, the destination is refused. */
const DEFINITIVE = new Set<FailureKind>(['timeout', 'certificate', 'policy']);

/**
 * Runs `attempt` until it succeeds, up to `retry` more times after a ConnectionFailure, while the
 * budget lasts. Waits 100 ms, 200 ms, 400 ms ... (at most 1 s) between attempts. Any other error
 * means the target answered, and is never retried.
 */
export async function withRetries<T>(retry: number, deadline: Deadline, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof ConnectionFailure) || DEFINITIVE.has(error.kind) || n > retry) throw error;
      const pause = Math.min(100 * 2 ** (n - 1), 1000);
      if (deadline.remaining() <= pause) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
