// The overview's sparkline, and the words and runs every chart shares: kept apart from the other
// charts (charts.tsx), so that the first screen loads only what it draws.
import './sparkline.css';

/** "850 ms", "1.2 s", "14 s": latencies as people read them. */
export function formatMs(ms: number): string {
  if (ms === 0) return '0 ms';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}

/** Runs of consecutive values without a null, with their indexes: a line breaks where data is missing. */
export function runs<T>(values: T[], present: (value: T) => boolean): { index: number; value: T }[][] {
  const out: { index: number; value: T }[][] = [];
  let current: { index: number; value: T }[] = [];
  values.forEach((value, index) => {
    if (present(value)) current.push({ index, value });
    else if (current.length) {
      out.push(current);
      current = [];
    }
  });
  if (current.length) out.push(current);
  return out;
}

const SPARK_W = 96;
const SPARK_H = 24;

/** The last 24 hours' median latency per hour, oldest first; hours without checks leave a gap. */
export function Sparkline({ values }: { values: (number | null)[] }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) {
    return (
      <span className="sparkline-none muted small" role="img" aria-label="No checks in the last 24 hours">
        No data
      </span>
    );
  }
  const max = Math.max(...present, 1);
  const step = values.length > 1 ? SPARK_W / (values.length - 1) : 0;
  const x = (i: number) => (values.length > 1 ? i * step : SPARK_W / 2);
  const y = (v: number) => SPARK_H - 2 - (v / max) * (SPARK_H - 4);
  const label = `Median latency over 24 hours: lowest ${formatMs(Math.min(...present))}, highest ${formatMs(Math.max(...present))}, latest ${formatMs(present[present.length - 1]!)}`;
  return (
    <svg className="sparkline" viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} width={SPARK_W} height={SPARK_H} role="img" aria-label={label}>
      {runs(values, (v) => v !== null).map((run) =>
        run.length === 1 ? (
          <circle key={run[0]!.index} cx={x(run[0]!.index)} cy={y(run[0]!.value!)} r="1.6" className="sparkline-point" />
        ) : (
          <polyline key={run[0]!.index} points={run.map((p) => `${x(p.index).toFixed(1)},${y(p.value!).toFixed(1)}`).join(' ')} />
        ),
      )}
    </svg>
  );
}
