import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { CHOSEN_LOOKUP_LIMIT, type MonitorChoice, useMonitorSearch, useMonitorsById } from './data/monitor-search.ts';
import { FieldGroup } from './forms.tsx';
import './monitor-picker.css';

// Monitors to choose from, however many the workspace has: the service searches them all (by
// name, target or tag, as the overview's search does) and sends the first PICKER_PAGE by name;
// the picker says when there are more, and shows what is chosen whether or not the search finds
// it. Checkboxes to choose several (a channel's monitors), radios to choose one or none (the
// monitor a status page's component follows).

/** Monitors a search shows at once: a longer list is narrowed by the search, not scrolled. */
export const PICKER_PAGE = 50;
/** Typing pauses this long before the service is asked. */
const SEARCH_DELAY_MS = 250;

const count = (n: number) => n.toLocaleString('en');
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/** `value`, once it stopped changing for `delayMs`. */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

export interface MonitorPickerProps {
  workspaceId: string;
  legend: string;
  /** Several (checkboxes) or at most one (radios). */
  multiple: boolean;
  /** The chosen monitors' ids; at most one without `multiple`. */
  selected: readonly string[];
  onChange(ids: string[]): void;
  /** Under the legend: given how many are chosen, and how many the workspace has. */
  hint(chosen: number, total: number): ReactNode;
  /** Without `multiple`: the choice of no monitor, first. */
  noneLabel?: string;
  /** The service's message for the field. */
  error?: string | undefined;
}

export function MonitorPicker({ workspaceId, legend, multiple, selected, onChange, hint, noneLabel, error }: MonitorPickerProps) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const q = useSettled(typed.trim(), SEARCH_DELAY_MS);
  const search = useMonitorSearch(workspaceId, q, PICKER_PAGE);
  const chosen = useMonitorsById(workspaceId, selected);
  const found = search.data;
  const total = found?.total;

  // Every monitor seen in an answer, by id: one chosen from a search stays named after the search changes.
  const seen = useRef(new Map<string, MonitorChoice>()).current;
  for (const monitor of found?.monitors ?? []) seen.set(monitor.id, monitor);
  if (chosen.data && !chosen.isPlaceholderData) for (const monitor of chosen.data.values()) seen.set(monitor.id, monitor);
  // Asked for and not found: deleted since it was chosen.
  const settled = chosen.isSuccess && !chosen.isPlaceholderData;

  const shown = found?.monitors ?? [];
  const shownIds = new Set(shown.map((m) => m.id));
  // Chosen, and not among the monitors the search shows: listed apart, so a choice is never hidden.
  const chosenElsewhere = selected
    .filter((monitorId) => !shownIds.has(monitorId))
    .slice(0, CHOSEN_LOOKUP_LIMIT)
    .flatMap((monitorId): (MonitorChoice | { id: string; missing: true })[] => {
      const monitor = seen.get(monitorId);
      if (monitor) return [monitor];
      return settled ? [{ id: monitorId, missing: true }] : [];
    });
  const unnamed = Math.max(0, selected.length - CHOSEN_LOOKUP_LIMIT);

  const toggle = (monitorId: string, on: boolean) => {
    if (!multiple) onChange(on ? [monitorId] : []);
    else onChange(on ? [...selected, monitorId] : selected.filter((s) => s !== monitorId));
  };
  const name = `${id}-monitor`;

  const option = (monitor: MonitorChoice | { id: string; missing: true }, control: object) => {
    const optionId = `${id}-${monitor.id}`;
    const label =
      'missing' in monitor ? (
        <>
          Monitor {monitor.id} <span className="muted small">(deleted)</span>
        </>
      ) : (
        <>
          {monitor.name}
          {monitor.active ? null : <span className="muted small"> (paused)</span>}
        </>
      );
    return (
      <li key={monitor.id} className="check">
        <input
          type={multiple ? 'checkbox' : 'radio'}
          id={optionId}
          name={multiple ? undefined : name}
          {...control}
          checked={selected.includes(monitor.id)}
          onChange={(e) => toggle(monitor.id, e.target.checked)}
        />
        <label htmlFor={optionId}>{label}</label>
      </li>
    );
  };

  let status: string;
  if (!found) status = search.isError ? 'The monitors could not be loaded.' : 'Loading the monitors…';
  else if (found.total === 0) status = 'The workspace has no monitors yet.';
  else if (found.matching === 0) status = `No monitor's name, target or tag holds “${q}”.`;
  else if (found.matching > shown.length)
    status = `Showing ${count(shown.length)} of ${plural(found.matching, 'monitor', 'monitors')}${q ? ` that match “${q}”` : ''}: refine the search to find the others.`;
  else status = q ? `${plural(found.matching, 'monitor matches', 'monitors match')} “${q}”.` : `All ${plural(found.matching, 'monitor', 'monitors')}.`;

  return (
    <FieldGroup legend={legend} hint={total === undefined ? undefined : hint(selected.length, total)} error={error} className="monitor-picker">
      {(control) => (
        <>
          {chosenElsewhere.length > 0 || unnamed > 0 ? (
            <div className="monitor-picker-chosen">
              <p className="monitor-picker-caption" id={`${id}-chosen`}>
                {multiple ? 'Chosen, not in the list below' : 'Chosen'}
              </p>
              <ul className="monitor-picker-options" aria-labelledby={`${id}-chosen`}>
                {chosenElsewhere.map((monitor) => option(monitor, control))}
              </ul>
              {unnamed > 0 ? <p className="muted small">and {plural(unnamed, 'other', 'others')}</p> : null}
            </div>
          ) : null}
          <div className="monitor-picker-search">
            <label htmlFor={`${id}-search`}>Search monitors</label>
            <input
              id={`${id}-search`}
              type="search"
              value={typed}
              autoComplete="off"
              placeholder="Name, target or tag"
              aria-describedby={`${id}-status`}
              onChange={(e) => setTyped(e.target.value)}
              onKeyDown={(e) => {
                // Enter searches at once; it does not submit the form around the picker.
                if (e.key === 'Enter') e.preventDefault();
              }}
            />
          </div>
          <p className="monitor-picker-status muted small" id={`${id}-status`} role="status">
            {status}
          </p>
          <ul className="monitor-picker-options monitor-picker-results" aria-label={`${legend}: search results`}>
            {!multiple && noneLabel ? (
              <li className="check">
                <input type="radio" id={`${id}-none`} name={name} {...control} checked={selected.length === 0} onChange={() => onChange([])} />
                <label htmlFor={`${id}-none`}>{noneLabel}</label>
              </li>
            ) : null}
            {shown.map((monitor) => option(monitor, control))}
          </ul>
        </>
      )}
    </FieldGroup>
  );
}
