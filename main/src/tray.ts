// The tray: its icon, tooltip and menu as plain data, from the service's last health report and the
// supervisor's state. The adapter turns the items into a native menu and carries out their actions.
import type { HealthSummary, OverallHealth } from '../../server/desktop/host-protocol.ts';
import type { SupervisorState } from './supervisor.ts';

export type TrayAction = { type: 'open'; path: string } | { type: 'toggle-open-at-login' } | { type: 'install-cli' } | { type: 'quit' };

export type TrayItem = { separator?: false; label: string; enabled: boolean; checked?: boolean; action?: TrayAction } | { separator: true };

export interface TrayModel {
  icon: OverallHealth;
  tooltip: string;
  items: TrayItem[];
}

/** Down monitors listed by name; the rest are one "and N more" line, so the menu fits the screen. */
export const MAX_LISTED_DOWN = 10;
/** Menu labels are one line of readable length, whatever a monitor is called. */
const MAX_LABEL = 60;

const SEPARATOR: TrayItem = { separator: true };

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** A monitor's name as one line of bounded length (names are set by anyone with a write key). */
export function oneLine(text: string, max = MAX_LABEL): string {
  const line = text.replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The status line: the service's state while it is not running, else what the monitors say. */
function statusLine(health: HealthSummary | undefined, state: SupervisorState): string {
  if (state === 'starting') return 'Starting…';
  if (state === 'restarting') return 'Restarting after a crash…';
  if (state === 'stopped') return 'Stopped';
  if (!health) return 'Waiting for the first checks…';
  const { up, degraded, down, pending, paused } = health.counts;
  const total = up + degraded + down + pending + paused;
  if (total === 0) return 'No monitors yet';
  const parts = [
    down > 0 ? `${down} down` : '',
    degraded > 0 ? `${degraded} degraded` : '',
    up > 0 ? `${up} up` : '',
    pending > 0 ? `${pending} pending` : '',
    paused > 0 ? `${paused} paused` : '',
  ].filter(Boolean);
  return down + degraded + pending === 0 && paused === 0 ? `All ${plural(up, 'monitor', 'monitors')} up` : parts.join(', ');
}

function downItems(health: HealthSummary | undefined, state: SupervisorState): TrayItem[] {
  if (!health || state !== 'running' || health.down.length === 0) return [];
  const listed = health.down.slice(0, MAX_LISTED_DOWN).map(
    (monitor): TrayItem => ({
      label: `${oneLine(monitor.name)} is down`,
      enabled: true,
      // In its own workspace, whichever the window shows.
      action: { type: 'open', path: `/monitors/${encodeURIComponent(monitor.monitorId)}?workspace=${encodeURIComponent(monitor.workspaceId)}` },
    }),
  );
  const more = health.down.length - listed.length;
  const rest: TrayItem[] = more > 0 ? [{ label: `and ${more} more`, enabled: true, action: { type: 'open', path: '/' } }] : [];
  return [SEPARATOR, ...listed, ...rest];
}

/** The icon shows the monitors' state only while the service runs and reports it. */
function iconOf(health: HealthSummary | undefined, state: SupervisorState): OverallHealth {
  return state === 'running' && health ? health.overall : 'unknown';
}

export function trayModel(health: HealthSummary | undefined, state: SupervisorState, options: { openAtLogin: boolean }): TrayModel {
  const status = statusLine(health, state);
  return {
    icon: iconOf(health, state),
    tooltip: `Statusdesk: ${status}`,
    items: [
      { label: status, enabled: false },
      ...downItems(health, state),
      SEPARATOR,
      { label: 'Open Statusdesk', enabled: state === 'running', action: { type: 'open', path: '/' } },
      { label: 'Open at login', enabled: true, checked: options.openAtLogin, action: { type: 'toggle-open-at-login' } },
      { label: 'Install the statusdesk command', enabled: true, action: { type: 'install-cli' } },
      SEPARATOR,
      { label: 'Quit Statusdesk', enabled: true, action: { type: 'quit' } },
    ],
  };
}
