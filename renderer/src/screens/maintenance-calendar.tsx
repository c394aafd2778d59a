import { type KeyboardEvent, useId, useRef, useState } from 'react';
import type { WindowOccurrence } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';
import { ErrorNote, Loading } from '../components.tsx';
import { useMaintenanceOccurrences } from '../data/maintenances.ts';
import './maintenance-calendar.css';

// A month of a page's maintenance: one-off windows and every occurrence of the repeating ones
// (computed by the service), listed under the local day each starts on. A grid of days on wide
// screens, moved through with the arrow keys (Home/End: the week's ends, Page Up/Down: the
// month); a plain list of the days that have work on narrow ones.

const WEEKDAY_NAMES = Array.from({ length: 7 }, (_, i) => new Date(2024, 0, 1 + i).toLocaleDateString(undefined, { weekday: 'short' })); // 1 Jan 2024 was a Monday

/** Local midnight of a date. */
const dayStart = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate());
const addDays = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
const longDay = (d: Date) => d.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** The six weeks (Monday first) that show `month`. */
function gridOf(month: Date): Date[] {
  const first = new Date(month.getFullYear(), month.getMonth(), 1);
  const start = addDays(first, -((first.getDay() + 6) % 7));
  return Array.from({ length: 42 }, (_, i) => addDays(start, i));
}

export function MaintenanceCalendar({ workspaceId, pageId }: { workspaceId: string; pageId: string }) {
  const [selected, setSelected] = useState(() => dayStart(new Date()));
  const month = new Date(selected.getFullYear(), selected.getMonth(), 1);
  const days = gridOf(month);
  const from = days[0]!;
  const to = addDays(days[41]!, 1);
  const answer = useMaintenanceOccurrences(workspaceId, pageId, from.toISOString(), to.toISOString());
  const grid = useRef<HTMLTableElement>(null);
  const headingId = useId();

  const byDay = new Map<string, WindowOccurrence[]>();
  for (const o of answer.data?.occurrences ?? []) {
    const key = dayKey(new Date(o.from));
    byDay.set(key, [...(byDay.get(key) ?? []), o]);
  }
  const inMonth = (d: Date) => d.getMonth() === month.getMonth();
  const monthLabel = month.toLocaleDateString(undefined, { month: 'long', year: 'numeric' });

  /** Selects a day and moves the focus to it once it is drawn (it may be in another month). */
  const go = (d: Date) => {
    setSelected(d);
    requestAnimationFrame(() => grid.current?.querySelector<HTMLButtonElement>(`[data-day="${dayKey(d)}"]`)?.focus());
  };
  const onKey = (event: KeyboardEvent) => {
    const moves: Record<string, () => Date> = {
      ArrowLeft: () => addDays(selected, -1),
      ArrowRight: () => addDays(selected, 1),
      ArrowUp: () => addDays(selected, -7),
      ArrowDown: () => addDays(selected, 7),
      Home: () => addDays(selected, -((selected.getDay() + 6) % 7)),
      End: () => addDays(selected, 6 - ((selected.getDay() + 6) % 7)),
      PageUp: () => new Date(selected.getFullYear(), selected.getMonth() - 1, Math.min(selected.getDate(), 28)),
      PageDown: () => new Date(selected.getFullYear(), selected.getMonth() + 1, Math.min(selected.getDate(), 28)),
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    go(move());
  };
  const shiftMonth = (by: number) => setSelected(new Date(month.getFullYear(), month.getMonth() + by, 1));

  const chosen = byDay.get(dayKey(selected)) ?? [];
  const monthDays = days.filter((d) => inMonth(d) && byDay.has(dayKey(d)));

  return (
    <section className="maintenance-calendar" aria-labelledby={headingId}>
      <div className="calendar-head">
        <button type="button" className="button button-small" onClick={() => shiftMonth(-1)}>
          <span aria-hidden="true">‹</span> Previous month
        </button>
        <h3 id={headingId} aria-live="polite">
          {monthLabel}
        </h3>
        <button type="button" className="button button-small" onClick={() => shiftMonth(1)}>
          Next month <span aria-hidden="true">›</span>
        </button>
      </div>
      {answer.isPending ? <Loading what="the month's maintenance" /> : null}
      {answer.error ? <ErrorNote>{answer.error.message}</ErrorNote> : null}
      {answer.data?.truncated ? <p className="small muted">This month has more occurrences than can be shown; the first 1,000 are.</p> : null}

      <table className="calendar-grid" ref={grid} aria-labelledby={headingId} onKeyDown={onKey}>
        <thead>
          <tr>
            {WEEKDAY_NAMES.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: 6 }, (_, week) => (
            <tr key={dayKey(days[week * 7]!)}>
              {days.slice(week * 7, week * 7 + 7).map((d) => {
                const list = byDay.get(dayKey(d)) ?? [];
                const isSelected = dayKey(d) === dayKey(selected);
                return (
                  <td key={dayKey(d)} className={inMonth(d) ? undefined : 'calendar-other-month'}>
                    <button
                      type="button"
                      className="calendar-cell"
                      data-day={dayKey(d)}
                      tabIndex={isSelected ? 0 : -1}
                      aria-pressed={isSelected}
                      onClick={() => setSelected(d)}
                    >
                      {/* The name read out; what is drawn below is a summary of it. */}
                      <span className="visually-hidden">
                        {longDay(d)}: {list.length === 0 ? 'no maintenance' : `${list.length} maintenance ${list.length === 1 ? 'window' : 'windows'}`}
                      </span>
                      <span className="calendar-date" aria-hidden="true">
                        {d.getDate()}
                      </span>
                      {list.slice(0, 2).map((o) => (
                        <span key={`${o.maintenanceId}-${o.from}`} className="calendar-chip" aria-hidden="true">
                          {time(o.from)} {o.title}
                        </span>
                      ))}
                      {list.length > 2 ? (
                        <span className="calendar-chip calendar-more" aria-hidden="true">
                          +{list.length - 2} more
                        </span>
                      ) : null}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>

      <div className="calendar-selected" aria-live="polite">
        <h4>{longDay(selected)}</h4>
        {chosen.length === 0 ? <p className="small muted">No maintenance on this day.</p> : <OccurrenceList occurrences={chosen} />}
      </div>

      <div className="calendar-agenda">
        <h4>Maintenance in {monthLabel}</h4>
        {monthDays.length === 0 ? <p className="small muted">No maintenance this month.</p> : null}
        {monthDays.map((d) => (
          <div key={dayKey(d)} className="calendar-agenda-day">
            <h5>{longDay(d)}</h5>
            <OccurrenceList occurrences={byDay.get(dayKey(d))!} />
          </div>
        ))}
      </div>
    </section>
  );
}

function OccurrenceList({ occurrences }: { occurrences: WindowOccurrence[] }) {
  const sameDay = (o: WindowOccurrence) => dayStart(new Date(o.from)).getTime() === dayStart(new Date(Date.parse(o.to) - 1)).getTime();
  return (
    <ul className="calendar-occurrences">
      {occurrences.map((o) => (
        <li key={`${o.maintenanceId}-${o.from}`}>
          <time dateTime={o.from}>{time(o.from)}</time> –{' '}
          <time dateTime={o.to}>
            {sameDay(o) ? time(o.to) : `${new Date(o.to).toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${time(o.to)}`}
          </time>{' '}
          <strong>{o.title}</strong>
          {o.repeating ? <span className="small muted"> (repeats)</span> : null}
        </li>
      ))}
    </ul>
  );
}
