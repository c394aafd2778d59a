import { useFormContext, useWatch } from 'react-hook-form';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { hintOf, maxLengthOf, placeholderOf, type TypeFieldSpec, textListLimits } from './type-fields.ts';

// The fields of an MCP monitor that are not plain inputs: the server (a URL or a command, as the
// transport chosen says) and the command's arguments. The transport, the working folder and the
// consent are plain (type-field.tsx); the headers and the environment are name/value lists
// (header-fields.tsx).

/** The server: a URL input for Streamable HTTP, a command for stdio, with its declaration's words. */
export function McpServerField({ spec, errors }: { spec: TypeFieldSpec; errors: FieldErrors }) {
  const { register, control } = useFormContext<MonitorFormValues>();
  const transport = useWatch({ control, name: 'transport' });
  const url = transport === 'http';
  return (
    <Field label={spec.label} hint={hintOf(spec)} error={errors.of('monitor.server')}>
      {(field) => (
        <input
          {...field}
          {...register('server')}
          type={url ? 'url' : 'text'}
          maxLength={maxLengthOf(spec)}
          // The declared example is a URL: no use as the example of a command.
          placeholder={url ? placeholderOf(spec) : undefined}
          autoComplete="off"
          spellCheck={false}
        />
      )}
    </Field>
  );
}

/** The command's arguments, one per line, each given to it as it is. */
export function McpArgsField({ spec, errors }: { spec: TypeFieldSpec; errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  const { items, maxLength } = textListLimits(spec);
  const bounds = items === undefined ? '' : ` At most ${items}${maxLength === undefined ? '' : `, each up to ${maxLength} characters`}.`;
  return (
    <Field label={spec.label} hint={`${hintOf(spec) ?? ''}${bounds}`} error={errors.of('monitor.args')}>
      {(field) => <textarea {...field} {...register('args')} rows={3} spellCheck={false} autoComplete="off" wrap="off" />}
    </Field>
  );
}
