import { useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { Field } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

/**
 * The `host:port` a TCP or gRPC monitor checks, as two inputs. The service's message about the
 * target goes beside the one the model blames (`failureOf`).
 */
export function TargetFields({ type, hostError, portError }: { type: 'tcp' | 'grpc'; hostError: string | undefined; portError: string | undefined }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <div className="monitor-form-target">
      <Field label="Host" hint="A hostname or an IP address, without a scheme." error={hostError} className="monitor-form-host">
        {(field) => (
          <input
            {...field}
            {...register('host')}
            type="text"
            placeholder={type === 'grpc' ? 'api.internal' : 'db.internal'}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Field label="Port" hint={`${MONITOR_LIMITS.port.min} to ${MONITOR_LIMITS.port.max}.`} error={portError} className="monitor-form-port">
        {(field) => (
          <input {...field} {...register('port')} type="text" inputMode="numeric" placeholder={type === 'grpc' ? '50051' : '5432'} autoComplete="off" />
        )}
      </Field>
    </div>
  );
}
