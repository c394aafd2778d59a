import { useFormContext, useWatch } from 'react-hook-form';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { Field, type FieldErrors } from '../../forms.tsx';
import type { MonitorFormValues, RecordTypeWord } from './monitor-form-model.ts';
import { TypeField } from './type-field.tsx';
import { textListLimits } from './type-fields.ts';

// The fields of a DNS monitor that are not one plain input: the name to look up (the type's
// target, one text, where a `host:port` target is two inputs) and the values the answers are
// held to, one per line, written as the record type's answers are. The record type, the
// resolver and the counts are plain (type-field.tsx).

/** An answer of each record type as the check writes it (docs/reference/monitors.md, DNS, "Answers"): the example each list shows. */
const ANSWER_EXAMPLES: Record<RecordTypeWord, string> = {
  A: '192.0.2.10',
  AAAA: '2001:db8::10',
  CNAME: 'www.example.net',
  MX: '10 mail.example.com',
  TXT: 'v=spf1 -all',
  NS: 'ns1.example.com',
  SRV: '10 5 5060 sip.example.com',
  SOA: 'ns1.example.com hostmaster.example.com 2024010101 7200 3600 1209600 300',
  PTR: 'host.example.com',
};

/** The name to look up: one text input, with its declaration's words. */
export function DnsNameField({ spec, errors }: { spec: DeclaredFieldHints; errors: FieldErrors }) {
  return <TypeField field={spec} error={errors.of('monitor.host')} />;
}

/** Values the answers must contain (or be exactly), one per line; the example follows the record type chosen. */
export function DnsValuesField({ spec, errors, name }: { spec: DeclaredFieldHints; errors: FieldErrors; name: 'contains' | 'equals' }) {
  const { control, register } = useFormContext<MonitorFormValues>();
  const recordType = useWatch({ control, name: 'recordType' });
  const { items, maxLength } = textListLimits(spec);
  const bounds = items === undefined ? '' : ` At most ${items}${maxLength === undefined ? '' : `, each up to ${maxLength} characters`}.`;
  return (
    <Field label={spec.label} hint={`${spec.hint ?? ''}${bounds}`} error={errors.of(`monitor.${name}`)}>
      {(field) => (
        <textarea {...field} {...register(name)} rows={3} spellCheck={false} autoComplete="off" wrap="off" placeholder={ANSWER_EXAMPLES[recordType]} />
      )}
    </Field>
  );
}
