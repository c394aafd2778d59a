import { Controller, useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { Field, type FieldErrors, TagInput } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

/** The monitor's name, description and tags. */
export function AboutFields({ errors }: { errors: FieldErrors }) {
  const { register, control } = useFormContext<MonitorFormValues>();
  return (
    <>
      <Field label="Name" hint={`1 to ${MONITOR_LIMITS.nameLength} characters.`} error={errors.of('monitor.name')}>
        {(field) => <input {...field} {...register('name')} type="text" autoComplete="off" />}
      </Field>
      <Field label="Description" hint={`Optional, up to ${MONITOR_LIMITS.descriptionLength} characters.`} error={errors.of('monitor.description')}>
        {(field) => <textarea {...field} {...register('description')} rows={3} />}
      </Field>
      <Controller
        control={control}
        name="tags"
        render={({ field }) => (
          <TagInput
            label="Tags"
            tags={field.value}
            onChange={field.onChange}
            error={errors.of('monitor.tags')}
            hint={`Up to ${MONITOR_LIMITS.tags} labels for grouping. Press Enter or type a comma after each.`}
          />
        )}
      />
    </>
  );
}
