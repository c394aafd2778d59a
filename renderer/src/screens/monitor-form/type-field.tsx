import type { ReactNode } from 'react';
import { Controller, type FieldPath, useFormContext } from 'react-hook-form';
import { DeclaredField } from '../../declared-field.tsx';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import type { FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { declaredOf, editorOf, type MonitorType, type TypeFieldSpec, typeOf } from './type-fields.ts';

/** The editors of fields that are not plain inputs (a `host:port` target, a map, the request body), by the field's name. */
export type OwnEditors = Partial<Record<string, (spec: DeclaredFieldHints) => ReactNode>>;

/**
 * A type's own fields in the order it declares them: each plain one (text, number, choice,
 * switch) drawn from its declaration in the contract (`DeclaredField`), so its label, hint,
 * placeholder, bounds, choices and default are the service's own; the others by their editor in
 * `editors`, if any. A type whose fields are all plain needs no drawing code of its own. `shown`
 * leaves out the fields that do not apply to what is chosen (an MCP monitor's fields of the other
 * transport).
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
          editorOf(type, spec) === 'own' ? (
            <OwnEditor key={spec.name} spec={spec} editors={editors} />
          ) : (
            <TypeField key={spec.name} field={declaredOf(type, spec)} error={errors.of(`monitor.${spec.name}`)} />
          ),
        )}
    </>
  );
}

function OwnEditor({ spec, editors }: { spec: DeclaredFieldHints; editors: OwnEditors }) {
  return <>{editors[spec.name]?.(spec) ?? null}</>;
}

/** One plain field, held in the form under its declared name. */
export function TypeField({ field, error }: { field: DeclaredFieldHints; error: string | undefined }) {
  const { control } = useFormContext<MonitorFormValues>();
  return (
    <Controller
      control={control}
      name={field.name as FieldPath<MonitorFormValues>}
      render={({ field: held }) => (
        <DeclaredField field={field} error={error} value={held.value as string | boolean} onChange={held.onChange} onBlur={held.onBlur} inputRef={held.ref} />
      )}
    />
  );
}
