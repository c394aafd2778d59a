// Runs the service host and keeps it running. The host is a process of its own (Electron's
// utility process in the app, child_process.fork in tests) behind the small HostProcess adapter;
// what crosses to it are the messages of server/desktop/host-protocol.ts, checked on arrival.
// A host that dies unexpectedly is started again on the same ports, after a pause that grows with
// each crash, until it has crashed too often within a minute: then the supervisor stops and says why.
import type { ChildProcess } from 'node:child_process';
import {
  type AlertMessage,
  type AppMessage,
  type ConsentMessage,
  type HealthMessage,
  type HostMessage,
  hostMessageOf,
  type ReadyMessage,
  type StartMessage,
} from '../../server/desktop/host-protocol.ts';

export type SupervisorState = 'starting' | 'running' | 'restarting' | 'stopped';

/** What the supervisor passes on: the service's news, and `ready` again after each restart. */
export type HostEvent = ReadyMessage | AlertMessage | HealthMessage | ConsentMessage;

/** One run of the service host, as the supervisor sees it. */
export interface HostProcess {
  send(message: AppMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Ends the process now, whatever it is doing. */
  kill(): void;
}

/**
 * A Node.js child process with a message channel (`child_process.fork`) as a host process: how
 * the tests and benchmarks run the service host, where the app uses Electron's utilityProcess.
 */
export function forkedHost(child: ChildProcess): HostProcess {
  return {
    send: (message) => child.send(message),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', listener),
    kill: () => child.kill(),
  };
}

export interface SupervisorOptions {
  spawn(): HostProcess;
  onEvent(event: HostEvent): void;
  /** Each change of state; `reason` says why the service restarts or stopped on its own. */
  onStateChange(state: SupervisorState, reason?: string): void;
  /** The pause before the first restart; it doubles with each crash within a minute. */
  backoffMs?: number;
  /** Crashes within a minute that are restarted; one more and the supervisor gives up. */
  maxRestartsPerMinute?: number;
  /** How long a start may take (migrations on a large database take a while). */
  readyTimeoutMs?: number;
  /** How long a stop may take before the host is killed. */
  stopTimeoutMs?: number;
  /** How long a sign-in link may take. */
  signInTimeoutMs?: number;
  /** A message from the host that is not one of the protocol's (logged, never acted on). */
  onProtocolError?(error: Error): void;
}

export interface Supervisor {
  /** Starts the host; resolves once the service listens, rejects with the host's reason when it cannot start. */
  start(message: StartMessage): Promise<ReadyMessage>;
  /** A fresh one-time link that signs the app's window into the dashboard. */
  requestSignIn(): Promise<string>;
  /** Asks the host to stop, and kills it if it has not exited in time. Resolves once it is gone. */
  stop(): Promise<void>;
  state(): SupervisorState;
}

const MINUTE_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;
/** After a kill, the exit is waited for this long at most (a process stuck in the kernel may never report it). */
const KILL_WAIT_MS = 5_000;

/** One spawned host: its process, whether it got as far as ready, and its exit. */
interface Run {
  host: HostProcess;
  /** Settles once: with the host's ready, or with why it will not be. */
  ready: Promise<ReadyMessage>;
  settle(outcome: { ready: ReadyMessage } | { error: Error }): void;
  settled: boolean;
  isReady: boolean;
  /** The reason the host gave with `failed`, for the crash that follows it. */
  failure?: string;
  exited: Promise<void>;
  markExited(): void;
  hasExited: boolean;
}

function newRun(host: HostProcess): Run {
  let resolveReady!: (ready: ReadyMessage) => void;
  let rejectReady!: (error: Error) => void;
  let markExited!: () => void;
  const run: Run = {
    host,
    ready: new Promise<ReadyMessage>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    }),
    settle(outcome) {
      if (run.settled) return;
      run.settled = true;
      if ('ready' in outcome) {
        run.isReady = true;
        resolveReady(outcome.ready);
      } else rejectReady(outcome.error);
    },
    settled: false,
    isReady: false,
    exited: new Promise<void>((resolve) => {
      markExited = resolve;
    }),
    markExited: () => markExited(),
    hasExited: false,
  };
  return run;
}

interface PendingSignIn {
  resolve(url: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

function exitText(code: number | null, signal: string | null): string {
  if (signal) return `it was ended by ${signal}`;
  return `it exited with code ${code ?? 'unknown'}`;
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

/** Resolves true when `promise` settles within `ms`, false when the time runs out first. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const backoffMs = options.backoffMs ?? 500;
  const maxRestarts = options.maxRestartsPerMinute ?? 5;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 15_000;
  const signInTimeoutMs = options.signInTimeoutMs ?? 10_000;
  const onProtocolError = options.onProtocolError ?? ((error: Error) => console.warn(`statusdesk: ${error.message}`));

  let state: SupervisorState = 'stopped';
  let startMessage: StartMessage | undefined;
  let current: Run | undefined;
  let crashes: number[] = [];
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  const signIns: PendingSignIn[] = [];

  function setState(next: SupervisorState, reason?: string): void {
    if (next === state && reason === undefined) return;
    state = next;
    options.onStateChange(next, reason);
  }

  /** A host that has just died cannot take a message; its exit, which follows, says what happened. */
  function sendTo(run: Run, message: AppMessage): void {
    try {
      run.host.send(message);
    } catch {
      return;
    }
  }

  function rejectSignIns(reason: string): void {
    for (const pending of signIns.splice(0)) {
      clearTimeout(pending.timer);
      pending.reject(new Error(reason));
    }
  }

  function receive(run: Run, data: unknown): void {
    // A host that was replaced (it crashed, or never got ready in time) has nothing more to say.
    if (run !== current) return;
    let message: HostMessage;
    try {
      message = hostMessageOf(data);
    } catch (error) {
      onProtocolError(error as Error);
      return;
    }
    switch (message.type) {
      case 'ready':
        run.settle({ ready: message });
        options.onEvent(message);
        return;
      case 'failed':
        run.failure = message.message;
        run.settle({ error: new Error(message.message) });
        return;
      case 'sign-in': {
        const pending = signIns.shift();
        if (!pending) return;
        clearTimeout(pending.timer);
        pending.resolve(message.url);
        return;
      }
      case 'stopped':
        return;
      default:
        options.onEvent(message);
    }
  }

  function exited(run: Run, code: number | null, signal: string | null): void {
    if (run.hasExited) return;
    run.hasExited = true;
    if (run !== current) return;
    const reason = run.failure ?? `the service host stopped: ${exitText(code, signal)}`;
    rejectSignIns(reason);
    if (!run.isReady) {
      // Still starting: the start (or restart) waiting on it takes it from here.
      run.settle({ error: new Error(run.failure ?? `the service host stopped before it was ready: ${exitText(code, signal)}`) });
      return;
    }
    if (!stopping) crashed(reason);
  }

  /** Spawns a host and starts the service in it; settles with its ready or its failure. */
  function launch(message: StartMessage): Promise<ReadyMessage> {
    const run = newRun(options.spawn());
    current = run;
    run.host.onMessage((data) => receive(run, data));
    run.host.onExit((code, signal) => {
      exited(run, code, signal);
      run.markExited();
    });
    sendTo(run, message);
    const timer = setTimeout(() => run.settle({ error: new Error(`the service did not start within ${duration(readyTimeoutMs)}`) }), readyTimeoutMs);
    return run.ready.then(
      (ready) => {
        clearTimeout(timer);
        return ready;
      },
      (error: Error) => {
        clearTimeout(timer);
        // A host that could not start is not left behind, and what it still sends is ignored.
        if (current === run) current = undefined;
        if (!run.hasExited) run.host.kill();
        throw error;
      },
    );
  }

  function crashed(reason: string): void {
    current = undefined;
    const now = Date.now();
    crashes = [...crashes.filter((at) => now - at < MINUTE_MS), now];
    if (crashes.length > maxRestarts) {
      setState('stopped', `the service stopped unexpectedly ${crashes.length} times within a minute, so it is not started again (last: ${reason})`);
      return;
    }
    setState('restarting', reason);
    const delay = Math.min(backoffMs * 2 ** (crashes.length - 1), MAX_BACKOFF_MS);
    restartTimer = setTimeout(() => void restart(), delay);
  }

  async function restart(): Promise<void> {
    restartTimer = undefined;
    if (stopping || !startMessage) return;
    try {
      await launch(startMessage);
      if (!stopping) setState('running');
    } catch (error) {
      if (!stopping) crashed((error as Error).message);
    }
  }

  return {
    async start(message) {
      if (state !== 'stopped' || current) throw new Error('the service is already started');
      stopping = undefined;
      crashes = [];
      setState('starting');
      try {
        const ready = await launch(message);
        // Restarts keep the ports the service took, so the window's address stays valid.
        startMessage = { ...message, ports: ready.ports };
        setState('running');
        return ready;
      } catch (error) {
        if (!stopping) setState('stopped', (error as Error).message);
        throw error;
      }
    },

    requestSignIn() {
      const run = current;
      if (state !== 'running' || !run?.isReady) return Promise.reject(new Error(`the service is not running (${state})`));
      return new Promise<string>((resolve, reject) => {
        const pending: PendingSignIn = {
          resolve,
          reject,
          timer: setTimeout(() => {
            signIns.splice(signIns.indexOf(pending), 1);
            reject(new Error(`the service gave no sign-in link within ${duration(signInTimeoutMs)}`));
          }, signInTimeoutMs),
        };
        signIns.push(pending);
        sendTo(run, { type: 'sign-in' });
      });
    },

    stop() {
      stopping ??= (async () => {
        clearTimeout(restartTimer);
        restartTimer = undefined;
        const run = current;
        let reason: string | undefined;
        if (run && !run.hasExited) {
          sendTo(run, { type: 'stop' });
          if (!(await within(run.exited, stopTimeoutMs))) {
            reason = `the service did not stop within ${duration(stopTimeoutMs)} and was ended`;
            run.host.kill();
            await within(run.exited, KILL_WAIT_MS);
          }
        }
        current = undefined;
        rejectSignIns('the service stopped');
        setState('stopped', reason);
      })();
      return stopping;
    },

    state: () => state,
  };
}
