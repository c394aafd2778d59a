import { type ReactNode, useId } from 'react';
import { Controller, type FieldPath, useFormContext } from 'react-hook-form';
import { Field, type FieldErrors, FieldGroup, FieldMessage } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { hintOf, inputOf, type MonitorType, placeholderOf, type TypeFieldSpec, typeOf } from './type-fields.ts';

/** The editors of fields that are not plain inputs (a `host:port` target, a map, the request body), by the field's name. */
export type OwnEditors = Partial<Record<string, (spec: TypeFieldSpec) => ReactNode>>;

/**
 * A type's own fields in the order it declares them: each plain one (text, number, choice,
 * switch) drawn from its declaration in the contract, so its label, hint, placeholder, bounds,
 * choices and default are the service's own; the others by their editor in `editors`, if any. A
 * type whose fields are all plain needs no drawing code of its own. `shown` leaves out the fields
 * that do not apply to what is chosen (an MCP monitor's fields of the other transport).
 */
export function TypeFields({
  type,
  errors,
  editors,
  shown = () => true,
}: {
  type: MonitorType;
  errors: FieldErrors;
  editors: OwnEditors;
  shown?: (name: string) => boolean;
}) {
  return (
    <>
      {(typeOf(type).fields as readonly TypeFieldSpec[])
        .filter((spec) => shown(spec.name))
        .map((spec) =>
          inputOf(type, spec).kind === 'own' ? (
            <OwnEditor key={spec.name} spec={spec} editors={editors} />
          ) : (
            <TypeField key={spec.name} type={type} spec={spec} error={errors.of(`monitor.${spec.name}`)} />
          ),
        )}
    </>
  );
}

function OwnEditor({ spec, editors }: { spec: TypeFieldSpec; editors: OwnEditors }) {
  return <>{editors[spec.name]?.(spec) ?? null}</>;
}

/** One plain field of a type, held in the form under its declared name. */
function TypeField({ type, spec, error }: { type: MonitorType; spec: TypeFieldSpec; error: string | undefined }) {
  const id = useId();
  const { register, control } = useFormContext<MonitorFormValues>();
  const name = spec.name as FieldPath<MonitorFormValues>;
  const hint = hintOf(spec);
  const placeholder = placeholderOf(spec);
  const input = inputOf(type, spec);
  switch (input.kind) {
    case 'text':
      return (
        <Field label={spec.label} hint={hint} error={error}>
          {(field) => (
            <input
              {...field}
              {...register(name)}
              type={input.url ? 'url' : 'text'}
              maxLength={input.maxLength}
              placeholder={placeholder}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </Field>
      );
    case 'number':
      return (
        <Field label={spec.label} hint={hint} error={error}>
          {(field) => (
            <input
              {...field}
              {...register(name)}
              type="number"
              min={input.min}
              max={input.max}
              step={input.integer ? '1' : 'any'}
              inputMode={input.integer ? 'numeric' : 'decimal'}
              placeholder={placeholder}
            />
          )}
        </Field>
      );
    case 'check': {
      // A switch the service may refuse (an MCP stdio command without consent): its message under it.
      const described = [hint ? `${id}-hint` : '', error ? `${id}-message` : ''].filter(Boolean).join(' ') || undefined;
      return (
        <div className={`check-row${error ? ' field-invalid' : ''}`}>
          <input type="checkbox" id={id} {...register(name)} aria-invalid={error ? true : undefined} aria-describedby={described} />
          <label htmlFor={id}>{spec.label}</label>
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
    case 'choice':
      // A few choices side by side as radios; more in a list.
      return input.choices.length <= 4 ? (
        <Controller
          control={control}
          name={name}
          render={({ field }) => (
            <FieldGroup legend={spec.label} hint={hint} error={error} className="type-field-choice">
              {(group) => (
                <div className="choice-pills">
                  {input.choices.map((choice) => (
                    <div className="choice-pill" key={choice}>
                      <input
                        type="radio"
                        id={`${id}-${choice}`}
                        name={`${id}-${spec.name}`}
                        checked={field.value === choice}
                        aria-invalid={group['aria-invalid']}
                        aria-describedby={group['aria-describedby']}
                        onChange={() => field.onChange(choice)}
                      />
                      <label htmlFor={`${id}-${choice}`}>{choice}</label>
                    </div>
                  ))}
                </div>
              )}
            </FieldGroup>
          )}
        />
      ) : (
        <Field label={spec.label} hint={hint} error={error} className="type-field-select">
          {(field) => (
            <select {...field} {...register(name)}>
              {input.choices.map((choice) => (
                <option key={choice} value={choice}>
                  {choice}
                </option>
              ))}
            </select>
          )}
        </Field>
      );
    case 'own':
      return null;
  }
}
