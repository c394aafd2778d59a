import { useId } from 'react';
import { Controller, useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { Field, type FieldErrors, TagInput } from '../../forms.tsx';
import { GroupSuggestions } from '../overview-groups.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

/** The monitor's name, description, group and tags. */
export function AboutFields({ errors, workspaceId }: { errors: FieldErrors; workspaceId: string }) {
  const { register, control } = useFormContext<MonitorFormValues>();
  const groupsId = useId();
  return (
    <>
      <Field label="Name" hint={`1 to ${MONITOR_LIMITS.nameLength} characters.`} error={errors.of('monitor.name')}>
        {(field) => <input {...field} {...register('name')} type="text" autoComplete="off" />}
      </Field>
      <Field label="Description" hint={`Optional, up to ${MONITOR_LIMITS.descriptionLength} characters.`} error={errors.of('monitor.description')}>
        {(field) => <textarea {...field} {...register('description')} rows={3} />}
      </Field>
      <Field label="Group" hint="Monitors in one group are shown together on the overview. Empty: no group." error={errors.of('monitor.group')}>
        {(field) => (
          <>
            <input {...field} {...register('group')} type="text" autoComplete="off" maxLength={MONITOR_LIMITS.groupLength} list={groupsId} />
            <GroupSuggestions id={groupsId} workspaceId={workspaceId} />
          </>
        )}
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
