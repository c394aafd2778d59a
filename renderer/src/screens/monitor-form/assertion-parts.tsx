import { type ReactNode, useId, useRef } from 'react';
import type { StringComparator } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import { type ControlProps, EnumSelect, FieldGroup } from '../../forms.tsx';
import { Icon } from '../../icons.tsx';
import { takesNoTarget } from './monitor-form-model.ts';
import { STRING_COMPARATORS } from './monitor-options.ts';

// The pieces an assertion list is drawn with: the list and its add button, a row that reads as a
// sentence, its labelled cells, and the comparison of a header or body assertion.

/** A message of the service about one part of an assertion row, and the id that part points at. */
export interface RowMessage {
  id: string;
  text: string | undefined;
}

/** The assertions of one kind, under a legend, with a button that adds one. */
export function AssertionList({
  legend,
  error,
  addLabel,
  onAdd,
  children,
}: {
  legend: string;
  error: string | undefined;
  addLabel: string;
  onAdd(): void;
  children: ReactNode[];
}) {
  const list = useRef<HTMLUListElement>(null);
  const add = () => {
    onAdd();
    // The new row's first control takes the focus once it is drawn.
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>('.assertion-row:last-child select, .assertion-row:last-child input')?.focus());
  };
  return (
    <FieldGroup legend={legend} error={error} className="assertion-list">
      {() => (
        <>
          <ul ref={list} className="assertion-rows" hidden={children.length === 0}>
            {children}
          </ul>
          <button type="button" className="button button-small kv-add" onClick={add}>
            <Icon name="plus" />
            {addLabel}
          </button>
        </>
      )}
    </FieldGroup>
  );
}

/** One assertion: its labelled controls, a remove button, and the service's messages for it. */
export function AssertionRow({ label, cells, onRemove, messages }: { label: string; cells: ReactNode; onRemove(): void; messages: RowMessage[] }) {
  const shown = messages.filter((m): m is { id: string; text: string } => Boolean(m.text));
  return (
    <li className="assertion-row">
      <div className="assertion-cells">{cells}</div>
      <button type="button" className="button button-small button-ghost" onClick={onRemove}>
        <Icon name="trash" />
        <span className="visually-hidden">Remove {label.toLowerCase()}</span>
      </button>
      {shown.length > 0 ? (
        <div className="assertion-messages">
          {shown.map((m) => (
            <p key={m.id} id={m.id} className="field-message">
              <Icon name="warning" />
              <span>{m.text}</span>
            </p>
          ))}
        </div>
      ) : null}
    </li>
  );
}

/** A labelled control of an assertion row: the row reads as a sentence, the label names the control for assistive technology. */
export function Cell({ label, message, children }: { label: string; message: RowMessage; children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  return (
    <span className="assertion-cell">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      {children({ id, 'aria-invalid': message.text ? true : undefined, 'aria-describedby': message.text ? message.id : undefined })}
    </span>
  );
}

/** "… is <comparator> <target>": the comparison of a header or body assertion; no target for empty / not empty. */
export function StringComparison({
  label,
  comparator,
  target,
  comparatorError,
  targetError,
  targetMaxLength,
  onChange,
}: {
  label: string;
  comparator: StringComparator;
  target: string;
  comparatorError: RowMessage;
  targetError: RowMessage;
  /** The longest target the service takes. */
  targetMaxLength: number | undefined;
  onChange(change: { comparator?: StringComparator; target?: string }): void;
}) {
  return (
    <>
      <Cell label={`${label} comparator`} message={comparatorError}>
        {(control) => <EnumSelect control={control} value={comparator} choices={STRING_COMPARATORS} onChange={(value) => onChange({ comparator: value })} />}
      </Cell>
      {takesNoTarget(comparator) ? null : (
        <Cell label={`${label} target`} message={targetError}>
          {(control) => (
            <input
              {...control}
              type="text"
              maxLength={targetMaxLength}
              autoComplete="off"
              spellCheck={false}
              value={target}
              onChange={(e) => onChange({ target: e.target.value })}
            />
          )}
        </Cell>
      )}
    </>
  );
}
