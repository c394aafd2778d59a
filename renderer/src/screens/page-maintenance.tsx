import { type FormEvent, useId, useRef, useState } from 'react';
import type { Maintenance } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { ApiError } from '../api.ts';
import { ConfirmDialog, ErrorNote, Loading } from '../components.tsx';
import { Field, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { asApiError, useConfirmedAction, useResource } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { ComponentChecklist, componentNames, FormActions, instantOfLocal, localInputValue, NotifyChoice, type PageSectionProps, type PublishedNote, publishedNote, PublishedNoteLine } from './page-form-parts.tsx';

// Maintenance windows as a calendar of days: in progress, upcoming (soonest first) and past
// (latest first), each listed under the local day it starts on. Times are entered and shown in
// the viewer's time zone and sent as UTC instants.

const HOUR_MS = 3_600_000;
const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

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

export function PageMaintenanceSection({ rpc, page, components }: PageSectionProps) {
  const [windows, reload] = useResource(() => rpc.maintenances.listMaintenances({ pageId: page.id, perPage: 200 }).then((r) => r.maintenances), page.id);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [note, setNote] = useState<PublishedNote>();
  const remove = useConfirmedAction((m: Maintenance) => rpc.maintenances.deleteMaintenance({ id: m.id }), reload);

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
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            <Icon name="plus" />
            Schedule maintenance
          </button>
        )}
      </div>
      <p className="muted section-lede">
        Planned work, announced ahead. While a window is in progress the components it names show “Under maintenance” whatever their monitors say; a window
        that names none covers the whole page. Times are in your time zone, {timeZone}.
      </p>

      {creating || empty ? (
        <MaintenanceForm
          title="Schedule maintenance"
          submitLabel="Schedule"
          components={components}
          announce
          onCancel={empty ? undefined : () => setCreating(false)}
          onSubmit={async (values, notify) => {
            const answer = await rpc.maintenances.createMaintenance({ pageId: page.id, ...values, notify });
            setCreating(false);
            setNote(publishedNote(`Maintenance “${values.title}” scheduled.`, notify, answer.notified));
            await reload();
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

      {parts.map((part) =>
        part.windows.length === 0 ? null : (
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
                          initial={{ title: m.title, message: m.message, from: m.from, to: m.to, pageComponentIds: [...m.pageComponentIds] }}
                          onCancel={() => setEditing(undefined)}
                          onSubmit={async (values) => {
                            // Every field is named, so clearing the components (the whole page) is a change too.
                            await rpc.maintenances.updateMaintenance({
                              id: m.id,
                              ...values,
                              updateMask: { paths: ['title', 'message', 'from', 'to', 'page_component_ids'] },
                            });
                            setEditing(undefined);
                            await reload();
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

function WindowRow({ window: m, components, onEdit, onDelete }: { window: Maintenance; components: PageComponent[]; onEdit(): void; onDelete(): void }) {
  return (
    <li className="calendar-window">
      <time className="calendar-time" dateTime={m.from}>
        {spanLabel(m)}
      </time>
      <div className="calendar-text">
        <strong>{m.title}</strong>
        <span className="small muted">Affects: {componentNames(components, m.pageComponentIds)}</span>
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

interface WindowValues {
  title: string;
  message: string;
  /** RFC 3339 instants. */
  from: string;
  to: string;
  pageComponentIds: string[];
}

function MaintenanceForm({
  title,
  submitLabel,
  components,
  initial,
  announce = false,
  onCancel,
  onSubmit,
}: {
  title: string;
  submitLabel: string;
  components: PageComponent[];
  initial?: WindowValues;
  /** A new window is announced: the form asks whether to notify subscribers. */
  announce?: boolean;
  onCancel: (() => void) | undefined;
  onSubmit(values: WindowValues, notify: boolean): Promise<void>;
}) {
  const start = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS;
  const [name, setName] = useState(initial?.title ?? '');
  const [message, setMessage] = useState(initial?.message ?? '');
  const [from, setFrom] = useState(localInputValue(initial?.from ?? new Date(start).toISOString()));
  const [to, setTo] = useState(localInputValue(initial?.to ?? new Date(start + HOUR_MS).toISOString()));
  const [affected, setAffected] = useState(initial?.pageComponentIds ?? []);
  const [notify, setNotify] = useState<boolean>();
  const [refused, setRefused] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const headingId = useId();
  const errors = matchViolations(error, ['title', 'message', 'from', 'to', 'pageComponentIds', 'notify']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (announce && notify === undefined) {
      setRefused(true);
      form.current?.querySelector<HTMLInputElement>('.notify-choice input[type="radio"]')?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit({ title: name.trim(), message: message.trim(), from: instantOfLocal(from), to: instantOfLocal(to), pageComponentIds: affected }, notify ?? false);
    } catch (caught) {
      setError(asApiError(caught));
      setBusy(false);
    }
  };

  return (
    <div className="card section maintenance-form" role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <Field label="Title" error={errors.of('title')}>
          {(control) => <input {...control} type="text" value={name} maxLength={200} placeholder="Database upgrade" onChange={(e) => setName(e.target.value)} />}
        </Field>
        <div className="form-grid">
          <Field label="Starts" hint={`Your local time (${timeZone}).`} error={errors.of('from')}>
            {(control) => <input {...control} type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />}
          </Field>
          <Field label="Ends" hint="After the start." error={errors.of('to')}>
            {(control) => <input {...control} type="datetime-local" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />}
          </Field>
        </div>
        <ComponentChecklist legend="Affected components" components={components} selected={affected} onChange={setAffected} error={errors.of('pageComponentIds')} />
        <Field label="Message (optional)" hint="What visitors should know about the work." error={errors.of('message')}>
          {(control) => <textarea {...control} value={message} rows={2} onChange={(e) => setMessage(e.target.value)} />}
        </Field>
        {announce ? (
          <NotifyChoice name={`${headingId}-notify`} value={notify} onChange={setNotify} refused={refused} serviceRule={errors.of('notify')} />
        ) : (
          <p className="field-hint">Changes show on the page at once; subscribers are not told of them.</p>
        )}
        <FormActions busy={busy} submitLabel={submitLabel} onCancel={onCancel} />
      </form>
    </div>
  );
}
