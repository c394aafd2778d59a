import { useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

const { remindEveryMs } = MONITOR_LIMITS;
const minutes = (ms: number) => ms / 60_000;

/** What the monitor's channels hear beyond each change: a reminder while it stays down. */
export function AlertFields({ errors }: { errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <div className="monitor-form-numbers">
      <Field
        label="Remind every (minutes)"
        hint={`While the monitor stays down or degraded, its channels are reminded this often: ${minutes(remindEveryMs.min)} minutes to ${minutes(remindEveryMs.max) / 1440} days. Empty: never.`}
        error={errors.of('monitor.remindEvery')}
      >
        {(field) => (
          <input
            {...field}
            {...register('remindMinutes')}
            type="number"
            min={minutes(remindEveryMs.min)}
            max={minutes(remindEveryMs.max)}
            step="1"
            inputMode="numeric"
          />
        )}
      </Field>
    </div>
  );
}
