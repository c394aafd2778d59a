import { HTTPMethod, NumberComparator, Periodicity, StringComparator, TLSMode } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import type { Choice } from '../../forms.tsx';
import type { MonitorType } from './monitor-form-model.ts';

// What the monitor form offers, in words: the types, frequencies, methods, connection modes and
// comparators, each with the label shown for it.

export const TYPES: { type: MonitorType; title: string; summary: string }[] = [
  { type: 'tcp', title: 'TCP', summary: 'Opens a TCP connection to a host and port.' },
  { type: 'grpc', title: 'gRPC', summary: 'Calls grpc.health.v1.Health/Check on a server.' },
  { type: 'http', title: 'HTTP', summary: 'Sends an HTTP request and checks the answer.' },
];
export const TYPE_TITLES: Record<MonitorType, string> = { tcp: 'TCP', grpc: 'gRPC', http: 'HTTP' };
export const isMonitorType = (value: string | null): value is MonitorType => value === 'tcp' || value === 'grpc' || value === 'http';

/** Each frequency by the name the plan allows it by. */
export const FREQUENCIES: { name: string; periodicity: Periodicity; label: string }[] = [
  { name: '30s', periodicity: Periodicity.PERIODICITY_30S, label: '30 seconds' },
  { name: '1m', periodicity: Periodicity.PERIODICITY_1M, label: '1 minute' },
  { name: '5m', periodicity: Periodicity.PERIODICITY_5M, label: '5 minutes' },
  { name: '10m', periodicity: Periodicity.PERIODICITY_10M, label: '10 minutes' },
  { name: '30m', periodicity: Periodicity.PERIODICITY_30M, label: '30 minutes' },
  { name: '1h', periodicity: Periodicity.PERIODICITY_1H, label: '1 hour' },
];

export const METHODS: Choice<HTTPMethod>[] = [
  { value: HTTPMethod.HTTP_METHOD_GET, label: 'GET' },
  { value: HTTPMethod.HTTP_METHOD_HEAD, label: 'HEAD' },
  { value: HTTPMethod.HTTP_METHOD_POST, label: 'POST' },
  { value: HTTPMethod.HTTP_METHOD_PUT, label: 'PUT' },
  { value: HTTPMethod.HTTP_METHOD_PATCH, label: 'PATCH' },
  { value: HTTPMethod.HTTP_METHOD_DELETE, label: 'DELETE' },
  { value: HTTPMethod.HTTP_METHOD_OPTIONS, label: 'OPTIONS' },
];

export const TLS_MODES: { mode: TLSMode; label: string; hint: string }[] = [
  { mode: TLSMode.TLS_MODE_VERIFY, label: 'TLS, verify the certificate', hint: 'Checked against the system trust store' },
  { mode: TLSMode.TLS_MODE_SKIP_VERIFY, label: 'TLS, accept any certificate', hint: 'For self-signed certificates' },
  { mode: TLSMode.TLS_MODE_PLAINTEXT, label: 'Plaintext (h2c)', hint: 'HTTP/2 without TLS' },
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
