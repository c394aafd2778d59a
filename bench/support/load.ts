import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { percentile, processCpuSeconds } from './figures.ts';

/** The figures of one round of load, whatever its requests. */
export interface LoadFigures {
  requests: number;
  /** Answers that were not 200, and broken connections. */
  errors: number;
  firstError: string;
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

/** One connection's side of the loop, as the reader of its answers sees it. */
export interface Lane {
  /** An answer is awaited. */
  readonly busy: boolean;
  /** Counts an error; the first one's reason is kept. */
  fail(reason: string): void;
  /** The awaited answer is in: its latency, from the request's write to now, counts. */
  answered(): void;
  /** Writes the next request, or ends the lane once the time is up. */
  send(): void;
  /** Closes the connection once written out (the server said it would); a new one is opened while there is time. */
  end(): void;
  /** Drops the connection at once, giving up the answer; a new one is opened while there is time. */
  drop(): void;
  /** Ends the lane: no more requests on it. */
  finish(): void;
}

/** How a benchmark drives one lane: what it sends and how it reads what comes back. */
export interface LaneDriver {
  /** Readies the reader for a new answer, before the request is timed. */
  reset?(): void;
  /** The request to write; built after the clock starts. */
  request(): Buffer;
  /** A chunk of the answer: calls `lane.answered()` when it is whole, then `lane.send()` (or `end`, `drop`, `finish`). */
  read(chunk: Buffer): void;
}

/**
 * `connections` keep-alive HTTP/1.1 connections to 127.0.0.1:`port`, each with one request in flight
 * at a time, until `durationMs` have passed; requests in flight at the deadline finish and are
 * counted. A connection the server closes is replaced while there is time left. `serverPid`, when
 * known, is the process whose CPU time is read before and after.
 */
export async function keepAliveLoad(
  port: number,
  connections: number,
  durationMs: number,
  serverPid: number | undefined,
  drive: (index: number, lane: Lane) => LaneDriver,
): Promise<LoadFigures> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError = '';
  const fail = (reason: string) => {
    errors++;
    firstError ||= reason;
  };
  const elu = performance.eventLoopUtilization();
  const cpuBefore = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const started = performance.now();
  const until = started + durationMs;

  const run = (index: number) =>
    new Promise<void>((resolve) => {
      let socket: net.Socket;
      let sentAt = 0;
      let busy = false;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        socket.destroy();
        resolve();
      };
      const lane: Lane = {
        get busy() {
          return busy;
        },
        fail,
        answered() {
          latencies.push(performance.now() - sentAt);
          busy = false;
        },
        send() {
          if (performance.now() >= until) return finish();
          driver.reset?.();
          busy = true;
          sentAt = performance.now();
          socket.write(driver.request());
        },
        end() {
          socket.end();
        },
        drop() {
          busy = false;
          socket.destroy();
        },
        finish,
      };
      const driver = drive(index, lane);
      const connect = () => {
        socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
        socket.once('connect', lane.send);
        socket.on('data', driver.read);
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

  await Promise.all(Array.from({ length: connections }, (_, i) => run(i)));
  const elapsed = performance.now() - started;
  const cpuAfter = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  const serverCpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : cpuAfter - cpuBefore;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    firstError,
    rps: latencies.length / (elapsed / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    clientBusy: performance.eventLoopUtilization(elu).utilization,
    serverCpu: serverCpuSeconds / (elapsed / 1000),
    serverUsPerRequest: (serverCpuSeconds * 1e6) / latencies.length,
  };
}
