import { networkInterfaces } from 'node:os';

/**
 * Whether this machine has lost its network (a laptop on a train, or just woken from sleep): its
 * checks then fail for a reason of its own, not of their targets, and their alerts are held until
 * it is back (domain/notifications/alerts.ts). Two signs, either enough:
 *
 * - no interface with an address other than loopback and link-local: no network at all;
 * - within a minute, the checks of several monitors all failed in a way only this machine's
 *   network explains (network unreachable, no address to send from, the resolver not answering),
 *   and no check of a target beyond loopback went through.
 *
 * The watch is plain state over the checks and times it is given, so the engine drives it with its
 * clock and tests with theirs.
 */

/** Failures that say this machine cannot reach any network, whatever the target. */
const NETWORK_GONE = /network unreachable|address not available|the resolver did not answer/;

/** Whether the machine has an interface with a routable address (not loopback, not link-local). */
export function hasNetwork(): boolean {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.internal) continue;
      if (address.family === 'IPv4' && !address.address.startsWith('169.254.')) return true;
      if (address.family === 'IPv6' && !/^fe[89ab]/i.test(address.address)) return true;
    }
  }
  return false;
}

export interface OfflineState {
  /** Since when the machine has been offline (epoch ms). */
  since: number;
  /** Why it is thought offline, in words. */
  reason: string;
}

export interface OfflineWatchOptions {
  /** Whether the machine has a network now; `hasNetwork` by default. */
  network?: () => boolean;
  /** The span in which the failures of several monitors are read together. */
  windowMs?: number;
  /** How many monitors failing the same way make the machine offline. */
  minMonitors?: number;
}

/** A check as the watch reads it. */
export interface WatchedCheck {
  monitorId: number;
  result: 'up' | 'degraded' | 'down';
  message: string;
  /** Epoch ms. */
  at: number;
  /** Whether its target is on this machine (loopback): it says nothing of the network. */
  local: boolean;
}

export function createOfflineWatch(options: OfflineWatchOptions = {}) {
  const network = options.network ?? hasNetwork;
  const windowMs = options.windowMs ?? 60_000;
  const minMonitors = options.minMonitors ?? 3;
  /** Monitors whose latest check failed as if the network were gone, and when. */
  const failing = new Map<number, number>();
  let lastThrough = Number.NEGATIVE_INFINITY;
  let state: OfflineState | undefined;
  const listeners = new Set<(change: { offline: OfflineState } | { online: OfflineState & { until: number } }) => void>();

  function set(next: OfflineState | undefined, at: number): void {
    if (Boolean(next) === Boolean(state)) return;
    const before = state;
    state = next;
    for (const listener of listeners) listener(next ? { offline: next } : { online: { ...before!, until: at } });
  }

  return {
    /** Reads a check; says whether the machine is offline after it. */
    noteCheck(check: WatchedCheck): OfflineState | undefined {
      if (check.result !== 'down') {
        failing.delete(check.monitorId);
        if (!check.local) {
          lastThrough = check.at;
          set(undefined, check.at);
        }
        return state;
      }
      // A target on this machine answers with or without a network: its failure is its own.
      if (state || check.local) return state;
      if (!network()) {
        set({ since: check.at, reason: 'this machine has no network: no interface has an address beyond loopback' }, check.at);
        return state;
      }
      if (!NETWORK_GONE.test(check.message)) {
        failing.delete(check.monitorId);
        return state;
      }
      failing.set(check.monitorId, check.at);
      for (const [id, at] of failing) if (check.at - at > windowMs) failing.delete(id);
      if (failing.size >= minMonitors && check.at - lastThrough > windowMs) {
        set({ since: Math.min(...failing.values()), reason: `the checks of ${failing.size} monitors failed the same way: ${check.message}` }, check.at);
      }
      return state;
    },

    /** Looks at the network again (the engine asks every few seconds while offline): back when it has one and a check goes through. */
    recheck(at: number): void {
      if (state && state.reason.startsWith('this machine has no network') && network()) set(undefined, at);
    },

    /** Whether the machine is offline now, since when and why. */
    get state(): OfflineState | undefined {
      return state;
    },

    /** Hears each change: offline (since when, why), and online again (the span). */
    onChange(listener: (change: { offline: OfflineState } | { online: OfflineState & { until: number } }) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type OfflineWatch = ReturnType<typeof createOfflineWatch>;
