import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Logger } from 'pino';
import { type ConnectResponse, type Hello, RunnerService } from '../../proto/gen/runner/v1/runner_pb.js';
import { createCheckRunner, decodeDefinition, type Place } from '../checks/check-runner.ts';
import type { StoredCheck } from '../checks/result-store.ts';
import type { DestinationPolicy } from '../domain/destinations.ts';
import { type AssignedDefinition, openBuffer } from './buffer.ts';

/**
 * `statusdesk runner`: a private location's runner. It calls the service, never the other way:
 * Connect streams its assignment, Report uploads its results. Every result goes through the
 * buffer on disk first, so while the service is out of reach the runner keeps checking its last
 * assignment and loses nothing within the buffer's bound. The service refusing the runner (its
 * token, its version, another runner on the location) stops it for good.
 */

export interface RunnerOptions {
  /** The service's API address, without /rpc. */
  apiUrl: string;
  token: string;
  dataDir: string;
  /** Results the buffer holds at most; the oldest are dropped first. */
  bufferMax?: number;
  /** Most checks in flight at once. */
  concurrency?: number;
  log: Logger;
  version: string;
  hostname: string;
  /** Where checks may connect (STATUSDESK_ALLOWED_DESTINATIONS of the runner's machine); absent: the policy without an allow-list. */
  destinations?: DestinationPolicy;
  /** Whether it runs the programs of stdio MCP monitors (`--allow-commands`): off unless its owner says so. */
  allowCommands?: boolean;
}

/** How a runner ended: stopped, or refused by the service with its reason. */
export type RunnerEnd = { refused?: string };

/** Results wait at most this long in memory before they are written to the buffer. */
const BUFFER_MS = 250;
/** How often waiting results are uploaded. */
const REPORT_MS = 1_000;
/** An empty report says the runner is alive at least this often. */
const HEARTBEAT_MS = 15_000;
const REPORT_MAX = 1_000;
const REPORT_TIMEOUT_MS = 30_000;
/** The service sends an event at least every 15 s: this long without one, the stream is dead. */
const SILENCE_MS = 45_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
const REVOKED =
  "the service refused this runner's token: its private location was deleted or its token rotated; start the runner with the location's current token";

const placeOf = (name: string): Place => ({ runner: name, regions: [name] });
/** 1 s doubling to 30 s, each wait between half and all of it, so runners cut off together do not return together. */
const backoff = (attempt: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** attempt) * (0.5 + Math.random() / 2);

export function startRunner(options: RunnerOptions) {
  const { log, version } = options;
  const buffer = openBuffer(options.dataDir, { token: options.token, max: options.bufferMax });
  if (buffer.assignmentDropped)
    log.warn(
      "the assignment kept in the buffer was sealed under another token and cannot be read: nothing is checked until the service sends the location's assignment",
    );
  const transport = createConnectTransport({
    baseUrl: `${options.apiUrl}/rpc`,
    httpVersion: '1.1',
    interceptors: [
      (next) => (request) => {
        request.header.set('authorization', `Bearer ${options.token}`);
        return next(request);
      },
    ],
  });
  const client = createClient(RunnerService, transport);
  const identity = { version, instanceId: buffer.instanceId, hostname: options.hostname };
  /** Aborted on stop: ends the stream, a report in flight and a backoff. */
  const stopping = new AbortController();
  let stopped = false;
  let connected = false;
  /** Set from the first failure of an outage to the next hello: an outage is logged once. */
  let outage = false;
  let pending: StoredCheck[] = [];
  let gaps: { from: number; to: number }[] = [];
  /** Full assignments received: a monitor not seen by the last one is no longer checked. */
  let rounds = 0;
  let reporting: Promise<void> | undefined;
  let lastReport = 0;
  let ended: (end: RunnerEnd) => void;
  const done = new Promise<RunnerEnd>((resolve) => (ended = resolve));

  const core = createCheckRunner({
    log,
    version,
    place: placeOf(buffer.locationName ?? 'unnamed'),
    concurrency: options.concurrency,
    allowCommands: options.allowCommands ?? false,
    destinations: options.destinations,
    onCheck: (check) => pending.push(check),
    onGap: (from, to) => {
      log.warn(
        { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        'no checks ran in this span (the machine slept or the clock moved); checks resume on schedule',
      );
      gaps.push({ from, to });
    },
  });

  /** Schedules monitors of the assignment; a full one also forgets every monitor it does not list. */
  function assign(monitors: readonly AssignedDefinition[], full: boolean): void {
    const round = full ? ++rounds : rounds;
    for (const m of monitors) {
      if (core.mark(Number(m.id), round) === m.revision) continue;
      try {
        core.track(decodeDefinition(m.definition), m.revision, round);
      } catch (error) {
        log.error({ err: error, monitorId: m.id }, 'a monitor of the assignment cannot be read, and is not checked');
      }
    }
    if (full) core.sweep(round);
  }

  /** Writes the results of memory to the buffer. */
  function toBuffer(): void {
    if (pending.length === 0) return;
    try {
      buffer.add(pending);
      pending = [];
    } catch (error) {
      log.error({ err: error, results: pending.length }, 'writing results to the buffer failed; trying again');
    }
  }

  function onEvent(event: ConnectResponse): void {
    const monitors = event.monitors.map((m) => ({ id: m.id, revision: Number(m.revision), definition: m.definition }));
    if (event.full) buffer.replaceAssignment(monitors);
    else if (monitors.length > 0 || event.removedMonitorIds.length > 0) buffer.changeAssignment(monitors, event.removedMonitorIds);
    assign(monitors, event.full);
    for (const id of event.removedMonitorIds) core.forget(Number(id));
    if (event.checkNowMonitorIds.length > 0) void checkNow(event.checkNowMonitorIds);
  }

  /** Checks monitors at once, and uploads their results at once. */
  async function checkNow(ids: readonly string[]): Promise<void> {
    const monitors = ids.flatMap((id) => core.monitor(Number(id)) ?? []);
    const checks = await Promise.all(monitors.map((monitor) => core.check(monitor)));
    if (stopped) return;
    // A check with nothing to record (a heartbeat's; never assigned to a runner) is left out.
    pending.push(...checks.filter((c) => c !== null));
    void report();
  }

  /** The first event: true when the runner may go on with this service. */
  function hello(h: Hello): boolean {
    if (h.serviceVersion !== version) {
      refuse(`this runner is Statusdesk ${version} and the service is ${h.serviceVersion}: run the same version on both`);
      return false;
    }
    if (buffer.locationName !== h.locationName) {
      buffer.locationName = h.locationName;
      core.moveTo(placeOf(h.locationName));
    }
    buffer.acknowledge(Number(h.acknowledgedSequence));
    log.info({ location: h.locationName, waiting: buffer.waiting }, outage ? 'connected to the service again' : 'connected to the service');
    outage = false;
    connected = true;
    return true;
  }

  /** Why a call failed: the service's refusal ends the runner; anything else is an outage to wait out. */
  function failed(error: unknown, call: 'connect' | 'report'): void {
    if (stopped) return;
    const e = ConnectError.from(error);
    if (e.code === Code.Unauthenticated) return refuse(REVOKED);
    // A connection reset is Aborted too, with the socket's error as its cause; the service's own Aborted (another runner took the location) has none.
    const replaced = call === 'connect' && e.code === Code.Aborted && e.cause === undefined;
    if (e.code === Code.FailedPrecondition || replaced) return refuse(e.rawMessage);
    if (outage) return;
    outage = true;
    log.warn({ call, code: Code[e.code], reason: e.rawMessage }, 'the service cannot be reached: checks go on, and their results wait in the buffer');
  }

  /** Uploads what waits, a batch after another; one upload at a time, and only while the stream is open. */
  function report(): Promise<void> {
    if (reporting || !connected) return reporting ?? Promise.resolve();
    reporting = (async () => {
      for (;;) {
        toBuffer();
        const checks = buffer.batch(REPORT_MAX);
        const sent = gaps;
        try {
          const answer = await client.report(
            { ...identity, checks, droppedResults: BigInt(buffer.dropped), gaps: sent.map((g) => ({ startedAtMs: BigInt(g.from), endedAtMs: BigInt(g.to) })) },
            { signal: stopping.signal, timeoutMs: REPORT_TIMEOUT_MS },
          );
          lastReport = Date.now();
          gaps = gaps.slice(sent.length);
          buffer.acknowledge(Number(answer.acknowledgedSequence));
          if (outage) log.info({ waiting: buffer.waiting }, 'the service answers again');
          outage = false;
        } catch (error) {
          return failed(error, 'report');
        }
        if (checks.length < REPORT_MAX || stopped) return;
      }
    })().finally(() => (reporting = undefined));
    return reporting;
  }

  /** Keeps the assignment stream open, reconnecting with backoff, until stopped or refused. */
  async function connect(): Promise<void> {
    for (let attempt = 0; !stopped; attempt++) {
      const silence = new AbortController();
      const watchdog = setTimeout(() => silence.abort(), SILENCE_MS);
      try {
        for await (const event of client.connect(identity, { signal: AbortSignal.any([stopping.signal, silence.signal]) })) {
          watchdog.refresh();
          if (event.hello) {
            if (!hello(event.hello)) return;
            attempt = 0;
            void report();
          }
          onEvent(event);
        }
        failed(new ConnectError('the service ended the assignment stream', Code.Unavailable), 'connect');
      } catch (error) {
        const silent = silence.signal.aborted && !stopping.signal.aborted;
        failed(silent ? new ConnectError(`no word from the service in ${SILENCE_MS / 1000} s`, Code.DeadlineExceeded) : error, 'connect');
      } finally {
        clearTimeout(watchdog);
        connected = false;
      }
      if (stopped) return;
      await sleep(backoff(attempt), undefined, { signal: stopping.signal }).catch(() => {});
    }
  }

  const timers = [
    setInterval(toBuffer, BUFFER_MS),
    setInterval(() => {
      if (buffer.waiting > 0 || pending.length > 0 || Date.now() - lastReport >= HEARTBEAT_MS) void report();
    }, REPORT_MS),
  ];

  /** Stops checking, writes what is in memory to the buffer and closes it. */
  async function finish(end: RunnerEnd): Promise<void> {
    if (stopped) return;
    stopped = true;
    core.stop();
    stopping.abort();
    for (const timer of timers) clearInterval(timer);
    await reporting;
    toBuffer();
    await core.close();
    buffer.close();
    ended(end);
  }

  function refuse(reason: string): void {
    void finish({ refused: reason });
  }

  // The last assignment is checked from the start, whether the service answers or not.
  assign(buffer.assignment(), true);
  core.start();
  void connect();

  return {
    /** Resolves once the runner has stopped: by `stop`, or refused by the service. */
    done,
    instanceId: buffer.instanceId,
    stop: () => finish({}),
  };
}

export type Runner = ReturnType<typeof startRunner>;
