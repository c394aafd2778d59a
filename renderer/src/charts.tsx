// Charts drawn as inline SVG by React: the Content-Security-Policy allows no chart library that
// evaluates code or loads from elsewhere, and SVG follows the theme through CSS custom properties.
// Each chart says in words what it shows, for screen readers and for anyone who cannot tell the
// lines apart.
import { useEffect, useRef, useState } from 'react';
import type { LatencySeries, Timing } from './api.ts';
import './charts.css';
import { formatMs, runs } from './sparkline.tsx';

/** The width of an element, followed as the window or the layout changes. */
function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

const WINDOW_MS: Record<LatencySeries['window'], number> = { '1d': 86_400_000, '7d': 7 * 86_400_000, '14d': 14 * 86_400_000 };
const WINDOW_WORDS: Record<LatencySeries['window'], string> = { '1d': 'the last 24 hours', '7d': 'the last 7 days', '14d': 'the last 14 days' };

export const PERCENTILES = [
  { key: 'p50', label: 'p50 (median)' },
  { key: 'p95', label: 'p95' },
  { key: 'p99', label: 'p99' },
] as const;

/**
 * What the chart spans: the window, or since the monitor was created when that is later (a chart
 * of 24 hours for a monitor minutes old is all empty space).
 */
export function chartSpan(series: LatencySeries, now: number, since?: string | null): { start: number; end: number; young: boolean } {
  const windowStart = now - WINDOW_MS[series.window];
  const created = since ? new Date(since).getTime() : Number.NaN;
  const young = created > windowStart && created < now;
  // At least one bucket wide: a monitor a minute old still gets a chart its points fit in.
  return { start: young ? Math.max(windowStart, Math.min(created, now - series.bucketMs)) : windowStart, end: now, young };
}

/** The points of the series within the span (a bucket that ends after it starts). */
const pointsIn = (series: LatencySeries, start: number) => series.points.filter((p) => new Date(p.at).getTime() + series.bucketMs > start);

/** The chart's content in one sentence. `since`: when the monitor was created. */
export function latencySummary(series: LatencySeries, now = Date.now(), since?: string | null): string {
  const { start, young } = chartSpan(series, now, since);
  const points = pointsIn(series, start);
  const spanWords = young ? 'since the monitor was created' : WINDOW_WORDS[series.window];
  const of = (key: 'p50' | 'p95' | 'p99') => points.map((p) => p[key]).filter((v): v is number => v !== null);
  const p50 = of('p50');
  const gaps = series.gaps.filter((gap) => new Date(gap.endedAt).getTime() > start).length;
  const down = points.reduce((sum, p) => sum + p.down, 0);
  const checks = points.reduce((sum, p) => sum + p.up + p.degraded + p.down, 0);
  // "Checks ran throughout" only where some did.
  const gapWords = gaps > 0 ? `${gaps === 1 ? 'One span' : `${gaps} spans`} without checks (shaded).` : checks > 0 ? 'Checks ran throughout.' : '';
  const downWords = down > 0 ? `${down} ${down === 1 ? 'check' : 'checks'} failed (marked below the lines). ` : '';
  if (p50.length === 0) {
    const none = checks === 0 ? `No checks ran ${spanWords}.` : `No check answered ${spanWords}.`;
    return [none, downWords.trim(), gapWords].filter(Boolean).join(' ');
  }
  const median = [...p50].sort((a, b) => a - b)[Math.floor(p50.length / 2)]!;
  const p95 = of('p95');
  const p99 = of('p99');
  return [
    `${young ? 'Since the monitor was created' : `Over ${WINDOW_WORDS[series.window]}`}: p50 typically ${formatMs(median)}`,
    p95.length ? `, p95 at most ${formatMs(Math.max(...p95))}` : '',
    p99.length ? `, p99 at most ${formatMs(Math.max(...p99))}` : '',
    '. ',
    downWords,
    gapWords,
  ]
    .join('')
    .trim();
}

/** A round number at or above `value`, for the top of an axis: 1, 2 or 5 times a power of ten. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const CHART_H = 220;
const PAD = { top: 12, right: 12, bottom: 26, left: 52 };

/**
 * p50, p95 and p99 per bucket, failed checks marked under the lines, the spans in which no check
 * ran shaded; a sentence when there is nothing to draw. `since`: when the monitor was created, where
 * the chart starts when that is within the window.
 */
export function LatencyChart({ series, now = Date.now(), since }: { series: LatencySeries; now?: number; since?: string | null }) {
  const { start } = chartSpan(series, now, since);
  const points = pointsIn(series, start);
  const drawable =
    series.gaps.some((gap) => new Date(gap.endedAt).getTime() > start) || points.some((p) => p.p50 !== null || p.p95 !== null || p.p99 !== null || p.down > 0);
  if (!drawable) return <p className="empty">{latencySummary(series, now, since)}</p>;
  return <LatencyPlot series={series} now={now} since={since} />;
}

const FAILED_MARK = 6;

function LatencyPlot({ series, now, since }: { series: LatencySeries; now: number; since?: string | null }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const summaryId = `latency-summary-${series.window}`;
  const { start, end, young } = chartSpan(series, now, since);
  const shown = { ...series, points: pointsIn(series, start) };
  const values = shown.points.flatMap((p) => [p.p50, p.p95, p.p99]).filter((v): v is number => v !== null);
  const top = niceCeiling(Math.max(...values, 1));
  const innerW = Math.max(0, width - PAD.left - PAD.right);
  const innerH = CHART_H - PAD.top - PAD.bottom;
  const x = (at: number) => PAD.left + ((at - start) / (end - start)) * innerW;
  const y = (ms: number) => PAD.top + innerH - (ms / top) * innerH;
  // A bucket's point sits at its middle, kept within the span: the first bucket may start before
  // it, and the current one ends after now.
  const times = shown.points.map((p) => Math.min(end, Math.max(start, new Date(p.at).getTime() + series.bucketMs / 2)));
  // A label needs about 90 px: fewer of them on a narrow window.
  const tickCount = Math.max(2, Math.min(5, Math.floor(innerW / 90)));
  const ticks = Array.from({ length: tickCount }, (_, i) => start + ((end - start) * i) / (tickCount - 1));
  const tickLabel = (at: number) =>
    series.window === '1d' || (young && end - start <= WINDOW_MS['1d'])
      ? new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : new Date(at).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });

  return (
    <figure className="latency-chart">
      <div ref={ref} className="latency-chart-canvas">
        {width > 0 ? (
          <svg width={width} height={CHART_H} role="img" aria-labelledby={summaryId}>
            {series.gaps.map((gap) => {
              const from = Math.max(start, new Date(gap.startedAt).getTime());
              const to = Math.min(end, new Date(gap.endedAt).getTime());
              if (to <= from) return null;
              return <rect key={gap.startedAt} className="chart-gap" x={x(from)} y={PAD.top} width={Math.max(1, x(to) - x(from))} height={innerH} />;
            })}
            {[0, top / 2, top].map((ms) => (
              <g key={ms} className="chart-grid">
                <line x1={PAD.left} x2={PAD.left + innerW} y1={y(ms)} y2={y(ms)} />
                <text x={PAD.left - 8} y={y(ms)} dy="0.32em" textAnchor="end">
                  {formatMs(ms)}
                </text>
              </g>
            ))}
            {ticks.map((at, i) => (
              <text key={at} className="chart-tick" x={x(at)} y={CHART_H - 6} textAnchor={i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'}>
                {tickLabel(at)}
              </text>
            ))}
            {shown.points.map((p, i) =>
              p.down > 0 ? (
                <rect
                  key={`failed-${p.at}`}
                  className="chart-failed"
                  x={x(times[i]!) - FAILED_MARK / 2}
                  y={PAD.top + innerH - FAILED_MARK - 1}
                  width={FAILED_MARK}
                  height={FAILED_MARK}
                  rx="1"
                />
              ) : null,
            )}
            {PERCENTILES.map(({ key }) =>
              runs(shown.points, (p) => p[key] !== null).map((run) =>
                run.length === 1 ? (
                  <circle
                    key={`${key}-${run[0]!.index}`}
                    className={`chart-point chart-${key}`}
                    cx={x(times[run[0]!.index]!)}
                    cy={y(run[0]!.value[key]!)}
                    r="2.5"
                  />
                ) : (
                  <polyline
                    key={`${key}-${run[0]!.index}`}
                    className={`chart-line chart-${key}`}
                    points={run.map((p) => `${x(times[p.index]!).toFixed(1)},${y(p.value[key]!).toFixed(1)}`).join(' ')}
                  />
                ),
              ),
            )}
          </svg>
        ) : null}
      </div>
      <ul className="chart-legend" aria-label="Legend">
        {PERCENTILES.map(({ key, label }) => (
          <li key={key}>
            <svg className="legend-swatch" width="24" height="10" aria-hidden="true">
              <line className={`chart-line chart-${key}`} x1="0" x2="24" y1="5" y2="5" />
            </svg>
            {label}
          </li>
        ))}
        <li>
          <svg className="legend-swatch" width="10" height="10" aria-hidden="true">
            <rect className="chart-failed" x="2" y="2" width={FAILED_MARK} height={FAILED_MARK} rx="1" />
          </svg>
          Failed checks
        </li>
        <li>
          <span className="legend-gap" aria-hidden="true" />
          Service not running
        </li>
      </ul>
      <figcaption id={summaryId} className="chart-summary">
        {latencySummary(series, now, since)}
      </figcaption>
    </figure>
  );
}

export const PHASES = [
  { key: 'dns', label: 'DNS' },
  { key: 'connect', label: 'Connect' },
  { key: 'tls', label: 'TLS' },
  { key: 'ttfb', label: 'First byte' },
  { key: 'transfer', label: 'Transfer' },
] as const;

/** A check's phases as one stacked bar, each part labelled with its name and duration. */
export function PhaseBar({ timing }: { timing: Timing }) {
  const phases = PHASES.map((phase) => ({ ...phase, ms: timing[phase.key] })).filter((p): p is typeof p & { ms: number } => p.ms !== null);
  if (phases.length === 0) return <span className="muted small">No phases recorded</span>;
  const sum = phases.reduce((total, p) => total + p.ms, 0);
  return (
    <div className="phase-bar">
      <div className="phase-track" aria-hidden="true">
        {phases.map((p) => (
          <span key={p.key} className={`phase phase-${p.key}`} style={{ flexGrow: sum > 0 ? p.ms / sum : 1 }} />
        ))}
      </div>
      <ul className="phase-labels" aria-label="Phases">
        {phases.map((p) => (
          <li key={p.key}>
            <span className={`phase-swatch phase-${p.key}`} aria-hidden="true" />
            {p.label} {formatMs(p.ms)}
          </li>
        ))}
      </ul>
    </div>
  );
}
