import { useFormContext } from 'react-hook-form';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

/**
 * The body an HTTP monitor sends, with its declaration's words (its size, and that GET and HEAD
 * send none). Its editor is its own: a multi-line box rather than one line.
 */
export function RequestBody({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <Field label={spec.label} hint={spec.hint} error={errors.of('monitor.body')}>
      {(field) => <textarea {...field} {...register('body')} rows={4} spellCheck={false} />}
    </Field>
  );
}
