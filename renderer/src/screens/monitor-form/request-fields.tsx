import { Controller, useFormContext, useWatch } from 'react-hook-form';
import { HEADER_LIMITS, kibibytes, MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { HTTPMethod } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import { EnumSelect, Field, type FieldErrors } from '../../forms.tsx';
import { HeaderFields } from './header-fields.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { METHODS } from './monitor-options.ts';

/** The request an HTTP monitor sends: method, URL, headers, body, and whether redirects are followed. */
export function RequestFields({ errors }: { errors: FieldErrors }) {
  const { register, control } = useFormContext<MonitorFormValues>();
  const method = useWatch({ control, name: 'method' });
  const bodyNotAllowed = method === HTTPMethod.HTTP_METHOD_GET || method === HTTPMethod.HTTP_METHOD_HEAD;
  return (
    <>
      <div className="monitor-form-request">
        <Field label="Method" error={errors.of('monitor.method')} className="monitor-form-method">
          {(field) => (
            <Controller
              control={control}
              name="method"
              render={({ field: select }) => <EnumSelect control={field} value={select.value} choices={METHODS} onChange={select.onChange} />}
            />
          )}
        </Field>
        <Field
          label="URL"
          hint="An absolute http:// or https:// URL, without credentials: send them in a header."
          error={errors.of('monitor.url')}
          className="monitor-form-url"
        >
          {(field) => <input {...field} {...register('url')} type="url" placeholder="https://example.com/health" autoComplete="off" spellCheck={false} />}
        </Field>
      </div>
      <HeaderFields
        name="headers"
        legend="Request headers"
        item="Header"
        errors={errors}
        field="monitor.headers"
        hint={`At most ${HEADER_LIMITS.entries}, ${kibibytes(HEADER_LIMITS.bytes)} in all.`}
        namePlaceholder="accept"
      />
      <Field
        label="Request body"
        hint={bodyNotAllowed ? 'Not sent with GET or HEAD: choose POST, PUT or PATCH to send one.' : `Up to ${kibibytes(MONITOR_LIMITS.bodyBytes)}.`}
        error={errors.of('monitor.body')}
      >
        {(field) => <textarea {...field} {...register('body')} rows={4} spellCheck={false} />}
      </Field>
      <div className="check-row">
        <input type="checkbox" id="monitor-follow" {...register('followRedirects')} aria-describedby="monitor-follow-hint" />
        <label htmlFor="monitor-follow">Follow redirects</label>
        <small id="monitor-follow-hint" className="field-hint">
          Up to {MONITOR_LIMITS.redirects}; the assertions apply to the last answer.
        </small>
      </div>
    </>
  );
}
