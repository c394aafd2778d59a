import { useId } from 'react';
import { Controller, useFormContext } from 'react-hook-form';
import { Field, type FieldErrors, FieldGroup } from '../../forms.tsx';
import { HeaderFields } from './header-fields.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { TLS_MODES } from './monitor-options.ts';

/** What a gRPC monitor adds to its target: the service asked about, how to connect, the metadata sent. */
export function GrpcFields({ errors }: { errors: FieldErrors }) {
  const id = useId();
  const { register, control } = useFormContext<MonitorFormValues>();
  return (
    <>
      <Field
        label="Service name"
        hint="Sent in the health request, e.g. my.package.MyService. Empty checks the whole server. A service name, not a method path."
        error={errors.of('monitor.service')}
      >
        {(field) => <input {...field} {...register('service')} type="text" autoComplete="off" spellCheck={false} />}
      </Field>
      <Controller
        control={control}
        name="tls"
        render={({ field }) => (
          <FieldGroup legend="Connection" error={errors.of('monitor.tls')} className="radios">
            {(group) =>
              TLS_MODES.map((mode) => (
                <div className="radio" key={mode.mode}>
                  <input
                    type="radio"
                    id={`${id}-tls-${mode.mode}`}
                    name={`${id}-tls`}
                    checked={field.value === mode.mode}
                    aria-invalid={group['aria-invalid']}
                    aria-describedby={`${id}-tls-${mode.mode}-hint`}
                    onChange={() => field.onChange(mode.mode)}
                  />
                  <label htmlFor={`${id}-tls-${mode.mode}`}>{mode.label}</label>
                  <small id={`${id}-tls-${mode.mode}-hint`}>{mode.hint}</small>
                </div>
              ))
            }
          </FieldGroup>
        )}
      />
      <HeaderFields
        name="metadata"
        legend="Metadata"
        item="Metadata entry"
        errors={errors}
        field="monitor.metadata"
        hint="Sent with the request as HTTP/2 headers. Names are lower-case; grpc- names are reserved."
        namePlaceholder="authorization"
      />
    </>
  );
}
