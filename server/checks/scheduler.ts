import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';

/**
 * When checks run. Each job runs once per period at a stable offset within the period, derived
 * from its id, so a thousand monitors at 30s spread over the 30 seconds instead of firing
 * together at :00 and :30. At most `concurrency` checks run at once; the rest wait in order.
 * A job whose previous check is still running skips that period rather than piling up.
 *
 * Wall-clock time decides the slots; if it moves more than GAP_MS beyond what the timers
 * allow (the machine slept, the process was frozen, the clock was set), every job moves to its
 * next slot after now, with no burst of stale checks, and the gap is reported.
 */

/** The longest the scheduler sleeps between looks at the clock. */
const MAX_SLEEP_MS = 1_000;
/** Timer wake-ups closer than this are merged: fewer wake-ups, at most this much lag. */
const MIN_SLEEP_MS = 5;
/** Wall time passing this much faster than the timers (or going backwards) is a gap. */
const GAP_MS = 10_000;

export interface SchedulerOptions {
  /** Runs one check; the scheduler does not look at the outcome. Must not reject. */
  run(id: number, scheduledAt: number): Promise<void>;
  concurrency: number;
  /** A span of wall time in which nothing ran. */
  onGap(from: number, to: number): void;
  now?: () => number;
}

interface Job {
  id: number;
  periodMs: number;
  offsetMs: number;
  /**
   * The time of its next slot; NaN once removed. A slot in the heap at another time is one left
   * behind when the job was rescheduled or removed: it is ignored when its time comes.
   */
  nextAt: number;
  running: boolean;
  /** Waiting for a free place: not queued a second time. */
  queued: boolean;
  /** The slot it waits to run for, while queued. */
  queuedAt: number;
}

/** Room for this many slots at first; the heap's arrays double when full. */
const INITIAL_SLOTS = 1_024;

/** A stable offset in [0, period): Knuth's multiplicative hash of the id spreads ids evenly. */
export function offsetOf(id: number, periodMs: number): number {
  return (Math.imul(id, 2654435761) >>> 0) % periodMs;
}

/** The first slot of the job at or after `t`. */
const slotFrom = (t: number, periodMs: number, offsetMs: number) => Math.ceil((t - offsetMs) / periodMs) * periodMs + offsetMs;

export function createScheduler(options: SchedulerOptions) {
  const now = options.now ?? Date.now;
  const jobs = new Map<number, Job>();
  /**
   * The jobs' next slots: a binary min-heap by time, kept in two parallel arrays (slot i is at
   * slotAt[i] for job slotJob[i]) rather than an object per slot. At 100,000 jobs the heap is 17
   * levels deep and larger than the CPU's caches, and every check pops a slot: side by side in a
   * Float64Array, the times of a level's two children are one read from memory, where an object
   * per slot (and the boxed number holding its time) were four reads from all over the heap. A
   * slot names its job itself, so the job is not looked up by id either.
   */
  let slotAt = new Float64Array(INITIAL_SLOTS);
  const slotJob: Job[] = [];
  /**
   * Jobs waiting for a free place, oldest first from waitingHead: a reference each, the slot kept
   * on the job, so a queue as long as the jobs (when checks take longer than there is room for)
   * costs a few bytes per job and allocates nothing. Run ones are cut off once they are half of it.
   */
  const waiting: Job[] = [];
  let waitingHead = 0;
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastLook = now();
  let stopped = true;
  const stats = { started: 0, skippedBusy: 0, gaps: 0, lag: new LatencyHistogram() };

  /** Slot `from` moves to place `to` of the heap. */
  function move(from: number, to: number): void {
    slotAt[to] = slotAt[from]!;
    slotJob[to] = slotJob[from]!;
  }

  function push(at: number, job: Job): void {
    let i = slotJob.length;
    if (i === slotAt.length) {
      const grown = new Float64Array(2 * i);
      grown.set(slotAt);
      slotAt = grown;
    }
    slotJob.push(job);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (slotAt[parent]! <= at) break;
      move(parent, i);
      i = parent;
    }
    slotAt[i] = at;
    slotJob[i] = job;
  }

  /** Removes the earliest slot, slot 0 (read it before). */
  function pop(): void {
    const size = slotJob.length - 1;
    const at = slotAt[size]!;
    const job = slotJob.pop()!;
    if (size === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const child = left + 1 < size && slotAt[left + 1]! < slotAt[left]! ? left + 1 : left;
      if (slotAt[child]! >= at) break;
      move(child, i);
      i = child;
    }
    slotAt[i] = at;
    slotJob[i] = job;
  }

  /** Gives the job its first slot at or after `from`. */
  function plan(job: Job, from: number): void {
    job.nextAt = slotFrom(from, job.periodMs, job.offsetMs);
    push(job.nextAt, job);
  }

  function start(at: number, job: Job): void {
    running++;
    job.running = true;
    job.queued = false;
    stats.started++;
    stats.lag.add(Math.max(0, now() - at));
    void options.run(job.id, at).finally(() => {
      running--;
      job.running = false;
      drain();
    });
  }

  function drain(): void {
    while (running < options.concurrency && waitingHead < waiting.length) {
      const job = waiting[waitingHead++]!;
      // Not when it was queued again, rescheduled or removed since (both unqueue it): its place is another's, or nobody's.
      if (job.queued) start(job.queuedAt, job);
    }
    if (waitingHead === waiting.length) waiting.length = waitingHead = 0;
    else if (waitingHead > waiting.length / 2) {
      waiting.copyWithin(0, waitingHead);
      waiting.length -= waitingHead;
      waitingHead = 0;
    }
  }

  function look(): void {
    timer = undefined;
    if (stopped) return;
    const t = now();
    if (t - lastLook > GAP_MS + MAX_SLEEP_MS || t < lastLook - GAP_MS) {
      stats.gaps++;
      if (t > lastLook) options.onGap(lastLook, t);
      slotJob.length = 0;
      waiting.length = waitingHead = 0;
      for (const job of jobs.values()) {
        job.queued = false;
        plan(job, t);
      }
    }
    lastLook = t;
    while (slotJob.length > 0 && slotAt[0]! <= t) {
      const at = slotAt[0]!;
      const job = slotJob[0]!;
      pop();
      // A slot of before the job was rescheduled or removed.
      if (at !== job.nextAt) continue;
      job.nextAt = at + job.periodMs;
      push(job.nextAt, job);
      if (job.running || job.queued) stats.skippedBusy++;
      else if (running < options.concurrency) start(at, job);
      else {
        job.queued = true;
        job.queuedAt = at;
        waiting.push(job);
      }
    }
    arm(t);
  }

  function arm(t: number): void {
    if (stopped) return;
    const next = slotJob.length > 0 ? slotAt[0]! - t : MAX_SLEEP_MS;
    timer = setTimeout(look, Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, next)));
  }

  return {
    /** Adds a job, or changes its period. The first run is at its next slot. */
    schedule(id: number, periodMs: number): void {
      let job = jobs.get(id);
      if (job?.periodMs === periodMs) return;
      if (job) {
        // The same object: a check in flight clears `running` on it when it ends.
        job.periodMs = periodMs;
        job.offsetMs = offsetOf(id, periodMs);
        job.queued = false;
      } else {
        job = { id, periodMs, offsetMs: offsetOf(id, periodMs), nextAt: Number.NaN, running: false, queued: false, queuedAt: 0 };
        jobs.set(id, job);
      }
      plan(job, now());
      // The new slot may come before the timer would wake.
      if (!stopped) {
        clearTimeout(timer);
        arm(now());
      }
    },

    unschedule(id: number): void {
      const job = jobs.get(id);
      if (!job) return;
      jobs.delete(id);
      // Its slot in the heap and its place in the queue are left behind, ignored.
      job.nextAt = Number.NaN;
      job.queued = false;
    },

    has(id: number): boolean {
      return jobs.has(id);
    },

    /**
     * Runs a job's check as soon as there is a free place, besides its slots (a monitor just
     * saved is checked at once, not only at its next slot, which may be an hour away). Nothing
     * when the job is unknown, its check is running or waiting already, or the scheduler is stopped.
     */
    runSoon(id: number): void {
      const job = jobs.get(id);
      if (stopped || !job || job.running || job.queued) return;
      const t = now();
      if (running < options.concurrency) start(t, job);
      else {
        job.queued = true;
        job.queuedAt = t;
        waiting.push(job);
      }
    },

    start(): void {
      if (!stopped) return;
      stopped = false;
      lastLook = now();
      look();
    },

    stop(): void {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },

    /** Checks running now and waiting for a slot. */
    get load() {
      return { running, waiting: waiting.length - waitingHead, jobs: jobs.size };
    },

    stats,
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
