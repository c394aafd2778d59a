import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { ApiError, type Violation } from './api.ts';
import { ErrorNote } from './components.tsx';
import { Icon } from './icons.tsx';
import './forms.css';

// Form pieces shared by the screens that create and edit things: a labelled field with its hint
// and the service's message for it, the matching of a refusal's violations to the fields a form
// shows, a list of name/value pairs, and a list of tags.

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
function FieldMessage({ id, children }: { id: string; children: ReactNode }) {
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
export function EnumSelect<T extends number>({ control, value, choices, onChange }: { control: ControlProps; value: T; choices: readonly Choice<T>[]; onChange: (value: T) => void }) {
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

/** The violations of a refusal, each given to the field of the form that shows it. */
export interface FieldErrors {
  /** The service's message for `field` (several joined with "; "), or undefined. */
  of(field: string): string | undefined;
  /** Violations no field of the form claimed: shown above the form. */
  unclaimed: Violation[];
  /** Whether some field claimed a violation. */
  claimedAny: boolean;
}

/**
 * Gives each violation of `error` to the field that claims it: the listed name equal to the
 * violation's field, or else the longest listed name of which it is a dotted part
 * (`monitor.tags` claims `monitor.tags.3`). Violations no name claims stay `unclaimed`.
 */
export function matchViolations(error: ApiError | undefined, fields: Iterable<string>): FieldErrors {
  const names = [...new Set(fields)].sort((a, b) => b.length - a.length);
  const claimed = new Map<string, string[]>();
  const unclaimed: Violation[] = [];
  for (const violation of error?.violations ?? []) {
    const owner = names.find((name) => violation.field === name || violation.field.startsWith(`${name}.`));
    if (owner === undefined) unclaimed.push(violation);
    else claimed.set(owner, [...(claimed.get(owner) ?? []), violation.rule]);
  }
  return {
    of: (field) => claimed.get(field)?.join('; '),
    unclaimed,
    claimedAny: claimed.size > 0,
  };
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
    return <ErrorNote id={id}>{count === 1 ? 'One field needs a change: see its message below.' : `${count} fields need a change: see the messages below.`}</ErrorNote>;
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

let nextRowKey = 0;
/** A key for a new row of a list editor, stable while the row lives. */
export const rowKey = () => `row-${++nextRowKey}`;

/** One name/value pair of a list editor. */
export interface KeyValueRow {
  key: string;
  name: string;
  value: string;
  /**
   * The service keeps this value and shows it hidden (e.g. a credential): the input starts
   * empty, and left empty the stored value stays.
   */
  kept?: boolean;
}

/** Rows of a list editor from a map. */
export function rowsOf(entries: Record<string, string>, isKept: (name: string, value: string) => boolean = () => false): KeyValueRow[] {
  return Object.entries(entries).map(([name, value]) => {
    const kept = isKept(name, value);
    return { key: rowKey(), name, value: kept ? '' : value, kept };
  });
}

/**
 * A list of name/value pairs (request headers, metadata): one row per pair with its own labelled
 * inputs, a button to remove it and one to add a row. `field` is the field name the service
 * uses for the whole map; a violation of one entry (`field.name`) goes to that row's name.
 */
export function KeyValueEditor({
  legend,
  item,
  rows,
  onChange,
  errors,
  field,
  hint,
  namePlaceholder,
  valuePlaceholder,
  keptHint = 'Hidden by the service; leave empty to keep it, or type a new value.',
}: {
  legend: string;
  /** What one row is called, e.g. `Header`: rows are labelled `Header 1 name`, `Header 1 value`. */
  item: string;
  rows: KeyValueRow[];
  onChange(rows: KeyValueRow[]): void;
  errors: FieldErrors;
  field: string;
  hint?: ReactNode;
  namePlaceholder?: string;
  valuePlaceholder?: string;
  keptHint?: string;
}) {
  const id = useId();
  const list = useRef<HTMLDivElement>(null);
  // A hidden value belongs to its name: renamed, the row needs a value of its own.
  const update = (key: string, change: Partial<KeyValueRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change, kept: row.kept && change.name === undefined } : row)));
  const add = () => {
    onChange([...rows, { key: rowKey(), name: '', value: '' }]);
    // The new row's name takes the focus once it is drawn.
    requestAnimationFrame(() => list.current?.querySelector<HTMLInputElement>('.kv-row:last-child input')?.focus());
  };
  const remove = (index: number) => {
    onChange(rows.filter((_, i) => i !== index));
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
                      onChange={(event) => update(row.key, { name: event.target.value })}
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
                      onChange={(event) => update(row.key, { value: event.target.value })}
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

/** The map a list editor holds: rows without a name are left out; a kept row left empty sends `keptValue`. */
export function entriesOf(rows: KeyValueRow[], keptValue: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    entries[name] = row.kept && row.value === '' ? keptValue : row.value;
  }
  return entries;
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
