/**
 * The check scheduler (server/checks/scheduler.ts) with a wall clock the test controls and mock
 * timers (node:test `mock.timers`): the scheduler sleeps at most the distance (in clock
 * milliseconds) to its next slot, so each step below moves the timers a little more than one
 * period for it to notice, and no test waits for real time to pass.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { createScheduler, offsetOf, type Scheduler } from '../server/checks/scheduler.ts';

/** A moment far from any special value; periods below divide it or not, it does not matter. */
const BASE = 1_800_000_000_000;
const HOUR_MS = 3_600_000;

interface Run {
  id: number;
  scheduledAt: number;
  /** The fake wall clock when the run started. */
  startedAt: number;
}

interface Harness {
  scheduler: Scheduler;
  clock: { now(): number; set(t: number): void; advance(ms: number): void };
  runs: Run[];
  gaps: [number, number][];
  /** Runs in flight now, and the most ever in flight at once. */
  inFlight(): number;
  maxInFlight(): number;
  /** Ends the run of `id` that is hanging (oldest first). */
  release(id: number): void;
  hanging(): number[];
  runsOf(id: number): Run[];
  stop(): void;
}

/**
 * A scheduler on a fake clock, with mock timers until `stop()`. `hang(id)` decides whether a run
 * of `id` hangs until released; otherwise runs end at once.
 */
function harness(options: { concurrency?: number; start?: number; hang?: (id: number) => boolean } = {}): Harness {
  mock.timers.enable({ apis: ['setTimeout'] });
  let t = options.start ?? BASE;
  const runs: Run[] = [];
  const gaps: [number, number][] = [];
  const pending: { id: number; done(): void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const scheduler = createScheduler({
    concurrency: options.concurrency ?? 100,
    now: () => t,
    onGap: (from, to) => gaps.push([from, to]),
    run: async (id, scheduledAt) => {
      runs.push({ id, scheduledAt, startedAt: t });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (options.hang?.(id)) await new Promise<void>((resolve) => pending.push({ id, done: resolve }));
      } finally {
        inFlight--;
      }
    },
  });
  return {
    scheduler,
    clock: {
      now: () => t,
      set: (value) => void (t = value),
      advance: (ms) => void (t += ms),
    },
    runs,
    gaps,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    release(id) {
      const index = pending.findIndex((p) => p.id === id);
      assert.ok(index >= 0, `no run of ${id} is hanging`);
      pending.splice(index, 1)[0]!.done();
    },
    hanging: () => pending.map((p) => p.id),
    runsOf: (id) => runs.filter((r) => r.id === id),
    stop() {
      scheduler.stop();
      // Let hanging runs end so nothing is left behind.
      for (const p of pending.splice(0)) p.done();
      mock.timers.reset();
    },
  };
}

/** The first slot of a job at or after `t`, as the scheduler computes it. */
const slotFrom = (t: number, periodMs: number, id: number) => {
  const offset = offsetOf(id, periodMs);
  return Math.ceil((t - offset) / periodMs) * periodMs + offset;
};

/** How far the mock timers move at a time: the scheduler's shortest sleep. */
const STEP_MS = 5;

/** Moves the mock timers by `ms`, a step at a time, letting the runs that started or ended settle after each step. */
async function elapse(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= STEP_MS) {
    mock.timers.tick(Math.min(STEP_MS, left));
    await turn();
  }
}

/** Moves the mock timers until `condition` holds; fails after `limitMs` of them. */
async function advanceUntil(condition: () => boolean, what: string, limitMs = 1_500): Promise<void> {
  for (let elapsed = 0; !condition(); elapsed += STEP_MS) {
    if (elapsed > limitMs) assert.fail(`never happened: ${what}`);
    await elapse(STEP_MS);
  }
}

/** Gives the scheduler time to look at the clock: it sleeps at most one period (in ms) while the clock stands still. */
const settle = (periodMs: number) => elapse(Math.min(periodMs, 1_000) + 40);

describe('scheduler offsets', () => {
  test('the offset of a job is stable and inside the period', () => {
    for (const period of [30_000, 60_000, 300_000, 3_600_000]) {
      for (const id of [1, 2, 3, 999, 123_456, 2 ** 31 - 1]) {
        const offset = offsetOf(id, period);
        assert.equal(offsetOf(id, period), offset, 'the same id and period give the same offset');
        assert.ok(Number.isInteger(offset) && offset >= 0 && offset < period, `offset ${offset} of ${id} lies in [0, ${period})`);
      }
    }
  });

  test('1000 monitors at 30s spread over the 30 seconds: no thundering herd at :00', () => {
    const perSecond = new Array<number>(30).fill(0);
    const perTenth = new Map<number, number>();
    for (let id = 1; id <= 1000; id++) {
      const offset = offsetOf(id, 30_000);
      perSecond[Math.floor(offset / 1000)]!++;
      perTenth.set(Math.floor(offset / 100), (perTenth.get(Math.floor(offset / 100)) ?? 0) + 1);
    }
    // An even spread puts 1000 / 30 ≈ 33 (3.3%) in each second.
    assert.ok(
      perSecond.every((n) => n > 0),
      `every second of the period has checks: ${perSecond.join(' ')}`,
    );
    assert.ok(Math.max(...perSecond) <= 50, `no second holds more than 5% of the checks: ${perSecond.join(' ')}`);
    assert.ok(perSecond[0]! <= 50, `the :00 second holds ${perSecond[0]} checks`);
    assert.ok(Math.min(...perSecond) >= 20, `no second is nearly empty: ${perSecond.join(' ')}`);
    // Even at a tenth of a second, no 100 ms slice gathers a crowd.
    assert.ok(Math.max(...perTenth.values()) <= 10, `no 100 ms slice holds more than 1%: max ${Math.max(...perTenth.values())}`);
    assert.ok(perTenth.size >= 250, `the checks use ${perTenth.size} of the 300 tenths`);
  });

  test('ids that are not consecutive spread as well', () => {
    const perSecond = new Array<number>(30).fill(0);
    for (let id = 7; id <= 7 * 1000; id += 7) perSecond[Math.floor(offsetOf(id, 30_000) / 1000)]!++;
    assert.ok(Math.max(...perSecond) <= 50 && Math.min(...perSecond) >= 20, perSecond.join(' '));
  });
});

describe('scheduler timing', () => {
  test('each job runs once per period, at its slot', async () => {
    const P = 100;
    const ids = [1, 2, 3, 4, 5, 6, 7, 8];
    const h = harness();
    try {
      for (const id of ids) h.scheduler.schedule(id, P);
      assert.deepEqual(h.scheduler.load, { running: 0, waiting: 0, jobs: ids.length });
      const t0 = h.clock.now();
      h.scheduler.start();
      await settle(P);
      // Only a job whose slot is exactly now may have run; the rest wait for their slot.
      for (const id of ids) assert.equal(h.runsOf(id).length, slotFrom(t0, P, id) === t0 ? 1 : 0, `job ${id} before its first slot`);
      const base = new Map(ids.map((id) => [id, h.runsOf(id).length]));

      for (let step = 1; step <= 4; step++) {
        h.clock.advance(P);
        await settle(P);
        for (const id of ids) {
          const runs = h.runsOf(id);
          assert.equal(runs.length, base.get(id)! + step, `job ${id} ran once per period (step ${step})`);
          for (const run of runs) {
            assert.equal((run.scheduledAt - offsetOf(id, P)) % P, 0, `job ${id} ran at its slot, not at ${run.scheduledAt}`);
            assert.ok(run.startedAt >= run.scheduledAt, 'never before its slot');
          }
        }
      }
      // Successive runs of a job are exactly one period apart.
      for (const id of ids) {
        const at = h.runsOf(id).map((r) => r.scheduledAt);
        for (let i = 1; i < at.length; i++) assert.equal(at[i]! - at[i - 1]!, P);
      }
      assert.equal(h.scheduler.stats.skippedBusy, 0);
      assert.equal(h.gaps.length, 0);
    } finally {
      h.stop();
    }
  });

  test('a job does not run before its slot, and runs when the clock reaches it', async () => {
    const P = 200;
    const id = 42;
    const start = slotFrom(BASE, P, id) + 1; // just after a slot: the next one is almost a period away
    const h = harness({ start });
    try {
      h.scheduler.schedule(id, P);
      h.scheduler.start();
      const next = slotFrom(start, P, id);
      h.clock.set(next - 1);
      await settle(P);
      assert.equal(h.runsOf(id).length, 0, 'one millisecond before the slot nothing runs');
      h.clock.set(next);
      await advanceUntil(() => h.runsOf(id).length === 1, 'the run at the slot');
      assert.equal(h.runsOf(id)[0]!.scheduledAt, next);
      await settle(P);
      assert.equal(h.runsOf(id).length, 1, 'one run per slot');
    } finally {
      h.stop();
    }
  });
});

describe('scheduler concurrency', () => {
  test('at most `concurrency` checks run at once; a hanging check does not block the others', async () => {
    const P = 1_000;
    const ids = [11, 12, 13, 14, 15];
    // The job whose slot comes first hangs until the end of the test.
    const start = BASE;
    const bySlot = [...ids].sort((a, b) => slotFrom(start, P, a) - slotFrom(start, P, b));
    const slow = bySlot[0]!;
    const h = harness({ concurrency: 2, start, hang: () => true });
    try {
      for (const id of ids) h.scheduler.schedule(id, P);
      h.scheduler.start();
      // Every job's slot is passed at once (less than the gap threshold): all become due together.
      h.clock.advance(P);
      await advanceUntil(() => h.runs.length === 2, 'two checks running');
      await settle(50);
      assert.equal(h.runs.length, 2, 'no third check starts while two run');
      assert.deepEqual(h.scheduler.load, { running: 2, waiting: 3, jobs: 5 });
      assert.deepEqual(
        h.runs.map((r) => r.id),
        bySlot.slice(0, 2),
        'the earliest slots start first',
      );

      // The slow one keeps hanging; every other check gets its turn as the other slot frees.
      for (let i = 1; i < bySlot.length; i++) {
        const id = bySlot[i]!;
        await advanceUntil(() => h.hanging().includes(id), `job ${id} started`);
        assert.ok(h.hanging().includes(slow), 'the slow check is still running');
        assert.equal(h.inFlight(), 2);
        h.release(id);
      }
      await advanceUntil(() => h.inFlight() === 1, 'only the slow check is left');
      assert.deepEqual(h.scheduler.load, { running: 1, waiting: 0, jobs: 5 });
      assert.equal(h.maxInFlight(), 2, 'never more than two at once');
      for (const id of ids) assert.equal(h.runsOf(id).length, 1, `job ${id} ran once`);

      // Next period: the slow one is still busy and is skipped; the others run again.
      h.clock.advance(P);
      // One slot is free (the slow check holds the other): the next check starts, the rest wait.
      await advanceUntil(() => h.runs.length === 5 + 1, 'the next period started');
      await settle(50);
      assert.equal(h.runs.length, 6);
      for (let i = 1; i < bySlot.length; i++) {
        const id = bySlot[i]!;
        await advanceUntil(() => h.hanging().includes(id), `job ${id} ran again`);
        h.release(id);
      }
      await advanceUntil(() => h.inFlight() === 1, 'only the slow check is left again');
      assert.equal(h.runsOf(slow).length, 1, 'the busy job did not run twice');
      assert.equal(h.scheduler.stats.skippedBusy, 1);
      assert.equal(h.maxInFlight(), 2);
    } finally {
      h.stop();
    }
  });

  test('a job still running at its next slot is skipped, not run twice', async () => {
    const P = 100;
    const id = 5;
    const h = harness({ hang: () => true });
    try {
      h.scheduler.schedule(id, P);
      h.scheduler.start();
      h.clock.advance(P);
      await advanceUntil(() => h.runsOf(id).length === 1, 'the first run');
      for (let period = 1; period <= 3; period++) {
        h.clock.advance(P);
        await settle(P);
        assert.equal(h.runsOf(id).length, 1, 'no second run while the first hangs');
        assert.equal(h.scheduler.stats.skippedBusy, period);
      }
      assert.equal(h.scheduler.stats.started, 1);
      h.release(id);
      await advanceUntil(() => h.inFlight() === 0, 'the run ended');
      h.clock.advance(P);
      await advanceUntil(() => h.runsOf(id).length === 2, 'runs again once free');
      await settle(P);
      assert.equal(h.runsOf(id).length, 2);
      assert.equal(h.scheduler.stats.skippedBusy, 3);
    } finally {
      h.stop();
    }
  });
});

describe('scheduler under overload', () => {
  test('a job already waiting for a free slot is not queued again each period (no pile-up, no burst of stale checks)', async () => {
    const P = 100;
    const ids = [41, 42, 43];
    const h = harness({ concurrency: 1, hang: () => true });
    try {
      for (const id of ids) h.scheduler.schedule(id, P);
      h.scheduler.start();
      h.clock.advance(P);
      await advanceUntil(() => h.runs.length === 1, 'the first check is running');
      const [blocker] = h.hanging();
      const queued = ids.filter((id) => id !== blocker);
      // Four more periods pass while the single slot is held.
      for (let i = 0; i < 4; i++) {
        h.clock.advance(P);
        await settle(P);
      }
      assert.equal(h.scheduler.load.waiting, queued.length, `each waiting job is queued once, got ${h.scheduler.load.waiting} entries`);
      // Free the slot: each waiting job runs once, not once per period it waited.
      h.release(blocker!);
      for (let i = 0; i < 2 * queued.length + 2; i++) {
        await settle(20);
        for (const id of h.hanging()) h.release(id);
      }
      for (const id of queued) assert.equal(h.runsOf(id).length, 1, `job ${id} ran ${h.runsOf(id).length} times back to back`);
    } finally {
      h.stop();
    }
  });
});

describe('scheduler and the wall clock', () => {
  test('a jump forward (sleep) reports one gap and causes no burst of missed checks', async () => {
    const P = 200;
    const ids = [21, 22, 23, 24, 25, 26, 27, 28, 29, 30];
    const h = harness();
    try {
      for (const id of ids) h.scheduler.schedule(id, P);
      h.scheduler.start();
      h.clock.advance(P);
      await settle(P);
      const before = new Map(ids.map((id) => [id, h.runsOf(id).length]));
      for (const id of ids) assert.ok(before.get(id)! >= 1, `job ${id} ran before the sleep`);
      const asleepAt = h.clock.now();

      // Three hours pass at once. The new time is exactly the slot of one job.
      const woken = slotFrom(asleepAt + 3 * HOUR_MS, P, ids[0]!);
      h.clock.set(woken);
      await advanceUntil(() => h.gaps.length > 0, 'the gap is reported');
      await settle(P);
      assert.deepEqual(h.gaps, [[asleepAt, woken]], 'one gap, from the last look before the sleep to the wake');
      assert.equal(h.scheduler.stats.gaps, 1);
      for (const id of ids) {
        const after = h.runsOf(id).slice(before.get(id)!);
        const due = slotFrom(woken, P, id) === woken;
        assert.equal(after.length, due ? 1 : 0, `job ${id}: ${after.length} runs right after the wake (slot reached: ${due})`);
        for (const run of after) assert.equal(run.scheduledAt, woken, 'no stale slot from before the sleep runs');
      }

      // One period later every job has run exactly once more: on schedule, no catching up.
      h.clock.advance(P);
      await settle(P);
      for (const id of ids) {
        const after = h.runsOf(id).slice(before.get(id)!);
        assert.equal(after.length, id === ids[0] ? 2 : 1, `job ${id} after the wake and one period`);
        for (const run of after) {
          assert.ok(run.scheduledAt >= woken, 'only slots after the wake run');
          assert.equal((run.scheduledAt - offsetOf(id, P)) % P, 0, 'still on its own slots');
        }
      }
      assert.equal(h.gaps.length, 1, 'the gap is reported once');
      assert.equal(h.scheduler.stats.skippedBusy, 0, 'no pile of missed slots was even considered');
    } finally {
      h.stop();
    }
  });

  test('a clock set back an hour does not stop checks for an hour', async () => {
    const P = 200;
    const ids = [31, 32, 33, 34, 35];
    const h = harness();
    try {
      for (const id of ids) h.scheduler.schedule(id, P);
      h.scheduler.start();
      h.clock.advance(P);
      await settle(P);
      const before = new Map(ids.map((id) => [id, h.runsOf(id).length]));
      const setBackTo = h.clock.now() - HOUR_MS;
      h.clock.set(setBackTo);
      await settle(P);
      assert.deepEqual(h.gaps, [], 'nothing was missed: no gap is reported');

      for (let step = 1; step <= 2; step++) {
        h.clock.advance(P);
        await settle(P);
        for (const id of ids) {
          const after = h.runsOf(id).slice(before.get(id)!);
          // Within the first period after the change a job may or may not have hit its slot yet.
          assert.ok(after.length >= step && after.length <= step + 1, `job ${id} runs on the new clock (step ${step}: ${after.length})`);
          for (const run of after) {
            assert.ok(run.scheduledAt >= setBackTo && run.scheduledAt <= h.clock.now(), 'slots of the new time');
            assert.equal((run.scheduledAt - offsetOf(id, P)) % P, 0);
          }
        }
      }
      assert.equal(h.scheduler.stats.gaps, 1, 'the jump back was noticed');
    } finally {
      h.stop();
    }
  });

  test('a small clock drift forward is not a gap', async () => {
    const P = 200;
    const h = harness();
    try {
      h.scheduler.schedule(1, P);
      h.scheduler.start();
      h.clock.advance(5_000); // well under the gap threshold
      await settle(P);
      assert.deepEqual(h.gaps, []);
      assert.equal(h.scheduler.stats.gaps, 0);
      // The missed slots within those seconds are not replayed: one run, the others skipped.
      assert.equal(h.runsOf(1).length, 1);
    } finally {
      h.stop();
    }
  });
});

describe('scheduler changes', () => {
  test('unschedule stops a job; a new period moves it to the slots of that period', async () => {
    const P = 100;
    const h = harness();
    try {
      h.scheduler.schedule(1, P);
      h.scheduler.schedule(2, P);
      h.scheduler.schedule(2, P); // the same period again changes nothing
      assert.equal(h.scheduler.load.jobs, 2);
      h.scheduler.start();
      h.clock.advance(P);
      await settle(P);
      assert.ok(h.runsOf(1).length >= 1 && h.runsOf(2).length >= 1);

      h.scheduler.unschedule(1);
      assert.equal(h.scheduler.has(1), false);
      assert.equal(h.scheduler.has(2), true);
      assert.equal(h.scheduler.load.jobs, 1);
      const ones = h.runsOf(1).length;
      const twos = h.runsOf(2).length;
      for (let i = 0; i < 3; i++) {
        h.clock.advance(P);
        await settle(P);
      }
      assert.equal(h.runsOf(1).length, ones, 'an unscheduled job never runs again');
      assert.equal(h.runsOf(2).length, twos + 3);

      const P2 = 300;
      h.scheduler.schedule(2, P2);
      const moved = h.runsOf(2).length;
      const from = h.clock.now();
      for (let i = 0; i < 6; i++) {
        h.clock.advance(P);
        await settle(P);
      }
      const after = h.runsOf(2).slice(moved);
      // The slots of the new period within [from, from + 600]: two, or three if one is exactly at `from`.
      const expected = slotFrom(from, P2, 2) === from ? 3 : 2;
      assert.equal(after.length, expected, `runs in two periods of ${P2} ms, got ${after.map((r) => r.scheduledAt - from).join(', ')}`);
      for (const run of after) assert.equal((run.scheduledAt - offsetOf(2, P2)) % P2, 0, 'at the slots of the new period');
      assert.equal(h.scheduler.stats.skippedBusy, 0);
    } finally {
      h.stop();
    }
  });

  test('a job unscheduled and scheduled again (paused, then resumed with a new period) runs once per period', async () => {
    const P1 = 200;
    const P2 = 400;
    const id = 7;
    const h = harness();
    try {
      h.scheduler.schedule(id, P1);
      h.scheduler.start();
      await settle(P1);
      h.scheduler.unschedule(id);
      h.scheduler.schedule(id, P2);
      const from = h.clock.now();
      for (let i = 0; i < 8; i++) {
        h.clock.advance(P1 / 2);
        await settle(P1 / 2);
      }
      // 800 ms of clock at a 400 ms period: two runs (three if a slot is exactly at `from`), all on the new period's slots.
      const runs = h.runsOf(id).filter((r) => r.scheduledAt >= from);
      assert.deepEqual(
        runs.map((r) => (r.scheduledAt - offsetOf(id, P2)) % P2),
        runs.map(() => 0),
        `runs at ${runs.map((r) => r.scheduledAt - from).join(', ')} ms: some are on the old period's slots`,
      );
      assert.equal(runs.length, slotFrom(from, P2, id) === from ? 3 : 2);
    } finally {
      h.stop();
    }
  });

  test('a job paused and resumed with the same period is not counted as busy every period', async () => {
    const P = 100;
    const id = 9;
    const h = harness();
    try {
      h.scheduler.schedule(id, P);
      h.scheduler.start();
      h.scheduler.unschedule(id);
      h.scheduler.schedule(id, P);
      for (let i = 0; i < 4; i++) {
        h.clock.advance(P);
        await settle(P);
      }
      assert.equal(h.runsOf(id).length, 4);
      assert.equal(h.scheduler.stats.skippedBusy, 0, 'nothing was busy: each run ends at once');
    } finally {
      h.stop();
    }
  });

  test('stop ends scheduling; no run starts after it', async () => {
    const P = 100;
    const h = harness();
    try {
      h.scheduler.schedule(1, P);
      h.scheduler.start();
      h.clock.advance(P);
      await settle(P);
      const count = h.runs.length;
      h.scheduler.stop();
      h.clock.advance(3 * P);
      await settle(P);
      assert.equal(h.runs.length, count);
    } finally {
      h.stop();
    }
  });
});
