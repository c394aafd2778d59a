import { useFormContext } from 'react-hook-form';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { hintOf, type TypeFieldSpec } from './type-fields.ts';

/**
 * The body an HTTP monitor sends, with its declaration's words (its size, and that GET and HEAD
 * send none). Its editor is its own: a multi-line box rather than one line.
 */
export function RequestBody({ spec, errors }: { spec: TypeFieldSpec; errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <Field label={spec.label} hint={hintOf(spec)} error={errors.of('monitor.body')}>
      {(field) => <textarea {...field} {...register('body')} rows={4} spellCheck={false} />}
    </Field>
  );
}
