import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import type { ApiError } from '../../api.ts';
import { EnumSelect, type FieldErrors } from '../../forms.tsx';
import { AssertionList, AssertionRow, Cell, type RowMessage, StringComparison } from './assertion-parts.tsx';
import {
  type AssertionList as AssertionListName,
  type MonitorFormValues,
  newBodyAssertionRow,
  newHeaderAssertionRow,
  newStatusCodeRow,
} from './monitor-form-model.ts';
import { type Failure, rowMessage } from './monitor-form-refusal.ts';
import { NUMBER_COMPARATORS } from './monitor-options.ts';
import { listLimits, specOf } from './type-fields.ts';

// The assertions of an HTTP monitor: three field arrays of the form (status code, response
// headers, response body), each row a sentence of labelled controls. The service's messages are
// found by each row's position when the refused form was sent. Their words and bounds are the
// HTTP type's declaration (contract/monitor-types.ts).

const STATUS_CODES = specOf('http', 'statusCodeAssertions');
const HEADERS = specOf('http', 'headerAssertions');
const BODY = specOf('http', 'bodyAssertions');

interface ListProps {
  errors: FieldErrors;
  failure: Failure<ApiError> | undefined;
}

/** The service's message for a row or one of its parts, and the id its control points at. */
const messageOf = (failure: ListProps['failure'], list: AssertionListName, key: string, part?: string): RowMessage => ({
  id: `${key}-${part ?? 'row'}-message`,
  text: rowMessage(failure, list, key, part),
});

export function AssertionFields(props: ListProps) {
  return (
    <>
      <StatusCodeAssertions {...props} />
      <HeaderAssertions {...props} />
      <BodyAssertions {...props} />
    </>
  );
}

function StatusCodeAssertions({ errors, failure }: ListProps) {
  const { control, setValue } = useFormContext<MonitorFormValues>();
  const { append, remove } = useFieldArray({ control, name: 'statusCodeAssertions' });
  const rows = useWatch({ control, name: 'statusCodeAssertions' });
  const { min, max } = listLimits('statusCodeAssertions');
  return (
    <AssertionList
      legend={STATUS_CODES.label}
      error={errors.of('monitor.statusCodeAssertions')}
      addLabel="Add status code assertion"
      onAdd={() => append(newStatusCodeRow(), { shouldFocus: false })}
    >
      {rows.map((row, i) => {
        const label = `Status code assertion ${i + 1}`;
        const comparatorError = messageOf(failure, 'statusCodeAssertions', row.key, 'comparator');
        const targetError = messageOf(failure, 'statusCodeAssertions', row.key, 'target');
        return (
          <AssertionRow
            key={row.key}
            label={label}
            onRemove={() => remove(i)}
            messages={[messageOf(failure, 'statusCodeAssertions', row.key), comparatorError, targetError]}
            cells={
              <>
                <span className="assertion-word">Status code is</span>
                <Cell label={`${label} comparator`} message={comparatorError}>
                  {(cell) => (
                    <EnumSelect
                      control={cell}
                      value={row.comparator}
                      choices={NUMBER_COMPARATORS}
                      onChange={(value) => setValue(`statusCodeAssertions.${i}.comparator`, value, { shouldDirty: true })}
                    />
                  )}
                </Cell>
                <Cell label={`${label} target`} message={targetError}>
                  {(cell) => (
                    <input
                      {...cell}
                      type="number"
                      min={min}
                      max={max}
                      step="1"
                      inputMode="numeric"
                      placeholder={STATUS_CODES.placeholder}
                      className="assertion-code"
                      value={row.target}
                      onChange={(e) => setValue(`statusCodeAssertions.${i}.target`, e.target.value, { shouldDirty: true })}
                    />
                  )}
                </Cell>
              </>
            }
          />
        );
      })}
    </AssertionList>
  );
}

function HeaderAssertions({ errors, failure }: ListProps) {
  const { control, setValue } = useFormContext<MonitorFormValues>();
  const { append, remove } = useFieldArray({ control, name: 'headerAssertions' });
  const rows = useWatch({ control, name: 'headerAssertions' });
  return (
    <AssertionList
      legend={HEADERS.label}
      error={errors.of('monitor.headerAssertions')}
      addLabel="Add header assertion"
      onAdd={() => append(newHeaderAssertionRow(), { shouldFocus: false })}
    >
      {rows.map((row, i) => {
        const label = `Header assertion ${i + 1}`;
        const nameError = messageOf(failure, 'headerAssertions', row.key, 'key');
        const comparatorError = messageOf(failure, 'headerAssertions', row.key, 'comparator');
        const targetError = messageOf(failure, 'headerAssertions', row.key, 'target');
        return (
          <AssertionRow
            key={row.key}
            label={label}
            onRemove={() => remove(i)}
            messages={[messageOf(failure, 'headerAssertions', row.key), nameError, comparatorError, targetError]}
            cells={
              <>
                <span className="assertion-word">Header</span>
                <Cell label={`${label} name`} message={nameError}>
                  {(cell) => (
                    <input
                      {...cell}
                      type="text"
                      placeholder={HEADERS.placeholder}
                      autoComplete="off"
                      spellCheck={false}
                      value={row.name}
                      onChange={(e) => setValue(`headerAssertions.${i}.name`, e.target.value, { shouldDirty: true })}
                    />
                  )}
                </Cell>
                <span className="assertion-word">is</span>
                <StringComparison
                  label={label}
                  comparator={row.comparator}
                  target={row.target}
                  comparatorError={comparatorError}
                  targetError={targetError}
                  targetMaxLength={listLimits('headerAssertions').maxLength}
                  onChange={(change) => setValue(`headerAssertions.${i}`, { ...row, ...change }, { shouldDirty: true })}
                />
              </>
            }
          />
        );
      })}
    </AssertionList>
  );
}

function BodyAssertions({ errors, failure }: ListProps) {
  const { control, setValue } = useFormContext<MonitorFormValues>();
  const { append, remove } = useFieldArray({ control, name: 'bodyAssertions' });
  const rows = useWatch({ control, name: 'bodyAssertions' });
  return (
    <AssertionList
      legend={BODY.label}
      error={errors.of('monitor.bodyAssertions')}
      addLabel="Add body assertion"
      onAdd={() => append(newBodyAssertionRow(), { shouldFocus: false })}
    >
      {rows.map((row, i) => {
        const label = `Body assertion ${i + 1}`;
        const comparatorError = messageOf(failure, 'bodyAssertions', row.key, 'comparator');
        const targetError = messageOf(failure, 'bodyAssertions', row.key, 'target');
        return (
          <AssertionRow
            key={row.key}
            label={label}
            onRemove={() => remove(i)}
            messages={[messageOf(failure, 'bodyAssertions', row.key), comparatorError, targetError]}
            cells={
              <>
                <span className="assertion-word">Body</span>
                <StringComparison
                  label={label}
                  comparator={row.comparator}
                  target={row.target}
                  comparatorError={comparatorError}
                  targetError={targetError}
                  targetMaxLength={listLimits('bodyAssertions').maxLength}
                  onChange={(change) => setValue(`bodyAssertions.${i}`, { ...row, ...change }, { shouldDirty: true })}
                />
              </>
            }
          />
        );
      })}
    </AssertionList>
  );
}
