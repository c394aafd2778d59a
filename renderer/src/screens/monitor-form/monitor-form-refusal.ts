import type { FieldViolation } from '../../../../contract/errors.ts';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { type FieldErrors, matchViolations } from '../../field-errors.ts';
import type { AssertionList, MonitorFormValues, MonitorType } from './monitor-form-model.ts';
import { typeOf } from './type-fields.ts';

// A refusal of the service as the monitor form shows it: each violation given to the field that
// claims it, the message about `host:port` beside the input to blame, and an assertion's message
// kept with its row. Plain TypeScript, tested in Node with the model.

/** Every field name of the form that can hold a message of the service. */
export function claimableFields(type: MonitorType, form: MonitorFormValues): string[] {
  const names = [
    'name',
    'description',
    'tags',
    'group',
    'active',
    'periodicity',
    'regions',
    'privateLocations',
    'timeout',
    'degraded',
    'remindEvery',
    'retry',
    'openTelemetry',
    'openTelemetry.endpoint',
    'openTelemetry.headers',
  ];
  names.push(...form.otlpHeaders.filter((r) => r.name).map((r) => `openTelemetry.headers.${r.name.trim()}`));
  // The type's own fields, as it declares them.
  names.push(...typeOf(type).fields.map((field) => field.name));
  if (type === 'grpc') names.push(...form.metadata.filter((r) => r.name).map((r) => `metadata.${r.name.trim()}`));
  if (type === 'websocket') names.push(...form.headers.filter((r) => r.name).map((r) => `headers.${r.name.trim()}`));
  if (type === 'mcp') {
    names.push(...form.headers.filter((r) => r.name).map((r) => `headers.${r.name.trim()}`));
    names.push(...form.env.filter((r) => r.name).map((r) => `env.${r.name.trim()}`));
  }
  if (type === 'http') {
    names.push(...form.headers.filter((r) => r.name).map((r) => `headers.${r.name.trim()}`));
    form.statusCodeAssertions.forEach((_, i) =>
      names.push(`statusCodeAssertions.${i}`, `statusCodeAssertions.${i}.comparator`, `statusCodeAssertions.${i}.target`),
    );
    form.headerAssertions.forEach((_, i) =>
      names.push(`headerAssertions.${i}`, `headerAssertions.${i}.key`, `headerAssertions.${i}.comparator`, `headerAssertions.${i}.target`),
    );
    form.bodyAssertions.forEach((_, i) => names.push(`bodyAssertions.${i}`, `bodyAssertions.${i}.comparator`, `bodyAssertions.${i}.target`));
  }
  return names.map((name) => `monitor.${name}`);
}

/** Whether the port the person typed cannot be one. */
export function portLooksWrong(port: string): boolean {
  const text = port.trim();
  return !/^\d{1,5}$/.test(text) || Number(text) < MONITOR_LIMITS.port.min || Number(text) > MONITOR_LIMITS.port.max;
}

/** A refusal as the form shows it: matched to the fields as they were when it was sent. */
export interface Failure<E extends { violations: readonly FieldViolation[] }> {
  error: E;
  errors: FieldErrors;
  /** Where the message about `host:port` is shown. */
  targetAt: 'host' | 'port';
  /** Each assertion row's position when sent, since violations name rows by position. */
  rowIndex: Map<string, number>;
}

export function failureOf<E extends { violations: readonly FieldViolation[] }>(error: E, type: MonitorType, form: MonitorFormValues): Failure<E> {
  const rowIndex = new Map<string, number>();
  for (const rows of [form.statusCodeAssertions, form.headerAssertions, form.bodyAssertions]) rows.forEach((row, i) => rowIndex.set(row.key, i));
  // The service names the whole `host:port`; its message goes beside the port only when the
  // host is there without a scheme and the port typed cannot be one.
  const targetAt = form.host.includes('://') || !form.host.trim() || !portLooksWrong(form.port) ? 'host' : 'port';
  return { error, errors: matchViolations(error, claimableFields(type, form)), targetAt, rowIndex };
}

/**
 * The service's message for an assertion row (`part` undefined) or one of its controls, found by
 * the row's position when the refused form was sent; undefined for a row added since.
 */
export function rowMessage(
  failure: Failure<{ violations: readonly FieldViolation[] }> | undefined,
  list: AssertionList,
  key: string,
  part?: string,
): string | undefined {
  const index = failure?.rowIndex.get(key);
  return index === undefined ? undefined : failure!.errors.of(`monitor.${list}.${index}${part ? `.${part}` : ''}`);
}
