import type { ComponentProps } from 'react';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { KeyValueList } from '../../forms.tsx';
import { changedRow, rowKey } from '../../key-value-rows.ts';
import type { MonitorFormValues } from './monitor-form-model.ts';

type HeaderMap = 'headers' | 'metadata' | 'otlpHeaders' | 'env';

/**
 * A map of names and values (request headers, gRPC metadata, OTLP headers, an MCP command's
 * environment) as a field array of the form: rows added and removed by react-hook-form, each
 * change marking the map changed.
 */
export function HeaderFields({
  name,
  ...shown
}: { name: HeaderMap } & Omit<ComponentProps<typeof KeyValueList>, 'rows' | 'onAdd' | 'onRemove' | 'onChangeRow'>) {
  const { control, getValues, setValue } = useFormContext<MonitorFormValues>();
  const { append, remove } = useFieldArray({ control, name });
  const rows = useWatch({ control, name });
  return (
    <KeyValueList
      {...shown}
      rows={rows}
      onAdd={() => append({ key: rowKey(), name: '', value: '' }, { shouldFocus: false })}
      onRemove={remove}
      onChangeRow={(index, change) => setValue(`${name}.${index}`, changedRow(getValues(`${name}.${index}`), change), { shouldDirty: true })}
    />
  );
}
