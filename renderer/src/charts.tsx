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

/** The chart's content in one sentence. */
export function latencySummary(series: LatencySeries): string {
  const of = (key: 'p50' | 'p95' | 'p99') => series.points.map((p) => p[key]).filter((v): v is number => v !== null);
  const p50 = of('p50');
  const gaps = series.gaps.length;
  const gapWords = gaps === 0 ? 'Checks ran throughout.' : `${gaps === 1 ? 'One span' : `${gaps} spans`} without checks (shaded).`;
  if (p50.length === 0) return `No check latencies in ${WINDOW_WORDS[series.window]}. ${gapWords}`;
  const median = [...p50].sort((a, b) => a - b)[Math.floor(p50.length / 2)]!;
  const p95 = of('p95');
  const p99 = of('p99');
  const down = series.points.reduce((sum, p) => sum + p.down, 0);
  return [
    `Over ${WINDOW_WORDS[series.window]}: p50 typically ${formatMs(median)}`,
    p95.length ? `, p95 at most ${formatMs(Math.max(...p95))}` : '',
    p99.length ? `, p99 at most ${formatMs(Math.max(...p99))}` : '',
    '. ',
    down > 0 ? `${down} ${down === 1 ? 'check was' : 'checks were'} down. ` : '',
    gapWords,
  ].join('');
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

/** p50, p95 and p99 per bucket, with the spans in which no check ran shaded; a sentence when there is nothing to draw. */
export function LatencyChart({ series, now = Date.now() }: { series: LatencySeries; now?: number }) {
  const drawable = series.gaps.length > 0 || series.points.some((p) => p.p50 !== null || p.p95 !== null || p.p99 !== null);
  if (!drawable) return <p className="empty">{latencySummary(series)}</p>;
  return <LatencyPlot series={series} now={now} />;
}

function LatencyPlot({ series, now }: { series: LatencySeries; now: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const summaryId = `latency-summary-${series.window}`;
  const end = now;
  const start = end - WINDOW_MS[series.window];
  const values = series.points.flatMap((p) => [p.p50, p.p95, p.p99]).filter((v): v is number => v !== null);
  const top = niceCeiling(Math.max(...values, 1));
  const innerW = Math.max(0, width - PAD.left - PAD.right);
  const innerH = CHART_H - PAD.top - PAD.bottom;
  const x = (at: number) => PAD.left + ((at - start) / (end - start)) * innerW;
  const y = (ms: number) => PAD.top + innerH - (ms / top) * innerH;
  const times = series.points.map((p) => new Date(p.at).getTime() + series.bucketMs / 2);
  // A label needs about 90 px: fewer of them on a narrow window.
  const tickCount = Math.max(2, Math.min(5, Math.floor(innerW / 90)));
  const ticks = Array.from({ length: tickCount }, (_, i) => start + ((end - start) * i) / (tickCount - 1));
  const tickLabel = (at: number) =>
    series.window === '1d'
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
            {PERCENTILES.map(({ key }) =>
              runs(series.points, (p) => p[key] !== null).map((run) =>
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
          <span className="legend-gap" aria-hidden="true" />
          Service not running
        </li>
      </ul>
      <figcaption id={summaryId} className="chart-summary">
        {latencySummary(series)}
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
