import { type DeclaredFieldHints, type FieldValue, choicesOfRange, hintOf, inputOf, itemOf, labelOf, rowPlaceholdersOf } from './declared-fields.ts';
import { Field, type FieldErrors, KeyValueEditor, type KeyValueRow, TagInput } from './forms.tsx';

// One input for any field the service declares (contract/): its label, hint, placeholder and
// bounds are the declaration's, so a form draws a channel kind's or a monitor type's fields
// without naming them. What the form holds and sends is declared-fields.ts.

interface DeclaredFieldProps {
  field: DeclaredFieldHints;
  value: FieldValue;
  onChange(value: FieldValue): void;
  errors: FieldErrors;
  /** The field's name in the service's violations, e.g. `ntfy.topic`. */
  path: string;
  /** The masked value the service shows for a stored credential: the input starts empty, and empty keeps it. */
  masked?: string | undefined;
}

/** Whether the input sits in a grid beside others (a list or a map takes the whole width). */
export const isInline = (field: DeclaredFieldHints) => inputOf(field) !== 'list' && inputOf(field) !== 'map';

export function DeclaredField({ field, value, onChange, errors, path, masked }: DeclaredFieldProps) {
  const input = inputOf(field);
  const label = labelOf(field);
  const hint = masked ? `Stored and hidden (${masked}). Leave empty to keep it.` : hintOf(field);
  const error = errors.of(path);
  const { schema } = field;

  if (input === 'list') {
    return (
      <TagInput
        label={label}
        tags={value as string[]}
        onChange={onChange}
        error={error}
        hint={[field.hint, 'Press Enter or type a comma after each.'].filter(Boolean).join(' ')}
      />
    );
  }
  if (input === 'map') {
    const item = itemOf(field);
    const placeholders = rowPlaceholdersOf(field);
    return (
      <KeyValueEditor
        legend={label}
        item={item}
        field={path}
        rows={value as KeyValueRow[]}
        onChange={onChange}
        errors={errors}
        hint={field.hint}
        namePlaceholder={placeholders.name}
        valuePlaceholder={placeholders.value}
        keptHint={
          field.credential
            ? `Hidden by the service. Changing the ${field.label.toLowerCase()} replaces them all: type this value again, or leave every ${item.toLowerCase()} as it is.`
            : undefined
        }
      />
    );
  }

  const text = value as string;
  const range = input === 'number' ? choicesOfRange(field) : undefined;
  const choices = input === 'choice' ? schema.enum : range;
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) =>
        choices ? (
          <select {...control} value={text} onChange={(e) => onChange(e.target.value)}>
            {field.required || (input === 'choice' && schema.default !== undefined) ? null : <option value="">Not set</option>}
            {choices.map((choice) => (
              <option key={choice} value={String(choice)}>
                {choice}
              </option>
            ))}
          </select>
        ) : (
          <input
            {...control}
            type={input === 'secret' ? 'password' : input === 'number' ? 'number' : input}
            value={text}
            placeholder={field.placeholder}
            autoComplete={input === 'secret' ? 'new-password' : 'off'}
            spellCheck={input === 'text' || input === 'secret' ? false : undefined}
            maxLength={schema.maxLength}
            min={schema.minimum}
            max={schema.maximum}
            step={schema.type === 'integer' ? 1 : undefined}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}
