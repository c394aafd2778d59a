import { useState } from 'react';
import type { Maintenance } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { ConfirmDialog, ErrorNote, Loading } from '../components.tsx';
import { useCreateMaintenance, useDeleteMaintenance, useMaintenances, useUpdateMaintenance } from '../data/maintenances.ts';
import { loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { componentNames, type PageSectionProps, type PublishedNote, publishedNote, PublishedNoteLine } from './page-form-parts.tsx';
import { MaintenanceCalendar } from './maintenance-calendar.tsx';
import './maintenance-calendar.css';
import { MaintenanceForm, timeZone } from './page-maintenance-form.tsx';
import { createMaintenanceRequest, maintenanceFormOf, updateMaintenanceRequest } from './page-maintenance-model.ts';

// Maintenance windows as a calendar of days: in progress, upcoming (soonest first) and past
// (latest first), each listed under the local day it starts on. Times are entered and shown in
// the viewer's time zone and sent as UTC instants.

const dayKey = (iso: string) => new Date(iso).toDateString();
const dayLabel = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const timeLabel = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** "22:00 – 23:30", or with the end's date when the window ends on another day. */
function spanLabel(m: Maintenance): string {
  const sameDay = dayKey(m.from) === dayKey(m.to);
  const end = sameDay ? timeLabel(m.to) : `${new Date(m.to).toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${timeLabel(m.to)}`;
  return `${timeLabel(m.from)} – ${end}`;
}

/** Windows by the local day they start on, in the given order. */
function byDay(windows: Maintenance[]): { key: string; label: string; windows: Maintenance[] }[] {
  const days: { key: string; label: string; windows: Maintenance[] }[] = [];
  for (const m of windows) {
    const key = dayKey(m.from);
    const day = days.find((d) => d.key === key);
    if (day) day.windows.push(m);
    else days.push({ key, label: dayLabel(m.from), windows: [m] });
  }
  return days;
}

export function PageMaintenanceSection({ workspaceId, page, components }: PageSectionProps) {
  const windows = loadedOf(useMaintenances(workspaceId, page.id));
  const create = useCreateMaintenance(workspaceId);
  const update = useUpdateMaintenance(workspaceId);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [note, setNote] = useState<PublishedNote>();
  const [view, setView] = useState<'list' | 'calendar'>('list');
  const deleteMaintenance = useDeleteMaintenance(workspaceId);
  const remove = useConfirmedAction((m: Maintenance) => deleteMaintenance.mutateAsync({ id: m.id }));

  const all = windows.state === 'ready' ? windows.value : [];
  const byStart = (a: Maintenance, b: Maintenance) => a.from.localeCompare(b.from);
  const parts = [
    { id: 'active', title: 'In progress', windows: all.filter((m) => m.status === 'active').sort(byStart) },
    { id: 'scheduled', title: 'Upcoming', windows: all.filter((m) => m.status === 'scheduled').sort(byStart) },
    { id: 'completed', title: 'Past', windows: all.filter((m) => m.status === 'completed').sort((a, b) => byStart(b, a)) },
  ];
  const empty = windows.state === 'ready' && all.length === 0;

  return (
    <section aria-labelledby="maintenance-heading" className="section">
      <div className="section-head">
        <h2 id="maintenance-heading">Maintenance windows</h2>
        {windows.state !== 'ready' || creating || empty ? null : (
          <div className="section-actions">
            <div className="view-switch" role="group" aria-label="Show maintenance as">
              <button type="button" className="button button-small" aria-pressed={view === 'list'} onClick={() => setView('list')}>
                List
              </button>
              <button type="button" className="button button-small" aria-pressed={view === 'calendar'} onClick={() => setView('calendar')}>
                Calendar
              </button>
            </div>
            <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
              <Icon name="plus" />
              Schedule maintenance
            </button>
          </div>
        )}
      </div>
      <p className="muted section-lede">
        Planned work, announced ahead. While a window is in progress the components it names show “Under maintenance” whatever their monitors say; a window that
        names none covers the whole page. Times are in your time zone, {timeZone}.
      </p>

      {creating || empty ? (
        <MaintenanceForm
          title="Schedule maintenance"
          submitLabel="Schedule"
          components={components}
          initial={maintenanceFormOf(undefined)}
          announce
          onCancel={empty ? undefined : () => setCreating(false)}
          onSubmit={async (values) => {
            const request = createMaintenanceRequest(page.id, values);
            const answer = await create.mutateAsync(request);
            setCreating(false);
            setNote(publishedNote(`Maintenance “${request.title}” scheduled.`, request.notify === true, answer.notified));
          }}
        />
      ) : null}
      <PublishedNoteLine note={note} />

      {windows.state === 'loading' ? <Loading what="maintenance windows" /> : null}
      {windows.state === 'error' ? <ErrorNote>{windows.error.message}</ErrorNote> : null}
      {empty ? (
        <div className="empty">
          <p>
            <strong>No maintenance planned.</strong> Schedule a window above before planned work, so visitors know ahead and the page does not show an outage.
          </p>
        </div>
      ) : null}

      {view === 'calendar' && !empty ? <MaintenanceCalendar workspaceId={workspaceId} pageId={page.id} /> : null}

      {parts.map((part) =>
        view === 'calendar' || part.windows.length === 0 ? null : (
          <section key={part.id} aria-labelledby={`maintenance-${part.id}`} className="calendar-part">
            <h3 id={`maintenance-${part.id}`}>
              {part.title} <span className="muted small">({part.windows.length})</span>
            </h3>
            {byDay(part.windows).map((day) => (
              <div key={day.key} className="calendar-day">
                <h4>{day.label}</h4>
                <ul className="calendar-windows">
                  {day.windows.map((m) =>
                    editing === m.id ? (
                      <li key={m.id}>
                        <MaintenanceForm
                          title={`Edit ${m.title}`}
                          submitLabel="Save maintenance"
                          components={components}
                          initial={maintenanceFormOf(m)}
                          onCancel={() => setEditing(undefined)}
                          onSubmit={async (values) => {
                            await update.mutateAsync(updateMaintenanceRequest(m.id, values));
                            setEditing(undefined);
                          }}
                        />
                      </li>
                    ) : (
                      <WindowRow key={m.id} window={m} components={components} onEdit={() => setEditing(m.id)} onDelete={() => remove.ask(m)} />
                    ),
                  )}
                </ul>
              </div>
            ))}
          </section>
        ),
      )}

      <ConfirmDialog {...remove.dialog} title={`Delete the maintenance “${remove.target?.title ?? ''}”?`} confirmLabel="Delete maintenance">
        <p>It disappears from the public page and its feed. Subscribers are not told. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

const DAY_WORDS: Record<string, string> = { sun: 'Sunday', mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday' };

/** "Repeats weekly on Saturday at 02:30 (Europe/Paris), 60 min each, until …". */
function repeatWords(m: Maintenance): string {
  const r = m.repeat!;
  const when =
    r.kind === 'weekly'
      ? `weekly on ${r.days.map((d) => DAY_WORDS[d] ?? d).join(', ')} at ${r.time}`
      : r.kind === 'monthly'
        ? `monthly on ${r.dayOfMonth ? `day ${r.dayOfMonth}` : `the ${r.week} ${DAY_WORDS[r.weekday] ?? r.weekday}`} at ${r.time}`
        : `on cron “${r.cron}”`;
  const until = r.until ? `, until ${new Date(r.until).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}` : '';
  return `Repeats ${when} (${r.timeZone}), ${r.durationMinutes} min each${until}. Shown: the ${m.status === 'active' ? 'occurrence under way' : 'next occurrence'}.`;
}

function WindowRow({ window: m, components, onEdit, onDelete }: { window: Maintenance; components: PageComponent[]; onEdit(): void; onDelete(): void }) {
  return (
    <li className="calendar-window">
      <time className="calendar-time" dateTime={m.from}>
        {spanLabel(m)}
      </time>
      <div className="calendar-text">
        <strong>{m.title}</strong>
        <span className="small muted">Affects: {componentNames(components, m.pageComponentIds)}</span>
        {m.repeat ? <span className="small">{repeatWords(m)}</span> : null}
        {m.message ? <span className="small">{m.message}</span> : null}
      </div>
      <div className="row-actions">
        <button type="button" className="button button-small" onClick={onEdit}>
          <Icon name="edit" />
          Edit<span className="visually-hidden"> {m.title}</span>
        </button>
        <button type="button" className="button button-small button-danger-quiet" onClick={onDelete}>
          <Icon name="trash" />
          Delete<span className="visually-hidden"> {m.title}</span>
        </button>
      </div>
    </li>
  );
}
