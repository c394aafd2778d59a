import { useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { Field } from '../../forms.tsx';
import { type MonitorFormValues, splitTarget } from './monitor-form-model.ts';

/**
 * The `host:port` a monitor checks, as two inputs, with its declaration's words: its hint beside
 * the host, its placeholder split between the two. The service's message about the target goes
 * beside the one the model blames (`failureOf`).
 */
export function TargetFields({ spec, hostError, portError }: { spec: DeclaredFieldHints; hostError: string | undefined; portError: string | undefined }) {
  const { register } = useFormContext<MonitorFormValues>();
  const placeholder = splitTarget(spec.placeholder ?? '');
  return (
    <div className="monitor-form-target">
      <Field label="Host" hint={spec.hint} error={hostError} className="monitor-form-host">
        {(field) => <input {...field} {...register('host')} type="text" placeholder={placeholder.host} autoComplete="off" spellCheck={false} />}
      </Field>
      <Field label="Port" hint={`${MONITOR_LIMITS.port.min} to ${MONITOR_LIMITS.port.max}.`} error={portError} className="monitor-form-port">
        {(field) => <input {...field} {...register('port')} type="text" inputMode="numeric" placeholder={placeholder.port} autoComplete="off" />}
      </Field>
    </div>
  );
}
