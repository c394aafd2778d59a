import { useId } from 'react';
import { type UseFormReturn, useWatch } from 'react-hook-form';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { Field, type FieldErrors, FieldGroup, FormProblems, matchViolations } from '../forms.tsx';
import { useServiceForm } from '../service-form.ts';
import { AffectedComponents, FormActions, NotifyChoice } from './page-form-parts.tsx';
import type { MaintenanceFormValues } from './page-maintenance-model.ts';
import './maintenance-calendar.css';

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
  const repeats = useWatch({ control: form.control, name: 'repeats' });
  const headingId = useId();
  const errors = matchViolations(refusal, [
    'title',
    'message',
    'from',
    'to',
    'pageComponentIds',
    'notify',
    'repeat',
    'repeat.days',
    'repeat.time',
    'repeat.dayOfMonth',
    'repeat.cron',
    'repeat.durationMinutes',
    'repeat.timeZone',
    'repeat.until',
  ]);

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
        <Field label="Repeats" error={errors.of('repeat')}>
          {(control) => (
            <select {...control} {...form.register('repeats')}>
              <option value="none">Does not repeat</option>
              <option value="weekly">Weekly</option>
              <option value="monthly">Monthly</option>
              <option value="cron">By a cron expression</option>
            </select>
          )}
        </Field>
        <div className="form-grid">
          <Field
            label={repeats === 'none' ? 'Starts' : 'Repeats from'}
            hint={repeats === 'none' ? `Your local time (${timeZone}).` : `No occurrence before this (your local time, ${timeZone}).`}
            error={errors.of('from')}
          >
            {(control) => <input {...control} {...form.register('from')} type="datetime-local" />}
          </Field>
          {repeats === 'none' ? (
            <Field label="Ends" hint="After the start." error={errors.of('to')}>
              {(control) => <input {...control} {...form.register('to')} type="datetime-local" min={from || undefined} />}
            </Field>
          ) : (
            <Field label="Until (optional)" hint="No occurrence starts after this." error={errors.of('repeat.until')}>
              {(control) => <input {...control} {...form.register('until')} type="datetime-local" min={from || undefined} />}
            </Field>
          )}
        </div>
        {repeats === 'none' ? null : <RepeatFields form={form} repeats={repeats} errors={errors} />}
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

const DAYS = [
  ['mon', 'Mon', 'Monday'],
  ['tue', 'Tue', 'Tuesday'],
  ['wed', 'Wed', 'Wednesday'],
  ['thu', 'Thu', 'Thursday'],
  ['fri', 'Fri', 'Friday'],
  ['sat', 'Sat', 'Saturday'],
  ['sun', 'Sun', 'Sunday'],
] as const;

/** The parts of a repeating window's rule: the days or day of the month, or a cron expression; a start time, a duration and a time zone. */
function RepeatFields({
  form,
  repeats,
  errors,
}: {
  form: UseFormReturn<MaintenanceFormValues>;
  repeats: MaintenanceFormValues['repeats'];
  errors: FieldErrors;
}) {
  return (
    <>
      {repeats === 'weekly' ? (
        <FieldGroup legend="On" error={errors.of('repeat.days')} className="weekday-choice">
          {(control) => (
            <div className="weekday-boxes">
              {DAYS.map(([value, short, long]) => (
                <label key={value} className="weekday-box" title={long}>
                  <input type="checkbox" value={value} {...control} {...form.register('days')} />
                  <span aria-hidden="true">{short}</span>
                  <span className="visually-hidden">{long}</span>
                </label>
              ))}
            </div>
          )}
        </FieldGroup>
      ) : null}
      <div className="form-grid">
        {repeats === 'cron' ? (
          <Field label="Cron expression" hint="Five fields: minute hour day-of-month month day-of-week, e.g. 0 2 * * 6." error={errors.of('repeat.cron')}>
            {(control) => (
              <input {...control} {...form.register('cron')} type="text" maxLength={MAINTENANCE_LIMITS.cronLength} placeholder="0 2 * * 6" spellCheck={false} />
            )}
          </Field>
        ) : (
          <Field label="At" hint="Local time in the time zone below." error={errors.of('repeat.time')}>
            {(control) => <input {...control} {...form.register('time')} type="time" />}
          </Field>
        )}
        {repeats === 'monthly' ? (
          <Field label="Day of the month" hint="A month without this day has none." error={errors.of('repeat.dayOfMonth')}>
            {(control) => <input {...control} {...form.register('dayOfMonth')} type="number" min={1} max={31} step={1} inputMode="numeric" />}
          </Field>
        ) : null}
        <Field label="Lasts (minutes)" error={errors.of('repeat.durationMinutes')}>
          {(control) => (
            <input
              {...control}
              {...form.register('durationMinutes')}
              type="number"
              min={1}
              max={MAINTENANCE_LIMITS.maxDurationMinutes}
              step={1}
              inputMode="numeric"
            />
          )}
        </Field>
        <Field label="Time zone" hint="IANA name, e.g. Europe/Paris." error={errors.of('repeat.timeZone')}>
          {(control) => <input {...control} {...form.register('timeZone')} type="text" maxLength={MAINTENANCE_LIMITS.timeZoneLength} spellCheck={false} />}
        </Field>
      </div>
    </>
  );
}
