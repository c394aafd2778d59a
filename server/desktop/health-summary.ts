import type { Actor } from '../domain/actor.ts';
import type { Services } from '../services.ts';
import type { HealthSummary, OverallHealth } from './host-protocol.ts';

/** Down monitors named per workspace: more than a tray menu shows; the counts stay whole. */
const MOST_DOWN_PER_WORKSPACE = 200;

/** The health of every monitor in every workspace of `owner`, from what the overview reads. */
export async function healthSummary(services: Services, owner: Actor): Promise<HealthSummary> {
  const counts = { up: 0, degraded: 0, down: 0, pending: 0, paused: 0 };
  const down: HealthSummary['down'] = [];
  for (const workspace of await services.workspaces.list(owner)) {
    const overview = await services.monitorViews.overview(owner, Number(workspace.id), { state: 'down', limit: String(MOST_DOWN_PER_WORKSPACE) });
    for (const state of Object.keys(counts) as (keyof typeof counts)[]) counts[state] += overview.counts[state];
    for (const monitor of overview.monitors) down.push({ monitorId: monitor.id, name: monitor.name, workspaceId: workspace.id });
  }
  return { overall: overallOf(counts), down, counts };
}

function overallOf(counts: HealthSummary['counts']): OverallHealth {
  if (counts.down > 0) return 'down';
  if (counts.degraded > 0) return 'degraded';
  if (counts.up > 0) return 'up';
  return 'unknown';
}

/**
 * Runs `work` after each poke, at most once per `intervalMs`: a burst of pokes (a thousand
 * monitors changing state at once) makes one run, and pokes during a run make one more after it.
 * `work` reports its own failures: it must not reject.
 */
export function coalesce(work: () => Promise<void>, intervalMs: number): { poke(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let dirty = false;
  let stopped = false;
  let lastStart = 0;

  function schedule(): void {
    if (timer || running || stopped || !dirty) return;
    timer = setTimeout(run, Math.max(0, lastStart + intervalMs - Date.now()));
  }

  function run(): void {
    timer = undefined;
    dirty = false;
    lastStart = Date.now();
    running = work().finally(() => {
      running = undefined;
      schedule();
    });
  }

  return {
    poke() {
      dirty = true;
      schedule();
    },
    /** No more runs; resolves when the one in progress ends. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
