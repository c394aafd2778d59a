/**
 * The load generator of every benchmark, in two shapes with the same figures: `closedLoop`, a
 * fixed number of loops each awaiting one call at a time (any client: Connect, a probe), and
 * `httpLoad`, keep-alive HTTP/1.1 connections on node:net with one request in flight on each,
 * the answer read by a small parser (content-length or chunked) that counts the body rather than
 * copying it. The raw client costs far less per request than node:http's or fetch, so a machine
 * with few CPUs measures the servers rather than the client. `httpCall` is the one plain request
 * the benchmarks make to check an answer before measuring.
 */
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { median, percentile, processCpuSeconds } from './figures.ts';

/** The figures of one round of load, whatever its requests. */
export interface LoadFigures {
  requests: number;
  /** Failed calls: answers that were not 200, broken connections, a call's own verdict. */
  errors: number;
  firstError: string;
  /** Each reason for failing and how often it happened, in the order first seen. */
  failures: Map<string, number>;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Busy share of this process's main thread (the client) during the round. */
  clientBusy: number;
  /** CPU of the server process as a share of one CPU; NaN when unknown. */
  serverCpu: number;
  /** Server CPU time per request, microseconds. */
  serverUsPerRequest: number;
}

/** Latencies and failures of one round, read into LoadFigures at its end. */
function startRound(serverPid: number | undefined) {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const elu = performance.eventLoopUtilization();
  const cpuBefore = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const started = performance.now();
  return {
    latencies,
    fail(reason: string) {
      failures.set(reason, (failures.get(reason) ?? 0) + 1);
    },
    figures(): LoadFigures {
      const elapsed = performance.now() - started;
      const cpuAfter = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
      const serverCpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : cpuAfter - cpuBefore;
      const sorted = Float64Array.from(latencies).sort();
      return {
        requests: latencies.length,
        errors: [...failures.values()].reduce((sum, n) => sum + n, 0),
        firstError: failures.keys().next().value ?? '',
        failures,
        rps: latencies.length / (elapsed / 1000),
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
        clientBusy: performance.eventLoopUtilization(elu).utilization,
        serverCpu: serverCpuSeconds / (elapsed / 1000),
        serverUsPerRequest: (serverCpuSeconds * 1e6) / latencies.length,
      };
    },
  };
}

/**
 * `concurrency` loops, each awaiting one `call` at a time, until `durationMs` have passed; calls
 * in flight at the deadline finish and are counted. A call resolves with null when it succeeded,
 * or with what went wrong. `serverPid`, when known, is the process whose CPU time is read.
 */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  call: (slot: number) => Promise<string | null>,
  serverPid?: number,
): Promise<LoadFigures> {
  const round = startRound(serverPid);
  const until = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, slot) => {
      while (performance.now() < until) {
        const sentAt = performance.now();
        const problem = await call(slot);
        round.latencies.push(performance.now() - sentAt);
        if (problem !== null) round.fail(problem);
      }
    }),
  );
  return round.figures();
}

export interface HttpLoadFigures extends LoadFigures {
  /** The smallest and largest body of the round, in bytes as sent (after any content-encoding). */
  minBytes: number;
  maxBytes: number;
}

export interface HttpLoadOptions {
  port: number;
  connections: number;
  durationMs: number;
  /** The process whose CPU time is read before and after, when known. */
  serverPid?: number;
  /** The request bytes each connection sends next (see `requestBytes`); built after the clock starts. */
  request(lane: number): Buffer;
  /**
   * Sees the body of every 200 (kept only when this is given), for requests that depend on the
   * last answer; a non-200 then ends the lane, as it breaks that chain.
   */
  answered?(lane: number, body: string): void;
}

const CRLF = Buffer.from('\r\n');
const CRLF2 = Buffer.from('\r\n\r\n');
// Response parser states.
const HEAD = 0;
const FIXED = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILER = 5;

/**
 * `connections` keep-alive HTTP/1.1 connections to 127.0.0.1:`port`, each with one request in
 * flight at a time, until `durationMs` have passed; requests in flight at the deadline finish and
 * are counted. Latency is from writing the request to the last byte of the body. Every answer
 * must be a 200. A connection the server closes (or says it will) is replaced while there is time.
 */
export async function httpLoad(options: HttpLoadOptions): Promise<HttpLoadFigures> {
  const { port, durationMs, answered } = options;
  const round = startRound(options.serverPid);
  const until = performance.now() + durationMs;
  let minBytes = Number.POSITIVE_INFINITY;
  let maxBytes = 0;

  const lane = (index: number) =>
    new Promise<void>((resolve) => {
      let socket: net.Socket;
      let sentAt = 0;
      let busy = false;
      let finished = false;
      // The answer being read.
      let state = HEAD;
      let pending: Buffer | null = null;
      let status = 0;
      let remaining = 0;
      let bodyBytes = 0;
      let closeAfter = false;
      let body: Buffer[] = [];

      const finish = () => {
        if (finished) return;
        finished = true;
        socket.destroy();
        resolve();
      };
      const send = () => {
        if (performance.now() >= until) return finish();
        state = HEAD;
        pending = null;
        bodyBytes = 0;
        body = [];
        busy = true;
        sentAt = performance.now();
        socket.write(options.request(index));
      };
      const fail = (reason: string) => round.fail(reason);
      const complete = () => {
        round.latencies.push(performance.now() - sentAt);
        busy = false;
        if (bodyBytes < minBytes) minBytes = bodyBytes;
        if (bodyBytes > maxBytes) maxBytes = bodyBytes;
        const text = answered ? Buffer.concat(body).toString('utf8') : '';
        if (status !== 200) {
          fail(answered ? `status ${status}: ${text.slice(0, 200)}` : `status ${status}, ${bodyBytes} bytes`);
          if (answered) return finish();
        } else if (answered) {
          answered(index, text);
        }
        // The server said it closes the connection: a new one is opened when this one has.
        if (closeAfter) socket.end();
        else send();
      };
      const take = (data: Buffer, i: number, inBody: boolean) => {
        const n = Math.min(remaining, data.length - i);
        remaining -= n;
        if (inBody) {
          bodyBytes += n;
          if (answered) body.push(data.subarray(i, i + n));
        }
        return i + n;
      };
      const read = (chunk: Buffer) => {
        let data = chunk;
        if (pending) {
          data = Buffer.concat([pending, chunk]);
          pending = null;
        }
        let i = 0;
        while (i < data.length && busy) {
          switch (state) {
            case HEAD: {
              const end = data.indexOf(CRLF2, i);
              if (end === -1) {
                pending = Buffer.from(data.subarray(i));
                return;
              }
              const head = data.toString('latin1', i, end);
              i = end + 4;
              status = Number(head.slice(9, 12));
              closeAfter = /\r\nconnection:\s*close/i.test(head);
              if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
                state = CHUNK_SIZE;
              } else {
                const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
                if (!length) {
                  fail(`status ${status} with neither content-length nor chunked`);
                  busy = false;
                  socket.destroy();
                  return;
                }
                remaining = Number(length[1]);
                state = FIXED;
                if (remaining === 0) complete();
              }
              break;
            }
            case FIXED:
              i = take(data, i, true);
              if (remaining === 0) complete();
              break;
            case CHUNK_SIZE:
            case TRAILER: {
              const eol = data.indexOf(CRLF, i);
              if (eol === -1) {
                pending = Buffer.from(data.subarray(i));
                return;
              }
              if (state === CHUNK_SIZE) {
                // parseInt stops at a chunk extension (";...").
                const size = Number.parseInt(data.toString('latin1', i, eol), 16);
                i = eol + 2;
                if (size === 0) state = TRAILER;
                else {
                  remaining = size;
                  state = CHUNK_DATA;
                }
              } else {
                // An empty line ends the trailer section, and the response.
                const empty = eol === i;
                i = eol + 2;
                if (empty) complete();
              }
              break;
            }
            case CHUNK_DATA:
              i = take(data, i, true);
              if (remaining === 0) {
                state = CHUNK_END;
                remaining = 2;
              }
              break;
            case CHUNK_END:
              i = take(data, i, false);
              if (remaining === 0) state = CHUNK_SIZE;
              break;
          }
        }
      };
      const connect = () => {
        socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
        socket.once('connect', send);
        socket.on('data', read);
        socket.on('error', (error) => fail(`connection: ${error.message}`));
        socket.once('close', () => {
          if (finished) return;
          if (busy) fail('the server closed the connection during a request');
          busy = false;
          if (performance.now() < until) connect();
          else finish();
        });
      };
      connect();
    });

  await Promise.all(Array.from({ length: options.connections }, (_, i) => lane(i)));
  return { ...round.figures(), minBytes, maxBytes };
}

/** An HTTP/1.1 request as bytes, for `httpLoad`. */
export function requestBytes(method: string, host: string, path: string, headers: Record<string, string> = {}, body = ''): Buffer {
  const head = Object.entries({ ...headers, 'user-agent': 'statusdesk-bench' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const length = method === 'GET' ? '' : `content-length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${head}${length}\r\n${body}`, 'latin1');
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

/** One request on its own connection to 127.0.0.1:`port`, for checks before measuring and single timings. */
export function httpCall(
  port: number,
  request: { method?: string; path: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HttpAnswer> {
  const { method = 'GET', path, headers = {}, body, timeoutMs } = request;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** The rounds of one side, as the reports show them: medians, the range of rps, the sums. */
export interface SideFigures {
  rps: number;
  p50: number;
  p99: number;
  /** The largest latency of any round. */
  max: number;
  rpsMin: number;
  rpsMax: number;
  requests: number;
  errors: number;
  clientBusy: number;
  serverCpu: number;
  serverUsPerRequest: number;
}

export function summarise(rounds: LoadFigures[]): SideFigures {
  const of = (pick: (r: LoadFigures) => number) => median(rounds.map(pick));
  return {
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    max: Math.max(...rounds.map((r) => r.max)),
    rpsMin: Math.min(...rounds.map((r) => r.rps)),
    rpsMax: Math.max(...rounds.map((r) => r.rps)),
    requests: rounds.reduce((n, r) => n + r.requests, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    clientBusy: of((r) => r.clientBusy),
    serverCpu: of((r) => r.serverCpu),
    serverUsPerRequest: of((r) => r.serverUsPerRequest),
  };
}

/** The failures of a side's rounds, most frequent first. */
export function failuresOf(rounds: LoadFigures[]): [reason: string, count: number][] {
  const all = new Map<string, number>();
  for (const r of rounds) for (const [reason, n] of r.failures) all.set(reason, (all.get(reason) ?? 0) + n);
  return [...all].sort((a, b) => b[1] - a[1]);
}
