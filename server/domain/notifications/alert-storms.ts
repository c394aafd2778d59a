import type { CheckOutcome } from '../monitors/check-results.ts';

/**
 * What keeps a channel from being flooded: a monitor that flaps sends one alert with the count,
 * not one per flip (FlapGuard), and a channel told of a change is told of the others of the same
 * kind that follow within a minute in one grouped alert (ChannelGroups). Both are plain state
 * over the times they are given, so that the alert service drives them with its clock and tests
 * with theirs.
 */

export const STORM_RULES = {
  /** The span in which `flapChanges` changes of one monitor make it flapping, and the quiet that ends it. */
  flapWindowMs: 10 * 60_000,
  flapChanges: 5,
  /** After an alert to a channel, the span in which more alerts of the same kind are gathered into one. */
  groupWindowMs: 60_000,
} as const;

export type FlapVerdict =
  /** Not flapping: send it as it is. */
  | { action: 'send' }
  /** This change made the monitor flapping: send one alert saying so, with the count. */
  | { action: 'flapping'; changes: number }
  /** Flapping already said: hold the change. */
  | { action: 'hold' };

interface FlapState {
  /** Times of the changes within the window, oldest first. */
  changes: number[];
  /** Since when the monitor has been flapping; null when it is not. */
  since: number | null;
  /** Changes since the flapping was said. */
  held: number;
  /** The state the channels were last told. */
  told: CheckOutcome | null;
  /** The state now. */
  now: CheckOutcome;
}

/** Flapping by monitor: `flapChanges` changes within `flapWindowMs`. */
export class FlapGuard {
  readonly #monitors = new Map<number, FlapState>();
  readonly #rules: Pick<typeof STORM_RULES, 'flapWindowMs' | 'flapChanges'>;

  constructor(rules: Pick<typeof STORM_RULES, 'flapWindowMs' | 'flapChanges'> = STORM_RULES) {
    this.#rules = rules;
  }

  /** A change of a monitor's result to `to` at `at` (epoch ms): whether and how to alert. */
  admit(monitorId: number, to: CheckOutcome, at: number): FlapVerdict {
    const state = this.#monitors.get(monitorId) ?? { changes: [], since: null, held: 0, told: null, now: to };
    this.#monitors.set(monitorId, state);
    state.now = to;
    state.changes = state.changes.filter((t) => at - t < this.#rules.flapWindowMs);
    state.changes.push(at);
    if (state.since !== null) {
      state.held++;
      return { action: 'hold' };
    }
    if (state.changes.length >= this.#rules.flapChanges) {
      state.since = at;
      state.held = 0;
      state.told = to;
      return { action: 'flapping', changes: state.changes.length };
    }
    state.told = to;
    return { action: 'send' };
  }

  /**
   * The monitors whose flapping ended by `now` (no change for a whole window): each with the
   * changes held since it was said, and its state if the channels were told another.
   */
  settle(now: number): { monitorId: number; held: number; to: CheckOutcome | null }[] {
    const settled: { monitorId: number; held: number; to: CheckOutcome | null }[] = [];
    for (const [monitorId, state] of this.#monitors) {
      const last = state.changes.at(-1) ?? 0;
      if (now - last < this.#rules.flapWindowMs) continue;
      if (state.since !== null) settled.push({ monitorId, held: state.held, to: state.now === state.told ? null : state.now });
      this.#monitors.delete(monitorId);
    }
    return settled;
  }

  /** Whether a monitor is flapping now. */
  isFlapping(monitorId: number): boolean {
    return this.#monitors.get(monitorId)?.since != null;
  }
}

/** A channel's window of gathering for one kind of alert. */
interface Window<T> {
  opened: number;
  held: T[];
}

/**
 * Grouping by channel: the first alert of a kind goes at once and opens a window of
 * `groupWindowMs`; the alerts of that kind that follow within it are held, and go as one when
 * it closes. A lone alert is never delayed.
 */
export class ChannelGroups<T> {
  readonly #windows = new Map<string, Window<T>>();
  readonly #windowMs: number;

  constructor(windowMs: number = STORM_RULES.groupWindowMs) {
    this.#windowMs = windowMs;
  }

  /** An alert of `kind` for channel `channelId` at `at`: send it now, or held for the window's end. */
  admit(channelId: number, kind: string, item: T, at: number): 'send' | 'hold' {
    const key = `${channelId}:${kind}`;
    const window = this.#windows.get(key);
    if (window && at - window.opened < this.#windowMs) {
      window.held.push(item);
      return 'hold';
    }
    this.#windows.set(key, { opened: at, held: [] });
    return 'send';
  }

  /** The windows closed by `now` that hold alerts: what each channel is to be sent, by kind. */
  due(now: number): { channelId: number; kind: string; items: T[] }[] {
    const due: { channelId: number; kind: string; items: T[] }[] = [];
    for (const [key, window] of this.#windows) {
      if (now - window.opened < this.#windowMs) continue;
      this.#windows.delete(key);
      if (window.held.length === 0) continue;
      const [channelId, kind] = [Number(key.slice(0, key.indexOf(':'))), key.slice(key.indexOf(':') + 1)];
      due.push({ channelId, kind, items: window.held });
    }
    return due;
  }

  /** When the next window closes, or undefined when none is open with alerts held. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const window of this.#windows.values()) if (window.held.length > 0) next = Math.min(next ?? Infinity, window.opened + this.#windowMs);
    return next;
  }
}
