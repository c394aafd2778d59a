import { useFormContext } from 'react-hook-form';
import { Field, type FieldErrors } from '../../forms.tsx';
import { HeaderFields } from './header-fields.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';

/** Where the monitor's timings are exported over OTLP/HTTP, and the headers sent with them. */
export function OpenTelemetryFields({ errors }: { errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <>
      <Field
        label="OTLP endpoint"
        hint="An http:// or https:// URL, e.g. http://localhost:4318/v1/metrics."
        error={errors.of('monitor.openTelemetry.endpoint') ?? errors.of('monitor.openTelemetry')}
      >
        {(field) => <input {...field} {...register('otlpEndpoint')} type="url" autoComplete="off" spellCheck={false} />}
      </Field>
      <HeaderFields
        name="otlpHeaders"
        legend="OTLP headers"
        item="OTLP header"
        errors={errors}
        field="monitor.openTelemetry.headers"
        hint="Sent with every export, e.g. an authorization entry."
        namePlaceholder="authorization"
      />
    </>
  );
}
