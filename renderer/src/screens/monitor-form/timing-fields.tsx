import { useFormContext } from 'react-hook-form';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues, MonitorType } from './monitor-form-model.ts';

const { timeoutMs, retry } = MONITOR_LIMITS;
const seconds = (ms: number) => ms / 1000;

/** What the timeout covers, for each type. */
const TIMEOUT_COVERS: Record<MonitorType, string> = {
  tcp: 'Wait for the connection.',
  grpc: 'For the whole check.',
  http: 'For the whole request.',
  mcp: 'For the whole check: connection or start, handshake and listing.',
  ping: 'For the whole check: the lookup and every round of packets, retries included.',
  websocket: 'For the whole check: connection, upgrade and the expected message.',
  certificate: 'For the whole check: connection and TLS handshake.',
  dns: 'For the whole check: every query, retries and resolvers included; each query gets an even share.',
  heartbeat: 'Not used: a heartbeat runs no check.',
};

/** How long a check may take, when a passing one counts as slow, and how often a failed connection is tried again. */
export function TimingFields({ type, errors }: { type: MonitorType; errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <div className="monitor-form-numbers">
      <Field
        label="Timeout (seconds)"
        hint={`${TIMEOUT_COVERS[type]} Default ${seconds(timeoutMs.default)}, at most ${seconds(timeoutMs.max)}.`}
        error={errors.of('monitor.timeout')}
      >
        {(field) => (
          <input
            {...field}
            {...register('timeoutSeconds')}
            type="number"
            min={seconds(timeoutMs.min)}
            max={seconds(timeoutMs.max)}
            step="any"
            inputMode="decimal"
            placeholder={String(seconds(timeoutMs.default))}
          />
        )}
      </Field>
      <Field
        label="Degraded after (milliseconds)"
        hint="A passing check slower than this counts as degraded. Below the timeout; empty for never."
        error={errors.of('monitor.degraded')}
      >
        {(field) => <input {...field} {...register('degradedMs')} type="number" min="1" step="1" inputMode="numeric" />}
      </Field>
      <Field
        label="Retries"
        hint={`${type === 'dns' ? 'Of a query with no answer; an answer, even NXDOMAIN or SERVFAIL, is never asked again.' : type === 'ping' ? 'Rounds of packets tried again when every packet is lost or the name does not resolve.' : type === 'grpc' || type === 'mcp' || type === 'websocket' ? 'Of a failed connection; an answer is never retried.' : 'Of a failed connection.'} 0 to ${retry.max}, default ${retry.default}.`}
        error={errors.of('monitor.retry')}
      >
        {(field) => (
          <input {...field} {...register('retry')} type="number" min="0" max={retry.max} step="1" inputMode="numeric" placeholder={String(retry.default)} />
        )}
      </Field>
    </div>
  );
}
