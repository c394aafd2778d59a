// A monitor's state shown the same way on every screen: a colour, a shape and a word, so the
// state reads without colour (colour-blind users, high-contrast modes, a printed page).
import type { MonitorState, MonitorType } from './api.ts';
import './status.css';

export const STATE_LABELS: Record<MonitorState, string> = {
  up: 'Up',
  degraded: 'Degraded',
  down: 'Down',
  pending: 'Pending',
  paused: 'Paused',
};

/** A monitor's type as people write it, shown beside its state. */
export const TYPE_LABELS: Record<MonitorType, string> = {
  tcp: 'TCP',
  grpc: 'gRPC',
  http: 'HTTP',
  mcp: 'MCP',
  ping: 'Ping',
  certificate: 'Certificate',
  websocket: 'WebSocket',
  dns: 'DNS',
  heartbeat: 'Heartbeat',
};

/** Every state, worst first: the order counts and filters list them in. */
export const MONITOR_STATES: readonly MonitorState[] = ['down', 'degraded', 'up', 'pending', 'paused'];

/** One shape per state: a circle is fine, a triangle is a warning, a square is down. */
function Shape({ state }: { state: MonitorState }) {
  switch (state) {
    case 'up':
      return <circle cx="5" cy="5" r="4" />;
    case 'degraded':
      return <path d="M5 0.8 9.4 9H0.6z" />;
    case 'down':
      return <rect x="1" y="1" width="8" height="8" rx="1" />;
    case 'pending':
      return <circle cx="5" cy="5" r="3.4" className="status-hollow" />;
    case 'paused':
      return <path d="M1.5 1h2.6v8H1.5zM5.9 1h2.6v8H5.9z" />;
  }
}

/** The state's shape in its colour, without the word: for places that already say it (a filter count with a label). */
export function StatusDot({ state, className }: { state: MonitorState; className?: string }) {
  return (
    <svg className={`status-dot status-${state}${className ? ` ${className}` : ''}`} viewBox="0 0 10 10" aria-hidden="true" focusable="false">
      <Shape state={state} />
    </svg>
  );
}

/** The state's shape and word; `label` replaces the word (a region's "Error" says more than "Down"). */
export function StatusBadge({ state, label, className }: { state: MonitorState; label?: string; className?: string }) {
  return (
    <span className={`status-badge status-${state}${className ? ` ${className}` : ''}`}>
      <StatusDot state={state} />
      {label ?? STATE_LABELS[state]}
    </span>
  );
}
