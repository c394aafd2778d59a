import { useFormContext, useWatch } from 'react-hook-form';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues } from './monitor-form-model.ts';
import { TypeField } from './type-field.tsx';
import { textListLimits } from './type-fields.ts';

// The fields of an MCP monitor whose input follows the transport chosen or is not one line: the
// server (a URL or a command) and the command's arguments. The transport, the working folder and
// the consent are plain (type-field.tsx); the headers and the environment are name/value lists
// (header-fields.tsx).

/** The server: a URL input for Streamable HTTP, a command for stdio, with its declaration's words. */
export function McpServerField({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  const { control } = useFormContext<MonitorFormValues>();
  const url = useWatch({ control, name: 'transport' }) === 'http';
  // The declared example is a URL: no use as the example of a command.
  const { placeholder: _, ...command } = spec;
  const field: DeclaredFieldHints = url ? { ...spec, input: 'url' } : command;
  return <TypeField field={field} error={errors.of('monitor.server')} />;
}

/** The command's arguments, one per line, each given to it as it is. */
export function McpArgsField({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  const { register } = useFormContext<MonitorFormValues>();
  const { items, maxLength } = textListLimits(spec);
  const bounds = items === undefined ? '' : ` At most ${items}${maxLength === undefined ? '' : `, each up to ${maxLength} characters`}.`;
  return (
    <Field label={spec.label} hint={`${spec.hint ?? ''}${bounds}`} error={errors.of('monitor.args')}>
      {(field) => <textarea {...field} {...register('args')} rows={3} spellCheck={false} autoComplete="off" wrap="off" />}
    </Field>
  );
}
