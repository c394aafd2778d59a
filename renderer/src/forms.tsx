import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useId, useRef, useState } from 'react';
import type { ApiError } from './api.ts';
import { ErrorNote } from './components.tsx';
import type { FieldErrors } from './field-errors.ts';
import { Icon } from './icons.tsx';
import { changedRow, type KeyValueRow, rowKey } from './key-value-rows.ts';
import './forms.css';

// Form pieces shared by the screens that create and edit things: a labelled field with its hint
// and the service's message for it, the service's refusal above a form, a list of name/value
// pairs, and a list of tags. The matching of violations to fields (field-errors.ts) and the rows
// of a list editor (key-value-rows.ts) are plain modules, for the forms' models to use too.

export { type FieldErrors, matchViolations } from './field-errors.ts';
export { entriesOf, type KeyValueRow, rowKey, rowsOf } from './key-value-rows.ts';

/** What a control needs to be named by its label and described by its hint and message. */
export interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** The ids of the hint and the message of a field, as `aria-describedby` lists them. */
function describedBy(hintId: string | undefined, messageId: string | undefined): string | undefined {
  return [hintId, messageId].filter(Boolean).join(' ') || undefined;
}

/** A message of the service for one field, under it, in the danger colour. */
export function FieldMessage({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p className="field-message" id={id}>
      <Icon name="warning" />
      <span>{children}</span>
    </p>
  );
}

/** One value a select offers, with the words shown for it. */
export interface Choice<T extends number> {
  value: T;
  label: string;
}

/** A select of a numeric enum's values (the API's enums), each shown by its label. */
export function EnumSelect<T extends number>({
  control,
  value,
  choices,
  onChange,
}: {
  control: ControlProps;
  value: T;
  choices: readonly Choice<T>[];
  onChange: (value: T) => void;
}) {
  return (
    <select {...control} value={value} onChange={(e) => onChange(Number(e.target.value) as T)}>
      {choices.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

/**
 * A label, the control it names (rendered by `children` with the id and aria attributes to
 * spread on it), a hint and the service's message for the field. With a message the control is
 * `aria-invalid` and described by it, so a screen reader reads the message on focus.
 */
export function Field({
  label,
  hint,
  error,
  className,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const messageId = error ? `${id}-message` : undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy(hintId, messageId) })}
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error && messageId ? <FieldMessage id={messageId}>{error}</FieldMessage> : null}
    </div>
  );
}

/**
 * A group of controls under one legend (checkboxes, radios, a list editor), with a hint and the
 * service's message for the group. `children` gets the aria attributes for each control of the
 * group (no id: each control has its own label).
 */
export function FieldGroup({
  legend,
  hint,
  error,
  className,
  children,
}: {
  legend: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string;
  children: (control: Omit<ControlProps, 'id'>) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const messageId = error ? `${id}-message` : undefined;
  const described = describedBy(hintId, messageId);
  return (
    <fieldset className={`field-group${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`} aria-describedby={described}>
      <legend>{legend}</legend>
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {children({ 'aria-invalid': error ? true : undefined, 'aria-describedby': described })}
      {error && messageId ? <FieldMessage id={messageId}>{error}</FieldMessage> : null}
    </fieldset>
  );
}

/**
 * What went wrong, above the form: the service's message when it named no field, the violations
 * no field claimed, or a pointer to the fields marked below. It is an alert, so it is announced.
 */
export function FormProblems({ error, errors, id }: { error: ApiError | undefined; errors: FieldErrors; id?: string }) {
  if (!error) return null;
  if (error.violations.length === 0) return <ErrorNote id={id}>{error.message}</ErrorNote>;
  if (errors.unclaimed.length === 0) {
    const count = error.violations.length;
    return (
      <ErrorNote id={id}>
        {count === 1 ? 'One field needs a change: see its message below.' : `${count} fields need a change: see the messages below.`}
      </ErrorNote>
    );
  }
  return (
    <div className="note note-error form-problems" role="alert" id={id}>
      <p>{errors.claimedAny ? 'Some fields need a change: see the messages below, and:' : 'The service refused this:'}</p>
      <ul>
        {errors.unclaimed.map((v) => (
          <li key={`${v.field} ${v.rule}`}>
            <code>{v.field}</code>: {v.rule}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Once a refusal is drawn, the focus goes to the first field it marks invalid. */
export function useFocusOnRefusal(form: RefObject<HTMLFormElement | null>, refusal: ApiError | undefined): void {
  useEffect(() => {
    if (refusal) focusFirstInvalid(form.current);
  }, [form, refusal]);
}

/** Moves the focus to the first control of `form` marked invalid; true when there was one. */
export function focusFirstInvalid(form: HTMLFormElement | null): boolean {
  const first = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  first?.focus();
  return first !== null && first !== undefined;
}

/** `Header` → `header` in the middle of a sentence; an acronym (`OTLP header`) stays as it is. */
const inSentence = (words: string) => (/^[A-Z][a-z]/.test(words) ? words[0]!.toLowerCase() + words.slice(1) : words);

/** What a list editor shows, whoever keeps its rows. */
interface KeyValueListOptions {
  legend: string;
  /** What one row is called, e.g. `Header`: rows are labelled `Header 1 name`, `Header 1 value`. */
  item: string;
  errors: FieldErrors;
  field: string;
  hint?: ReactNode;
  namePlaceholder?: string;
  valuePlaceholder?: string;
  keptHint?: string;
}

/**
 * A list of name/value pairs held in a component's state (notification channels, locations).
 * A form of react-hook-form keeps its rows in a field array and draws them with `KeyValueList`.
 */
export function KeyValueEditor({ rows, onChange, ...shown }: KeyValueListOptions & { rows: KeyValueRow[]; onChange(rows: KeyValueRow[]): void }) {
  return (
    <KeyValueList
      {...shown}
      rows={rows}
      onAdd={() => onChange([...rows, { key: rowKey(), name: '', value: '' }])}
      onRemove={(index) => onChange(rows.filter((_, i) => i !== index))}
      onChangeRow={(index, change) => onChange(rows.map((row, i) => (i === index ? changedRow(row, change) : row)))}
    />
  );
}

/**
 * A list of name/value pairs (request headers, metadata): one row per pair with its own labelled
 * inputs, a button to remove it and one to add a row. `field` is the field name the service
 * uses for the whole map; a violation of one entry (`field.name`) goes to that row's name. The
 * caller keeps the rows: `onChangeRow` gets what was typed into a row.
 */
export function KeyValueList({
  legend,
  item,
  rows,
  onAdd,
  onRemove,
  onChangeRow,
  errors,
  field,
  hint,
  namePlaceholder,
  valuePlaceholder,
  keptHint = 'Hidden by the service; leave empty to keep it, or type a new value.',
}: KeyValueListOptions & {
  rows: readonly KeyValueRow[];
  onAdd(): void;
  onRemove(index: number): void;
  onChangeRow(index: number, change: { name?: string; value?: string }): void;
}) {
  const id = useId();
  const list = useRef<HTMLDivElement>(null);
  const add = () => {
    onAdd();
    // The new row's name takes the focus once it is drawn.
    requestAnimationFrame(() => list.current?.querySelector<HTMLInputElement>('.kv-row:last-child input')?.focus());
  };
  const remove = (index: number) => {
    onRemove(index);
    // The focus goes to where the removed row was, not back to the top of the page.
    requestAnimationFrame(() => {
      const buttons = list.current?.querySelectorAll<HTMLElement>('.kv-row .kv-remove');
      const next = buttons?.[Math.min(index, (buttons?.length ?? 1) - 1)];
      (next ?? list.current?.parentElement?.querySelector<HTMLElement>('.kv-add'))?.focus();
    });
  };
  return (
    <FieldGroup legend={legend} hint={hint} error={errors.of(field)} className="kv">
      {() => (
        <>
          <div className="kv-rows" ref={list}>
            {rows.map((row, index) => {
              const label = `${item} ${index + 1}`;
              const rowError = row.name.trim() ? errors.of(`${field}.${row.name.trim()}`) : undefined;
              const messageId = `${id}-${row.key}-message`;
              const keptId = `${id}-${row.key}-kept`;
              return (
                <div className="kv-row" key={row.key}>
                  <div className="kv-cell">
                    <label htmlFor={`${id}-${row.key}-name`} className="visually-hidden">
                      {label} name
                    </label>
                    <input
                      type="text"
                      id={`${id}-${row.key}-name`}
                      value={row.name}
                      placeholder={namePlaceholder}
                      autoComplete="off"
                      spellCheck={false}
                      aria-invalid={rowError ? true : undefined}
                      aria-describedby={rowError ? messageId : undefined}
                      onChange={(event) => onChangeRow(index, { name: event.target.value })}
                    />
                  </div>
                  <div className="kv-cell">
                    <label htmlFor={`${id}-${row.key}-value`} className="visually-hidden">
                      {label} value
                    </label>
                    <input
                      type="text"
                      id={`${id}-${row.key}-value`}
                      value={row.value}
                      placeholder={row.kept ? 'Unchanged (hidden)' : valuePlaceholder}
                      autoComplete="off"
                      spellCheck={false}
                      aria-describedby={row.kept ? keptId : undefined}
                      onChange={(event) => onChangeRow(index, { value: event.target.value })}
                    />
                  </div>
                  <button type="button" className="button button-small button-ghost kv-remove" onClick={() => remove(index)}>
                    <Icon name="trash" />
                    <span className="visually-hidden">Remove {inSentence(label)}</span>
                  </button>
                  {row.kept ? (
                    <p className="field-hint kv-note" id={keptId}>
                      {keptHint}
                    </p>
                  ) : null}
                  {rowError ? (
                    <div className="kv-note">
                      <FieldMessage id={messageId}>{rowError}</FieldMessage>
                    </div>
                  ) : null}
                </div>
              );
            })}
          </div>
          <button type="button" className="button button-small kv-add" onClick={add}>
            <Icon name="plus" />
            Add {inSentence(item)}
          </button>
        </>
      )}
    </FieldGroup>
  );
}

/**
 * Tags typed into one input: Enter or a comma adds the text as a tag, and each tag has a button
 * that removes it. Text left in the input is added when the input loses the focus, so a tag typed
 * before pressing Save is not lost.
 */
export function TagInput({
  label,
  tags,
  onChange,
  error,
  hint,
}: {
  label: string;
  tags: string[];
  onChange(tags: string[]): void;
  error?: string | undefined;
  hint?: ReactNode;
}) {
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const commit = () => {
    const added = text
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t && !tags.includes(t));
    if (added.length > 0) onChange([...tags, ...new Set(added)]);
    setText('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if ((event.key === 'Enter' || event.key === ',') && text.trim()) {
      event.preventDefault();
      commit();
    }
  };
  return (
    <Field label={label} hint={hint ?? 'Press Enter or type a comma after each tag.'} error={error} className="tags">
      {(control) => (
        <div className="tags-box">
          {tags.length > 0 ? (
            <ul className="tags-list" aria-label={`${label}: ${tags.length}`}>
              {tags.map((tag) => (
                <li key={tag} className="tag">
                  <span>{tag}</span>
                  <button
                    type="button"
                    className="tag-remove"
                    aria-label={`Remove tag ${tag}`}
                    onClick={() => {
                      onChange(tags.filter((t) => t !== tag));
                      input.current?.focus();
                    }}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          <input
            {...control}
            ref={input}
            type="text"
            value={text}
            autoComplete="off"
            onChange={(event) => setText(event.target.value)}
            onKeyDown={onKeyDown}
            onBlur={commit}
          />
        </div>
      )}
    </Field>
  );
}
