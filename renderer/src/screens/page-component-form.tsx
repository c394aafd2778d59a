import { useId } from 'react';
import { PAGE_LIMITS } from '../../../contract/limits.ts';
import { Field, FormProblems, matchViolations } from '../forms.tsx';
import { MonitorPicker } from '../monitor-picker.tsx';
import { useServiceForm } from '../service-form.ts';
import { type ComponentFormValues, componentFormOf } from './page-component-model.ts';
import { FormActions } from './page-form-parts.tsx';

/** A component's form: its name, the monitor it follows (or none), its group and description. */
export function ComponentForm({
  workspaceId,
  title,
  submitLabel,
  initial = componentFormOf(),
  groups,
  onCancel,
  onSubmit,
}: {
  title: string;
  submitLabel: string;
  initial?: ComponentFormValues;
  /** Whose monitors the component may follow: searched by the service, however many. */
  workspaceId: string;
  /** The page's groups, offered as the group is typed. */
  groups: string[];
  onCancel: (() => void) | undefined;
  onSubmit(values: ComponentFormValues): Promise<void>;
}) {
  const { form, refusal, ref, onSubmit: submit, busy } = useServiceForm(initial, onSubmit);
  const headingId = useId();
  const groupsId = useId();
  const errors = matchViolations(refusal, ['name', 'description', 'monitorId', 'group']);
  const monitorId = form.watch('monitorId');

  return (
    <div className="card component-form" role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <form ref={ref} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={refusal} errors={errors} />
        <div className="form-grid">
          <Field label="Name" error={errors.of('name')}>
            {(control) => <input {...control} {...form.register('name')} type="text" maxLength={PAGE_LIMITS.componentNameLength} placeholder="API" />}
          </Field>
          <Field label="Group (optional)" hint="Components of one group are shown together under its name." error={errors.of('group')}>
            {(control) => (
              <>
                <input {...control} {...form.register('group')} type="text" maxLength={PAGE_LIMITS.componentGroupLength} list={groupsId} autoComplete="off" />
                <datalist id={groupsId}>
                  {groups.map((g) => (
                    <option key={g} value={g} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Description (optional)" error={errors.of('description')}>
            {(control) => <input {...control} {...form.register('description')} type="text" />}
          </Field>
        </div>
        <MonitorPicker
          workspaceId={workspaceId}
          legend="Monitor"
          multiple={false}
          noneLabel="None: a static component"
          selected={monitorId ? [monitorId] : []}
          onChange={([chosen]) => form.setValue('monitorId', chosen ?? '', { shouldDirty: true })}
          hint={() => 'The monitor whose state the component shows, or none.'}
          error={errors.of('monitorId')}
        />
        <FormActions busy={busy} submitLabel={submitLabel} onCancel={onCancel} />
      </form>
    </div>
  );
}
