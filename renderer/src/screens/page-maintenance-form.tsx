import { useId } from 'react';
import { useWatch } from 'react-hook-form';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { Field, FormProblems, matchViolations } from '../forms.tsx';
import { useServiceForm } from '../service-form.ts';
import { AffectedComponents, FormActions, NotifyChoice } from './page-form-parts.tsx';
import type { MaintenanceFormValues } from './page-maintenance-model.ts';

/** The viewer's time zone, in which the form's times are typed. */
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A maintenance window's form: a new one (`announce`, which asks whether to notify subscribers) or a scheduled one. */
export function MaintenanceForm({
  title,
  submitLabel,
  components,
  initial,
  announce = false,
  onCancel,
  onSubmit,
}: {
  title: string;
  submitLabel: string;
  components: PageComponent[];
  initial: MaintenanceFormValues;
  /** A new window is announced: the form asks whether to notify subscribers. */
  announce?: boolean;
  onCancel: (() => void) | undefined;
  onSubmit(values: MaintenanceFormValues): Promise<void>;
}) {
  const { form, refusal, ref, onSubmit: submit, busy } = useServiceForm(initial, onSubmit);
  const from = useWatch({ control: form.control, name: 'from' });
  const headingId = useId();
  const errors = matchViolations(refusal, ['title', 'message', 'from', 'to', 'pageComponentIds', 'notify']);

  return (
    <div className="card section maintenance-form" role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <form ref={ref} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={refusal} errors={errors} />
        <Field label="Title" error={errors.of('title')}>
          {(control) => (
            <input {...control} {...form.register('title')} type="text" maxLength={MAINTENANCE_LIMITS.titleLength} placeholder="Database upgrade" />
          )}
        </Field>
        <div className="form-grid">
          <Field label="Starts" hint={`Your local time (${timeZone}).`} error={errors.of('from')}>
            {(control) => <input {...control} {...form.register('from')} type="datetime-local" />}
          </Field>
          <Field label="Ends" hint="After the start." error={errors.of('to')}>
            {(control) => <input {...control} {...form.register('to')} type="datetime-local" min={from || undefined} />}
          </Field>
        </div>
        <AffectedComponents control={form.control} name="pageComponentIds" components={components} error={errors.of('pageComponentIds')} />
        <Field label="Message (optional)" hint="What visitors should know about the work." error={errors.of('message')}>
          {(control) => <textarea {...control} {...form.register('message')} rows={2} />}
        </Field>
        {announce ? (
          <NotifyChoice control={form.control} name="notify" serviceRule={errors.of('notify')} />
        ) : (
          <p className="field-hint">Changes show on the page at once; subscribers are not told of them.</p>
        )}
        <FormActions busy={busy} submitLabel={submitLabel} onCancel={onCancel} />
      </form>
    </div>
  );
}
