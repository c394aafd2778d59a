import { useId } from 'react';
import { useController, useFormContext, useWatch } from 'react-hook-form';
import { HEARTBEAT_LIMITS } from '../../../../contract/limits.ts';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { Field, type FieldErrors, FieldGroup } from '../../forms.tsx';
import type { DurationUnit, MonitorFormValues, ScheduleKind } from './monitor-form-model.ts';
import { specOf } from './type-fields.ts';
import './heartbeat-fields.css';

// The fields of a heartbeat monitor: its schedule (its target), written as a period after each
// success or as a cron expression in a time zone, and its grace time. Their words and bounds are
// the contract's (contract/monitor-types.ts, contract/limits.ts); a period and a grace time are
// typed as a count of a unit, which the model writes as the service takes them.

const UNIT_WORDS: Record<DurationUnit, string> = { m: 'minutes', h: 'hours', d: 'days', w: 'weeks' };
const KINDS: { kind: ScheduleKind; label: string }[] = [
  { kind: 'period', label: 'A period after each success' },
  { kind: 'cron', label: 'A cron expression' },
];

/** `30 d` from milliseconds, for the hints. */
const days = (ms: number) => `${ms / 86_400_000} days`;

/** This browser's time zone, offered as the cron expression's with one click; undefined where it is not known. */
function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/** A count and its unit, side by side. */
function CountOfUnit({
  label,
  hint,
  error,
  count,
  unit,
  units,
}: {
  label: string;
  hint: string;
  error: string | undefined;
  count: 'periodCount' | 'graceCount';
  unit: 'periodUnit' | 'graceUnit';
  units: readonly DurationUnit[];
}) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <Field label={label} hint={hint} error={error} className="heartbeat-duration">
      {(field) => (
        <div className="heartbeat-duration-inputs">
          <input {...field} {...register(count)} type="number" min="1" step="1" inputMode="numeric" />
          <select {...register(unit)} aria-label={`${label}: unit`}>
            {units.map((u) => (
              <option key={u} value={u}>
                {UNIT_WORDS[u]}
              </option>
            ))}
          </select>
        </div>
      )}
    </Field>
  );
}

/** When pings are expected: the kind of schedule, then its period, or its cron expression and time zone. */
export function HeartbeatScheduleField({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  const id = useId();
  const { register, setValue } = useFormContext<MonitorFormValues>();
  const { field: kind } = useController<MonitorFormValues, 'scheduleKind'>({ name: 'scheduleKind' });
  const timezone = specOf('heartbeat', 'timezone');
  const zone = browserTimeZone();
  const chosenZone = useWatch<MonitorFormValues, 'timezone'>({ name: 'timezone' });
  const scheduleError = errors.of('monitor.schedule');
  return (
    <>
      <FieldGroup legend={spec.label} hint={spec.hint} className="heartbeat-kind">
        {(control) => (
          <div className="choice-pills">
            {KINDS.map((k) => (
              <div className="choice-pill" key={k.kind}>
                <input
                  type="radio"
                  id={`${id}-${k.kind}`}
                  name={`${id}-kind`}
                  checked={kind.value === k.kind}
                  aria-describedby={control['aria-describedby']}
                  onChange={() => kind.onChange(k.kind)}
                />
                <label htmlFor={`${id}-${k.kind}`}>{k.label}</label>
              </div>
            ))}
          </div>
        )}
      </FieldGroup>
      {kind.value === 'period' ? (
        <CountOfUnit
          label="Expected every"
          hint={`After each success. 1 minute to ${days(HEARTBEAT_LIMITS.periodMs.max)}.`}
          error={scheduleError}
          count="periodCount"
          unit="periodUnit"
          units={['m', 'h', 'd', 'w']}
        />
      ) : (
        <div className="heartbeat-cron">
          <Field
            label="Cron expression"
            hint="Five fields: minute, hour, day of the month, month, day of the week, e.g. 30 2 * * 1-5 for 02:30 on weekdays; or @hourly, @daily, @weekly."
            error={scheduleError}
          >
            {(field) => <input {...field} {...register('cron')} type="text" placeholder={spec.placeholder} autoComplete="off" spellCheck={false} />}
          </Field>
          <Field label={timezone.label} hint={timezone.hint} error={errors.of('monitor.timezone')}>
            {(field) => (
              <div className="heartbeat-zone">
                <input {...field} {...register('timezone')} type="text" placeholder={timezone.placeholder} autoComplete="off" spellCheck={false} />
                {zone && zone !== chosenZone ? (
                  <button type="button" className="button button-small button-ghost" onClick={() => setValue('timezone', zone, { shouldDirty: true })}>
                    Use {zone}
                  </button>
                ) : null}
              </div>
            )}
          </Field>
        </div>
      )}
    </>
  );
}

/** How late an expected ping may be, and the longest a run may take. */
export function HeartbeatGraceField({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  const { min, max } = HEARTBEAT_LIMITS.graceMs;
  return (
    <CountOfUnit
      label={spec.label}
      hint={`${spec.hint ?? ''} ${min / 60_000} minute to ${days(max)}.`}
      error={errors.of('monitor.grace')}
      count="graceCount"
      unit="graceUnit"
      units={['m', 'h', 'd']}
    />
  );
}
