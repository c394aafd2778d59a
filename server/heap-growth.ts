import { setFlagsFromString } from 'node:v8';

/**
 * How the service's V8 heap is held down. Two settings, as V8 takes them:
 *
 * - The young generation (where every object starts) is a flag of the process's start: V8 sizes
 *   it then, and ignores it set later. Node's default lets it grow to 128 MB, and at 100,000
 *   monitors it does: 134 of the 240 MB of heap committed, for a few MB of objects alive at once
 *   (checks in flight, the batch being stored). Every command that runs the service passes
 *   SERVICE_NODE_FLAGS: `npm start`, the `statusdesk` command's first line, the desktop app's
 *   service process, and the benches that start the service.
 * - How far the heap grows past what its last full collection left live is set by the service's
 *   first line (limitHeapGrowth).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * How far V8 lets the heap grow past what its last full collection left live, before the next:
 * 40 % over it. V8 chooses up to 300 % by itself, tuned for pages and scripts that end, and a
 * service that runs for weeks keeps the high-water mark: at 100,000 monitors the live heap is
 * about 150 MB, and the heap grew to 530 MB between collections (RSS 750 MB). At 40 % it stays
 * under 290 MB (RSS 470 MB), for about 3 % more CPU a check (bench/checks.ts, its scale part).
 * Set by the first line of every process that runs the service (startService): a limit counts
 * from the next full collection on, and until then the last one V8 set holds. Set once the engine
 * had started, the start's last collection left V8's own limit in place (its factor goes up to
 * 4): in one of eight runs at 100,000 monitors the heap reached 273 MB in the first 30 s, 4 × the
 * 68 MB a start leaves live, and the RSS 498 MB. It does not slow a start: ready with 10,000
 * monitors in 103 to 131 ms either way (bench/startup.ts), the engine's start at 100,000 in 606
 * and 658 ms against 630 ms (bench/checks.ts).
 */
const HEAP_GROWING_PERCENT = 40;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
