import type { Logger } from 'pino';
import type { Db } from '../db/open.ts';
import type { ProbeResult } from '../domain/monitors/check-results.ts';
import { findHeartbeatFacts } from '../domain/monitors/heartbeat-repository.ts';
import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import { emptyTiming } from './connection.ts';
import { evaluateHeartbeat } from './heartbeat-probe.ts';
import { probeResult } from './outcome.ts';

/**
 * The deadlines of the heartbeat monitors the engine schedules: each monitor's time to turn down
 * unless a ping comes first, on the engine's clock. When one passes, the monitor is checked at
 * once (`due`), which records its down result, instead of at its next periodic check, which may
 * be an hour away. The timer never sleeps more than a second, so a clock that moves (a test's,
 * a machine that slept) is seen within that second, as the scheduler sees it.
 *
 * Every evaluation (a ping's, a deadline's, a periodic one) reads the monitor's state from the
 * database: a ping another process received counts as well as one this process did.
 */

/** The longest the watch sleeps between looks at the clock. */
const MAX_SLEEP_MS = 1_000;

export interface HeartbeatWatchOptions {
  db: Db;
  log: Logger;
  now: () => number;
  /** Whether this process schedules the monitor now; only those have their deadlines watched. */
  scheduled(monitorId: number): boolean;
  /** Checks the monitor now (through the check core, whose probe calls `evaluate`). */
  due(monitorId: number): void;
}

/** What the heartbeat probe asks of the engine (probes.ts): the monitor's result at the engine's time, or null while it is pending. */
export interface HeartbeatEvaluator {
  evaluate(monitor: { id: string } & Pick<ConfigOf<'heartbeat'>, 'schedule' | 'timezone' | 'grace'>): Promise<ProbeResult | null>;
}

export function createHeartbeatWatch(options: HeartbeatWatchOptions) {
  const { db, now } = options;
  /** Each watched monitor's deadline; a heap entry at another time is one left behind, ignored. */
  const deadlines = new Map<number, number>();
  const heap: { at: number; id: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  /** How late each deadline was evaluated, in ms: the watch's own lag (the engine's clock, its timers). */
  const stats = { evaluated: 0, lag: new LatencyHistogram() };

  function push(entry: { at: number; id: number }): void {
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= heap[i]!.at) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  function pop(): { at: number; id: number } {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const child = left + 1 < heap.length && heap[left + 1]!.at < heap[left]!.at ? left + 1 : left;
        if (heap[child]!.at >= heap[i]!.at) break;
        [heap[child], heap[i]] = [heap[i]!, heap[child]!];
        i = child;
      }
    }
    return top;
  }

  /** Sets or clears a monitor's deadline. */
  function arm(id: number, at: number | null): void {
    if (at === null || !options.scheduled(id)) {
      deadlines.delete(id);
      return;
    }
    if (deadlines.get(id) === at) return;
    deadlines.set(id, at);
    // Every ping moves a deadline and leaves its old entry behind until its time: past twice the
    // deadlines, the heap is made again from them.
    if (heap.length > 2 * deadlines.size + 1_024) {
      heap.length = 0;
      for (const [monitorId, deadline] of deadlines) if (monitorId !== id) push({ at: deadline, id: monitorId });
    }
    push({ at, id });
    // The new deadline may come before the timer would wake.
    if (running && heap[0]!.at === at) wake();
  }

  function look(): void {
    timer = undefined;
    if (!running) return;
    const t = now();
    while (heap.length > 0 && heap[0]!.at <= t) {
      const { at, id } = pop();
      if (deadlines.get(id) !== at) continue;
      deadlines.delete(id);
      if (!options.scheduled(id)) continue;
      stats.evaluated++;
      stats.lag.add(Math.max(0, t - at));
      options.due(id);
    }
    wake();
  }

  function wake(): void {
    clearTimeout(timer);
    if (!running) return;
    const next = heap.length > 0 ? heap[0]!.at - now() : MAX_SLEEP_MS;
    timer = setTimeout(look, Math.min(MAX_SLEEP_MS, Math.max(0, next)));
  }

  const evaluator: HeartbeatEvaluator = {
    async evaluate(monitor) {
      const id = Number(monitor.id);
      const facts = await findHeartbeatFacts(db, id);
      // A heartbeat monitor always has its row (made with it); one deleted meanwhile has neither.
      if (!facts) return probeResult('down', 0, emptyTiming(), 0, 'the monitor has no ping token');
      const { result, downAt } = evaluateHeartbeat(monitor, facts, now());
      arm(id, downAt);
      return result;
    },
  };

  return {
    evaluator,

    /**
     * Learns a newly scheduled monitor's deadline without recording anything (its next check
     * records its state): a monitor that was down stays without one until a ping comes.
     */
    watch(monitor: Parameters<HeartbeatEvaluator['evaluate']>[0]): void {
      const id = Number(monitor.id);
      findHeartbeatFacts(db, id)
        .then((facts) => {
          if (facts) arm(id, evaluateHeartbeat(monitor, facts, now()).downAt);
        })
        .catch((error: Error) => options.log.error({ err: error, monitorId: id }, 'reading a heartbeat monitor’s state failed'));
    },

    forget(id: number): void {
      deadlines.delete(id);
    },

    start(): void {
      running = true;
      wake();
    },

    stop(): void {
      running = false;
      clearTimeout(timer);
      timer = undefined;
    },

    get watched(): number {
      return deadlines.size;
    },

    stats,
  };
}

export type HeartbeatWatch = ReturnType<typeof createHeartbeatWatch>;
