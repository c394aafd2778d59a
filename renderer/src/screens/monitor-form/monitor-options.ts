import { NumberComparator, Periodicity, StringComparator } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import type { Choice } from '../../forms.tsx';
import { FORM_TYPES, type MonitorType, typeOf } from './type-fields.ts';

// What the monitor form offers, in words: the types (as the service declares them), frequencies
// and comparators, each with the label shown for it. A type's own choices (a method, a TLS mode)
// are its declaration's (type-fields.ts).

export const TYPES: { type: MonitorType; title: string; summary: string }[] = FORM_TYPES.map((type) => ({
  type,
  title: typeOf(type).title,
  summary: typeOf(type).summary,
}));
export const TYPE_TITLES = Object.fromEntries(TYPES.map((t) => [t.type, t.title])) as Record<MonitorType, string>;
export const isMonitorType = (value: string | null): value is MonitorType => FORM_TYPES.some((type) => type === value);

/** Each frequency by the name the plan allows it by. */
export const FREQUENCIES: { name: string; periodicity: Periodicity; label: string }[] = [
  { name: '30s', periodicity: Periodicity.PERIODICITY_30S, label: '30 seconds' },
  { name: '1m', periodicity: Periodicity.PERIODICITY_1M, label: '1 minute' },
  { name: '5m', periodicity: Periodicity.PERIODICITY_5M, label: '5 minutes' },
  { name: '10m', periodicity: Periodicity.PERIODICITY_10M, label: '10 minutes' },
  { name: '30m', periodicity: Periodicity.PERIODICITY_30M, label: '30 minutes' },
  { name: '1h', periodicity: Periodicity.PERIODICITY_1H, label: '1 hour' },
];

export const NUMBER_COMPARATORS: Choice<NumberComparator>[] = [
  { value: NumberComparator.EQUAL, label: 'equal to' },
  { value: NumberComparator.NOT_EQUAL, label: 'not equal to' },
  { value: NumberComparator.GREATER_THAN, label: 'greater than' },
  { value: NumberComparator.GREATER_THAN_OR_EQUAL, label: 'greater than or equal to' },
  { value: NumberComparator.LESS_THAN, label: 'less than' },
  { value: NumberComparator.LESS_THAN_OR_EQUAL, label: 'less than or equal to' },
];

export const STRING_COMPARATORS: Choice<StringComparator>[] = [
  { value: StringComparator.CONTAINS, label: 'contains' },
  { value: StringComparator.NOT_CONTAINS, label: 'does not contain' },
  { value: StringComparator.EQUAL, label: 'equal to' },
  { value: StringComparator.NOT_EQUAL, label: 'not equal to' },
  { value: StringComparator.EMPTY, label: 'empty or absent' },
  { value: StringComparator.NOT_EMPTY, label: 'present and not empty' },
];
