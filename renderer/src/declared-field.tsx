import { type ReactNode, type Ref, useId } from 'react';
import { choicesOf, type DeclaredFieldHints, inputOf, isRadioChoice, limitsOf, offersNotSet } from './declared-input.ts';
import { Field, FieldGroup, FieldMessage } from './forms.tsx';

// One plain field as the service declares it (contract/): a text, secret, URL, email, number,
// choice or switch, with its label, its hint and the service's message for it (the control is
// described by both), its placeholder and its limits. Which input takes it is declared-input.ts;
// a list or a map has an editor of its form's. The form keeps the value: a text (numbers and
// choices too) or, for a switch, whether it is on.

interface DeclaredFieldProps {
  field: DeclaredFieldHints;
  /** The words shown for it when the form says more than the declaration (`(optional)`). */
  label?: string;
  hint?: ReactNode;
  /** The service's message for the field. */
  error: string | undefined;
  value: string | boolean;
  onChange(value: string | boolean): void;
  onBlur?(): void;
  /** For a form library that moves the focus to the control. */
  inputRef?: Ref<HTMLInputElement & HTMLSelectElement>;
}

export function DeclaredField({ field, label = field.label, hint = field.hint, error, value, onChange, onBlur, inputRef }: DeclaredFieldProps) {
  const id = useId();
  const input = inputOf(field);
  const limits = limitsOf(field.schema);
  const choices = choicesOf(field);
  const text = typeof value === 'string' ? value : '';

  if (input === 'check') {
    // A switch the service may refuse (an MCP stdio command without consent): its message under it.
    const described = [hint ? `${id}-hint` : '', error ? `${id}-message` : ''].filter(Boolean).join(' ') || undefined;
    return (
      <div className={`check-row${error ? ' field-invalid' : ''}`}>
        <input
          type="checkbox"
          id={id}
          ref={inputRef}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          onBlur={onBlur}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
        />
        <label htmlFor={id}>{label}</label>
        {hint ? (
          <small id={`${id}-hint`} className="field-hint">
            {hint}
          </small>
        ) : null}
        {error ? (
          <div className="check-row-message">
            <FieldMessage id={`${id}-message`}>{error}</FieldMessage>
          </div>
        ) : null}
      </div>
    );
  }

  if (choices && isRadioChoice(field)) {
    return (
      <FieldGroup legend={label} hint={hint} error={error}>
        {(group) => (
          <div className="choice-pills">
            {choices.map((choice) => (
              <div className="choice-pill" key={choice}>
                <input
                  type="radio"
                  id={`${id}-${choice}`}
                  name={`${id}-${field.name}`}
                  ref={inputRef}
                  checked={text === String(choice)}
                  aria-invalid={group['aria-invalid']}
                  aria-describedby={group['aria-describedby']}
                  onChange={() => onChange(String(choice))}
                  onBlur={onBlur}
                />
                <label htmlFor={`${id}-${choice}`}>{choice}</label>
              </div>
            ))}
          </div>
        )}
      </FieldGroup>
    );
  }

  if (choices) {
    return (
      <Field label={label} hint={hint} error={error} className="choice-select">
        {(control) => (
          <select {...control} ref={inputRef} value={text} onChange={(e) => onChange(e.target.value)} onBlur={onBlur}>
            {offersNotSet(field) ? <option value="">Not set</option> : null}
            {choices.map((choice) => (
              <option key={choice} value={String(choice)}>
                {choice}
              </option>
            ))}
          </select>
        )}
      </Field>
    );
  }

  return (
    <Field label={label} hint={hint} error={error}>
      {(control) =>
        input === 'number' ? (
          <input
            {...control}
            ref={inputRef}
            type="number"
            value={text}
            min={limits.min}
            max={limits.max}
            step={limits.integer ? '1' : 'any'}
            inputMode={limits.integer ? 'numeric' : 'decimal'}
            placeholder={field.placeholder}
            autoComplete="off"
            onChange={(e) => onChange(e.target.value)}
            onBlur={onBlur}
          />
        ) : (
          <input
            {...control}
            ref={inputRef}
            type={input === 'secret' ? 'password' : input === 'text' || input === 'url' || input === 'email' ? input : 'text'}
            value={text}
            maxLength={limits.maxLength}
            placeholder={field.placeholder}
            autoComplete={input === 'secret' ? 'new-password' : 'off'}
            spellCheck={false}
            onChange={(e) => onChange(e.target.value)}
            onBlur={onBlur}
          />
        )
      }
    </Field>
  );
}
