import { useId } from 'react';
import { Controller } from 'react-hook-form';
import { REPORT_LIMITS } from '../../../contract/limits.ts';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { StatusReportStatus } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import { Field, FormProblems, matchViolations } from '../forms.tsx';
import { useServiceForm } from '../service-form.ts';
import { AffectedComponents, FormActions, NotifyChoice } from './page-form-parts.tsx';
import { newReportForm, OPEN_STATUSES, REPORT_STATUS_LABELS, type ReportFormValues, type ReportUpdateFormValues } from './page-report-model.ts';

// The forms of status reports: a new report, and an update or the resolution of one. Each asks
// whether to notify subscribers before anything is published (NotifyChoice).

export function CreateReportForm({
  components,
  initial = newReportForm(),
  onCancel,
  onSubmit,
}: {
  components: PageComponent[];
  /** What the form starts with (a report made from a monitor's incident comes pre-filled); empty by default. */
  initial?: ReportFormValues;
  onCancel: (() => void) | undefined;
  onSubmit(values: ReportFormValues): Promise<void>;
}) {
  const { form, refusal, ref, onSubmit: submit, busy } = useServiceForm(initial, onSubmit);
  const errors = matchViolations(refusal, ['title', 'status', 'message', 'pageComponentIds', 'notify']);
  const headingId = useId();

  return (
    <section aria-labelledby={headingId} className="card section">
      <h3 id={headingId}>New status report</h3>
      <form ref={ref} className="stack-form" noValidate onSubmit={submit}>
        <FormProblems error={refusal} errors={errors} />
        <div className="form-grid">
          <Field label="Title" error={errors.of('title')}>
            {(control) => <input {...control} {...form.register('title')} type="text" maxLength={REPORT_LIMITS.titleLength} placeholder="Slow API responses" />}
          </Field>
          <Controller
            control={form.control}
            name="status"
            render={({ field }) => <StatusSelect value={field.value} onChange={field.onChange} error={errors.of('status')} />}
          />
        </div>
        <AffectedComponents control={form.control} name="pageComponentIds" components={components} error={errors.of('pageComponentIds')} />
        <Field label="Message" hint="The first entry of the report's timeline." error={errors.of('message')}>
          {(control) => <textarea {...control} {...form.register('message')} rows={3} />}
        </Field>
        <NotifyChoice control={form.control} name="notify" serviceRule={errors.of('notify')} />
        <FormActions busy={busy} submitLabel="Publish report" onCancel={onCancel} />
      </form>
    </section>
  );
}

/** An update of a report's timeline (`withStatus`), or its resolution. */
export function UpdateForm({
  title,
  submitLabel,
  withStatus = false,
  initial,
  onCancel,
  onSubmit,
}: {
  title: string;
  submitLabel: string;
  withStatus?: boolean;
  initial: ReportUpdateFormValues;
  onCancel(): void;
  onSubmit(values: ReportUpdateFormValues): Promise<void>;
}) {
  const { form, refusal, ref, onSubmit: submit, busy } = useServiceForm(initial, onSubmit);
  const errors = matchViolations(refusal, ['status', 'message', 'notify']);
  const headingId = useId();
  return (
    <div className="report-form" role="group" aria-labelledby={headingId}>
      <h4 id={headingId}>{title}</h4>
      <form ref={ref} className="stack-form" noValidate onSubmit={submit}>
        <FormProblems error={refusal} errors={errors} />
        {withStatus ? (
          <Controller
            control={form.control}
            name="status"
            render={({ field }) => <StatusSelect value={field.value} onChange={field.onChange} error={errors.of('status')} />}
          />
        ) : null}
        <Field label="Message" error={errors.of('message')}>
          {(control) => <textarea {...control} {...form.register('message')} rows={3} />}
        </Field>
        <NotifyChoice control={form.control} name="notify" serviceRule={errors.of('notify')} />
        <FormActions busy={busy} submitLabel={submitLabel} onCancel={onCancel} />
      </form>
    </div>
  );
}

/** The status of an open report. */
function StatusSelect({ value, onChange, error }: { value: StatusReportStatus; onChange(status: StatusReportStatus): void; error: string | undefined }) {
  return (
    <Field label="Status" error={error}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(Number(e.target.value) as StatusReportStatus)}>
          {OPEN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {REPORT_STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
