// What the sections of a status page share: the page's data as they receive it, the notify
// choice of every publishing form, and the components an incident or a maintenance affects. Each
// form has a model of its own beside it (page-*-model.ts).
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { useId } from 'react';
import { type Control, type FieldValues, type Path, useController } from 'react-hook-form';
import type { PageComponent, StatusPage } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { FieldGroup } from '../forms.tsx';
import './page-forms.css';

/** What every section of the page's screen gets. */
export interface PageSectionProps {
  workspaceId: string;
  page: StatusPage;
  /** In display order (position, then id), as the service lists them. */
  components: PageComponent[];
}

/** A wire timestamp as ISO 8601, for `When` and sorting. */
export const isoOf = (timestamp: Timestamp | undefined): string | undefined => (timestamp ? timestampDate(timestamp).toISOString() : undefined);

/** Why a publishing form without a notify choice is refused. */
const NOTIFY_REQUIRED = 'Choose whether to notify subscribers: nothing is published until you do.';

/**
 * The explicit notify choice of a publishing form, a field `name` of its react-hook-form form.
 * Neither radio starts checked: telling subscribers cannot be undone, and not telling them is
 * final for that update, so the person decides every time. A submit without a choice is refused
 * by the form itself: the message shows beside the choice and the first radio takes the focus.
 */
export function NotifyChoice<T extends FieldValues>({ control, name, serviceRule }: { control: Control<T>; name: Path<T>; serviceRule?: string | undefined }) {
  const id = useId();
  const { field, fieldState } = useController({ control, name, rules: { validate: (value) => value !== undefined || NOTIFY_REQUIRED } });
  const error = serviceRule ?? fieldState.error?.message;
  return (
    <FieldGroup legend="Subscribers" hint="Required: choose one. Nothing is published until you do." error={error} className="notify-choice">
      {(control) => (
        <div className="radios">
          <div className="radio">
            <input
              type="radio"
              id={`${id}-yes`}
              name={`${id}-notify`}
              ref={field.ref}
              checked={field.value === true}
              {...control}
              onChange={() => field.onChange(true)}
            />
            <label htmlFor={`${id}-yes`}>Notify subscribers</label>
            <small>Email and webhook subscribers of this page are told now.</small>
          </div>
          <div className="radio">
            <input type="radio" id={`${id}-no`} name={`${id}-notify`} checked={field.value === false} {...control} onChange={() => field.onChange(false)} />
            <label htmlFor={`${id}-no`}>Don't notify</label>
            <small>Nobody is told, now or later: this update is never sent.</small>
          </div>
        </div>
      )}
    </FieldGroup>
  );
}

/** Checkboxes of the page's components; none checked means the page as a whole. */
/** The page's components a report or a maintenance window affects, as a field of its form. */
export function AffectedComponents<T extends FieldValues>({
  control,
  name,
  components,
  error,
}: {
  control: Control<T>;
  name: Path<T>;
  components: PageComponent[];
  error?: string | undefined;
}) {
  const { field } = useController({ control, name });
  return <ComponentChecklist legend="Affected components" components={components} selected={field.value} onChange={field.onChange} error={error} />;
}

export function ComponentChecklist({
  components,
  selected,
  onChange,
  legend,
  error,
}: {
  components: PageComponent[];
  selected: string[];
  onChange(ids: string[]): void;
  legend: string;
  error?: string | undefined;
}) {
  if (components.length === 0) {
    return (
      <FieldGroup legend={legend} hint="The page has no components yet: this applies to the page as a whole." error={error}>
        {() => null}
      </FieldGroup>
    );
  }
  const toggle = (componentId: string, on: boolean) =>
    onChange(on ? components.map((c) => c.id).filter((c) => c === componentId || selected.includes(c)) : selected.filter((c) => c !== componentId));
  return (
    <FieldGroup legend={legend} hint="None checked: the whole page." error={error} className="checklist">
      {(control) => (
        <div className="checklist-items">
          {components.map((component) => (
            <label key={component.id} className="check">
              <input type="checkbox" {...control} checked={selected.includes(component.id)} onChange={(event) => toggle(component.id, event.target.checked)} />
              <span>
                {component.name}
                {component.group ? <span className="muted small"> ({component.group})</span> : null}
              </span>
            </label>
          ))}
        </div>
      )}
    </FieldGroup>
  );
}

/** The names of `ids` among the page's components, for a list of what is affected. */
export function componentNames(components: PageComponent[], ids: string[]): string {
  if (ids.length === 0) return 'The whole page';
  const names = new Map(components.map((c) => [c.id, c.name]));
  return ids.map((id) => names.get(id) ?? `removed component ${id}`).join(', ');
}

/** A form's submit button, and Cancel when the form can be closed. */
export function FormActions({ busy, submitLabel, onCancel }: { busy: boolean; submitLabel: string; onCancel: (() => void) | undefined }) {
  return (
    <div className="form-actions">
      <button type="submit" className="button button-primary" disabled={busy}>
        {submitLabel}
      </button>
      {onCancel ? (
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </div>
  );
}

/** What a publishing call (a report, an update, a maintenance window) answered, in words. */
export interface PublishedNote {
  text: string;
  /** The subscribers were to be told, and sending failed. */
  failed: boolean;
}

/** What a publishing call answered, said in words: who was told. */
export function publishedNote(what: string, notify: boolean, notified: boolean): PublishedNote {
  if (!notify) return { text: `${what} Subscribers were not notified.`, failed: false };
  if (notified) return { text: `${what} Subscribers were notified.`, failed: false };
  return { text: `${what} Sending it to subscribers failed; it is published on the page, and will not be sent again.`, failed: true };
}

/** The latest publishing note, in a live region that is there before it has anything to say. */
export function PublishedNoteLine({ note }: { note: PublishedNote | undefined }) {
  return (
    <p role="status" className={note ? `note ${note.failed ? 'note-warning' : 'note-done'}` : 'visually-hidden'}>
      {note?.text}
    </p>
  );
}
