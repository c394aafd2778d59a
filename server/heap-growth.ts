import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what its last full collection left live, before the next:
 * 40 % over it. V8 chooses up to 300 % by itself, tuned for pages and scripts that end, and a
 * service that runs for weeks keeps the high-water mark: at 100,000 monitors the live heap is
 * about 150 MB, and the heap grew to 530 MB between collections (RSS 750 MB). At 40 % it stays
 * under 290 MB (RSS 470 MB), for about 3 % more CPU a check (bench/checks.ts, its scale part).
 * Set by every process that runs the service, once it has started (see startService).
 */
const HEAP_GROWING_PERCENT = 40;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
