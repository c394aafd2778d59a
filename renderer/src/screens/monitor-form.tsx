import { type Duration, durationFromMs, durationMs } from '@bufbuild/protobuf/wkt';
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import {
  type GetMonitorResponse,
  type GRPCMonitor,
  HTTPMethod,
  type HTTPMonitor,
  NumberComparator,
  Periodicity,
  StringComparator,
  type TCPMonitor,
  TLSMode,
} from '../../../proto/gen/monitor/v1/monitor_pb.js';
import { api, ApiError, type MonitorType, type PlanAllowance, type Violation, type Workspace } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import {
  type Choice,
  type ControlProps,
  EnumSelect,
  entriesOf,
  Field,
  FieldGroup,
  type FieldErrors,
  focusFirstInvalid,
  FormProblems,
  KeyValueEditor,
  type KeyValueRow,
  matchViolations,
  rowKey,
  rowsOf,
  TagInput,
} from '../forms.tsx';
import { asApiError, type Loaded, useResource } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { rpcFor } from '../rpc.ts';
import './monitor-form.css';

// Creating and editing TCP, gRPC and HTTP monitors (monitor.v1). The form holds what the person
// typed; it becomes the wire message only on submit, and a refusal leaves every value in place
// with the service's message beside the field it names.

/** What the service shows in place of a credential-like header or metadata value. */
const REDACTED = '[redacted]';

const TYPES: { type: MonitorType; title: string; summary: string }[] = [
  { type: 'tcp', title: 'TCP', summary: 'Opens a TCP connection to a host and port.' },
  { type: 'grpc', title: 'gRPC', summary: 'Calls grpc.health.v1.Health/Check on a server.' },
  { type: 'http', title: 'HTTP', summary: 'Sends an HTTP request and checks the answer.' },
];
const TYPE_TITLES: Record<MonitorType, string> = { tcp: 'TCP', grpc: 'gRPC', http: 'HTTP' };
const isMonitorType = (value: string | null): value is MonitorType => value === 'tcp' || value === 'grpc' || value === 'http';

const FREQUENCIES: { name: string; periodicity: Periodicity; label: string }[] = [
  { name: '30s', periodicity: Periodicity.PERIODICITY_30S, label: '30 seconds' },
  { name: '1m', periodicity: Periodicity.PERIODICITY_1M, label: '1 minute' },
  { name: '5m', periodicity: Periodicity.PERIODICITY_5M, label: '5 minutes' },
  { name: '10m', periodicity: Periodicity.PERIODICITY_10M, label: '10 minutes' },
  { name: '30m', periodicity: Periodicity.PERIODICITY_30M, label: '30 minutes' },
  { name: '1h', periodicity: Periodicity.PERIODICITY_1H, label: '1 hour' },
];

const METHODS: Choice<HTTPMethod>[] = [
  { value: HTTPMethod.HTTP_METHOD_GET, label: 'GET' },
  { value: HTTPMethod.HTTP_METHOD_HEAD, label: 'HEAD' },
  { value: HTTPMethod.HTTP_METHOD_POST, label: 'POST' },
  { value: HTTPMethod.HTTP_METHOD_PUT, label: 'PUT' },
  { value: HTTPMethod.HTTP_METHOD_PATCH, label: 'PATCH' },
  { value: HTTPMethod.HTTP_METHOD_DELETE, label: 'DELETE' },
  { value: HTTPMethod.HTTP_METHOD_OPTIONS, label: 'OPTIONS' },
];

const TLS_MODES: { mode: TLSMode; label: string; hint: string }[] = [
  { mode: TLSMode.TLS_MODE_VERIFY, label: 'TLS, verify the certificate', hint: 'Checked against the system trust store' },
  { mode: TLSMode.TLS_MODE_SKIP_VERIFY, label: 'TLS, accept any certificate', hint: 'For self-signed certificates' },
  { mode: TLSMode.TLS_MODE_PLAINTEXT, label: 'Plaintext (h2c)', hint: 'HTTP/2 without TLS' },
];

const NUMBER_COMPARATORS: Choice<NumberComparator>[] = [
  { value: NumberComparator.EQUAL, label: 'equal to' },
  { value: NumberComparator.NOT_EQUAL, label: 'not equal to' },
  { value: NumberComparator.GREATER_THAN, label: 'greater than' },
  { value: NumberComparator.GREATER_THAN_OR_EQUAL, label: 'greater than or equal to' },
  { value: NumberComparator.LESS_THAN, label: 'less than' },
  { value: NumberComparator.LESS_THAN_OR_EQUAL, label: 'less than or equal to' },
];

const STRING_COMPARATORS: Choice<StringComparator>[] = [
  { value: StringComparator.CONTAINS, label: 'contains' },
  { value: StringComparator.NOT_CONTAINS, label: 'does not contain' },
  { value: StringComparator.EQUAL, label: 'equal to' },
  { value: StringComparator.NOT_EQUAL, label: 'not equal to' },
  { value: StringComparator.EMPTY, label: 'empty or absent' },
  { value: StringComparator.NOT_EMPTY, label: 'present and not empty' },
];
/** These comparators take no target: the service wants it empty. */
const takesNoTarget = (comparator: StringComparator) => comparator === StringComparator.EMPTY || comparator === StringComparator.NOT_EMPTY;

// ---- the form's state ------------------------------------------------------------------------

interface StatusCodeRow {
  key: string;
  comparator: NumberComparator;
  target: string;
}
interface HeaderAssertionRow {
  key: string;
  name: string;
  comparator: StringComparator;
  target: string;
}
interface BodyAssertionRow {
  key: string;
  comparator: StringComparator;
  target: string;
}

/** Everything the form shows, as typed: numbers stay text until submit. */
interface FormState {
  name: string;
  description: string;
  tags: string[];
  active: boolean;
  host: string;
  port: string;
  service: string;
  tls: TLSMode;
  metadata: KeyValueRow[];
  url: string;
  method: HTTPMethod;
  headers: KeyValueRow[];
  body: string;
  followRedirects: boolean;
  statusCodeAssertions: StatusCodeRow[];
  headerAssertions: HeaderAssertionRow[];
  bodyAssertions: BodyAssertionRow[];
  periodicity: Periodicity;
  regions: string[];
  /** Ids of the workspace's private locations. */
  privateLocations: string[];
  timeoutSeconds: string;
  degradedMs: string;
  retry: string;
  otlpEndpoint: string;
  otlpHeaders: KeyValueRow[];
}

/** A new monitor: every field unset, so the service's defaults apply; the switches as the service defaults them. */
const EMPTY_FORM: FormState = {
  name: '',
  description: '',
  tags: [],
  active: true,
  host: '',
  port: '',
  service: '',
  tls: TLSMode.TLS_MODE_VERIFY,
  metadata: [],
  url: '',
  method: HTTPMethod.HTTP_METHOD_GET,
  headers: [],
  body: '',
  followRedirects: true,
  statusCodeAssertions: [],
  headerAssertions: [],
  bodyAssertions: [],
  periodicity: Periodicity.PERIODICITY_UNSPECIFIED,
  regions: [],
  privateLocations: [],
  timeoutSeconds: '',
  degradedMs: '',
  retry: '',
  otlpEndpoint: '',
  otlpHeaders: [],
};

type AnyMonitor = { type: 'tcp'; monitor: TCPMonitor } | { type: 'grpc'; monitor: GRPCMonitor } | { type: 'http'; monitor: HTTPMonitor };

/** `host:port` split for two inputs; an IPv6 address loses its brackets, which the target gets back on submit. */
function splitTarget(uri: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\]:(.*)$/.exec(uri);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! };
  const colon = uri.lastIndexOf(':');
  return colon < 0 ? { host: uri, port: '' } : { host: uri.slice(0, colon), port: uri.slice(colon + 1) };
}

function joinTarget(host: string, port: string): string {
  const h = host.trim();
  const p = port.trim();
  if (!h && !p) return '';
  const bracketed = h.includes(':') && !h.includes('://') && !h.startsWith('[') ? `[${h}]` : h;
  return `${bracketed}:${p}`;
}

const secondsText = (duration: Duration | undefined) => (duration ? String(durationMs(duration) / 1000) : '');
const msText = (duration: Duration | undefined) => (duration ? String(durationMs(duration)) : '');
const keptSecret = (_name: string, value: string) => value === REDACTED;

/** The form prefilled with a stored monitor. */
function formOf(found: AnyMonitor): FormState {
  const m = found.monitor;
  const common = {
    ...EMPTY_FORM,
    name: m.name,
    description: m.description,
    tags: [...m.tags],
    active: m.active ?? true,
    periodicity: m.periodicity,
    regions: [...m.regions],
    privateLocations: [...m.privateLocations],
    timeoutSeconds: secondsText(m.timeout),
    degradedMs: msText(m.degraded),
    retry: m.retry === undefined ? '' : String(m.retry),
    otlpEndpoint: m.openTelemetry?.endpoint ?? '',
    otlpHeaders: rowsOf(m.openTelemetry?.headers ?? {}, keptSecret),
  };
  switch (found.type) {
    case 'tcp':
      return { ...common, ...splitTarget(found.monitor.uri) };
    case 'grpc':
      return {
        ...common,
        ...splitTarget(found.monitor.uri),
        service: found.monitor.service,
        tls: found.monitor.tls === TLSMode.TLS_MODE_UNSPECIFIED ? TLSMode.TLS_MODE_VERIFY : found.monitor.tls,
        metadata: rowsOf(found.monitor.metadata, keptSecret),
      };
    case 'http': {
      const h = found.monitor;
      return {
        ...common,
        url: h.url,
        method: h.method === HTTPMethod.HTTP_METHOD_UNSPECIFIED ? HTTPMethod.HTTP_METHOD_GET : h.method,
        headers: rowsOf(h.headers, keptSecret),
        body: h.body,
        followRedirects: h.followRedirects ?? true,
        statusCodeAssertions: h.statusCodeAssertions.map((a) => ({ key: rowKey(), comparator: a.comparator, target: String(a.target) })),
        headerAssertions: h.headerAssertions.map((a) => ({ key: rowKey(), name: a.key, comparator: a.comparator, target: a.target })),
        bodyAssertions: h.bodyAssertions.map((a) => ({ key: rowKey(), comparator: a.comparator, target: a.target })),
      };
    }
  }
}

// ---- from the form to the wire ---------------------------------------------------------------

/** The wire fields of a monitor by their proto name (snake_case, as an update mask names them). */
type WireFields = Record<string, unknown>;

/** A number the person typed; undefined when left empty. */
const typedNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

/**
 * The monitor's fields as monitor.v1 carries them, with the violations of values the wire cannot
 * carry at all (a fraction where an integer goes), named as the service would name them.
 */
function wireFields(type: MonitorType, form: FormState): { fields: WireFields; local: Violation[] } {
  const local: Violation[] = [];
  const whole = (field: string, text: string, rule: string): number | undefined => {
    const value = typedNumber(text);
    if (value !== undefined && !Number.isInteger(value)) local.push({ field, rule });
    return value;
  };
  const timeoutSeconds = typedNumber(form.timeoutSeconds);
  const degraded = whole('monitor.degraded', form.degradedMs, 'must be whole milliseconds');
  const retry = whole('monitor.retry', form.retry, 'must be a whole number');
  const otlpHeaders = entriesOf(form.otlpHeaders, REDACTED);
  const fields: WireFields = {
    name: form.name,
    description: form.description,
    active: form.active,
    periodicity: form.periodicity,
    regions: form.regions,
    private_locations: form.privateLocations,
    timeout: timeoutSeconds === undefined || Number.isNaN(timeoutSeconds) ? undefined : Math.round(timeoutSeconds * 1000),
    degraded,
    retry,
    open_telemetry: form.otlpEndpoint.trim() || Object.keys(otlpHeaders).length > 0 ? { endpoint: form.otlpEndpoint.trim(), headers: otlpHeaders } : undefined,
    tags: form.tags,
  };
  if (type === 'tcp' || type === 'grpc') fields.uri = joinTarget(form.host, form.port);
  if (type === 'grpc') {
    fields.service = form.service.trim();
    fields.tls = form.tls;
    fields.metadata = entriesOf(form.metadata, REDACTED);
  }
  if (type === 'http') {
    fields.url = form.url.trim();
    fields.method = form.method;
    fields.headers = entriesOf(form.headers, REDACTED);
    fields.body = form.body;
    fields.follow_redirects = form.followRedirects;
    fields.status_code_assertions = form.statusCodeAssertions.map((a, i) => ({
      comparator: a.comparator,
      target: whole(`monitor.statusCodeAssertions.${i}.target`, a.target, 'must be a status code from 100 to 599') ?? 0,
    }));
    fields.header_assertions = form.headerAssertions.map((a) => ({ key: a.name.trim(), comparator: a.comparator, target: takesNoTarget(a.comparator) ? '' : a.target }));
    fields.body_assertions = form.bodyAssertions.map((a) => ({ comparator: a.comparator, target: takesNoTarget(a.comparator) ? '' : a.target }));
  }
  return { fields, local };
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The message fields of a create or an update: proto field names in camelCase, durations as Duration. */
function messageOf(fields: WireFields): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    message[camel(name)] = (name === 'timeout' || name === 'degraded') && typeof value === 'number' ? durationFromMs(value) : value;
  }
  return message;
}

/** Lists whose order means nothing: the service keeps regions as given and lists locations by id. */
const UNORDERED = new Set(['regions', 'private_locations']);

/** A field's value in a form that compares equal however an unordered list was ordered (tags keep their order). */
function comparable(name: string, value: unknown): string {
  return JSON.stringify(UNORDERED.has(name) && Array.isArray(value) ? [...value].sort() : value);
}

/** The fields whose value differs between the stored monitor's form and the edited one. */
function changedFields(before: WireFields, after: WireFields): string[] {
  return Object.keys(after).filter((name) => comparable(name, before[name]) !== comparable(name, after[name]));
}

/** Every field name of the form that can hold a message of the service. */
function claimableFields(type: MonitorType, form: FormState): string[] {
  const names = ['name', 'description', 'tags', 'active', 'periodicity', 'regions', 'privateLocations', 'timeout', 'degraded', 'retry', 'openTelemetry', 'openTelemetry.endpoint', 'openTelemetry.headers'];
  names.push(...form.otlpHeaders.filter((r) => r.name).map((r) => `openTelemetry.headers.${r.name.trim()}`));
  if (type !== 'http') names.push('uri');
  if (type === 'grpc') names.push('service', 'tls', 'metadata', ...form.metadata.filter((r) => r.name).map((r) => `metadata.${r.name.trim()}`));
  if (type === 'http') {
    names.push('url', 'method', 'headers', 'body', 'followRedirects', 'statusCodeAssertions', 'headerAssertions', 'bodyAssertions');
    names.push(...form.headers.filter((r) => r.name).map((r) => `headers.${r.name.trim()}`));
    form.statusCodeAssertions.forEach((_, i) => names.push(`statusCodeAssertions.${i}`, `statusCodeAssertions.${i}.comparator`, `statusCodeAssertions.${i}.target`));
    form.headerAssertions.forEach((_, i) =>
      names.push(`headerAssertions.${i}`, `headerAssertions.${i}.key`, `headerAssertions.${i}.comparator`, `headerAssertions.${i}.target`),
    );
    form.bodyAssertions.forEach((_, i) => names.push(`bodyAssertions.${i}`, `bodyAssertions.${i}.comparator`, `bodyAssertions.${i}.target`));
  }
  return names.map((name) => `monitor.${name}`);
}

/** Whether the port the person typed cannot be one. */
function portLooksWrong(port: string): boolean {
  const text = port.trim();
  return !/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535;
}

/** A refusal as the form shows it: matched to the fields as they were when it was sent. */
interface Failure {
  error: ApiError;
  errors: FieldErrors;
  /** Where the message about `host:port` is shown. */
  targetAt: 'host' | 'port';
  /** Each assertion row's position when sent, since violations name rows by position. */
  rowIndex: Map<string, number>;
}

function failureOf(error: ApiError, type: MonitorType, form: FormState): Failure {
  const rowIndex = new Map<string, number>();
  for (const rows of [form.statusCodeAssertions, form.headerAssertions, form.bodyAssertions]) rows.forEach((row, i) => rowIndex.set(row.key, i));
  // The service names the whole `host:port`; its message goes beside the port only when the
  // host is there without a scheme and the port typed cannot be one.
  const targetAt = form.host.includes('://') || !form.host.trim() || !portLooksWrong(form.port) ? 'host' : 'port';
  return { error, errors: matchViolations(error, claimableFields(type, form)), targetAt, rowIndex };
}

// ---- the screen ------------------------------------------------------------------------------

export function MonitorFormScreen({ workspace, params }: ScreenProps) {
  const [plan] = useResource(() => api.plan(workspace.id), workspace.id);
  return params.id === undefined ? <NewMonitor workspace={workspace} plan={plan} /> : <EditMonitor workspace={workspace} id={params.id} plan={plan} />;
}

type LoadedPlan = Loaded<PlanAllowance>;

function NewMonitor({ workspace, plan }: { workspace: Workspace; plan: LoadedPlan }) {
  const { query } = useLocation();
  const asked = query.get('type');
  const type = isMonitorType(asked) ? asked : undefined;
  const choose = (next: MonitorType) => navigate(`/monitors/new?type=${next}`, { replace: true });
  const rpc = rpcFor(workspace.id);

  const save = async (chosen: MonitorType, form: FormState) => {
    const { fields, local } = wireFields(chosen, form);
    if (local.length > 0) throw localRefusal(local);
    const monitor = messageOf(fields);
    // Switches left at the service's default are not sent: the service fills them.
    if (monitor.active === true) delete monitor.active;
    if (monitor.followRedirects === true) delete monitor.followRedirects;
    const created =
      chosen === 'tcp'
        ? (await rpc.monitors.createTCPMonitor({ monitor })).monitor
        : chosen === 'grpc'
          ? (await rpc.monitors.createGRPCMonitor({ monitor })).monitor
          : (await rpc.monitors.createHTTPMonitor({ monitor })).monitor;
    if (!created) throw new ApiError(500, 'INTERNAL', 'The service created the monitor but did not return it.');
    navigate(`/monitors/${encodeURIComponent(created.id)}`);
  };

  return (
    <>
      <PageHeader title="New monitor">Statusdesk checks it on schedule from the regions you pick, and records each result.</PageHeader>
      <TypeChooser type={type} onChoose={choose} />
      {type === undefined ? (
        <p className="muted monitor-form-choose">Choose a type to see its settings.</p>
      ) : (
        <PlanGate plan={plan}>
          {(allowance) => (
            <MonitorForm
              type={type}
              workspace={workspace}
              initial={EMPTY_FORM}
              plan={allowance}
              submitLabel="Create monitor"
              busyLabel="Creating…"
              cancelTo="/"
              onSave={(form) => save(type, form)}
            />
          )}
        </PlanGate>
      )}
    </>
  );
}

function EditMonitor({ workspace, id, plan }: { workspace: Workspace; id: string; plan: LoadedPlan }) {
  const rpc = rpcFor(workspace.id);
  const [loaded] = useResource(async (): Promise<{ found: AnyMonitor; initial: FormState }> => {
    try {
      const found = monitorOf(id, (await rpc.monitors.getMonitor({ id })).monitor);
      return { found, initial: formOf(found) };
    } catch (caught) {
      throw asApiError(caught);
    }
  }, `${workspace.id} ${id}`);
  const detail = `/monitors/${encodeURIComponent(id)}`;

  if (loaded.state === 'loading') {
    return (
      <>
        <PageHeader title="Edit monitor" />
        <Loading what="the monitor" />
      </>
    );
  }
  if (loaded.state === 'error') {
    return (
      <>
        <PageHeader title="Edit monitor" />
        <ErrorNote>{loaded.error.message}</ErrorNote>
        <p>
          <Link to="/">Back to the overview</Link>
        </p>
      </>
    );
  }

  const { found, initial } = loaded.value;
  const save = async (form: FormState) => {
    const before = wireFields(found.type, initial).fields;
    const { fields, local } = wireFields(found.type, form);
    if (local.length > 0) throw localRefusal(local);
    const changed = changedFields(before, fields);
    if (changed.length > 0) {
      // Only the changed fields travel, each named in the mask: a field emptied there returns to
      // the service's default, and a hidden credential sent back as [redacted] keeps its value.
      const monitor = messageOf(Object.fromEntries(changed.map((name) => [name, fields[name]])));
      const request = { id, monitor, updateMask: { paths: changed } };
      if (found.type === 'tcp') await rpc.monitors.updateTCPMonitor(request);
      else if (found.type === 'grpc') await rpc.monitors.updateGRPCMonitor(request);
      else await rpc.monitors.updateHTTPMonitor(request);
    }
    navigate(detail);
  };

  return (
    <>
      <PageHeader title={`Edit ${found.monitor.name}`}>
        A {TYPE_TITLES[found.type]} monitor. Its type cannot change; only the fields you change are saved.
      </PageHeader>
      <PlanGate plan={plan}>
        {(allowance) => (
          <MonitorForm
            type={found.type}
            workspace={workspace}
            initial={initial}
            plan={allowance}
            storedPeriodicity={found.monitor.periodicity}
            submitLabel="Save changes"
            busyLabel="Saving…"
            cancelTo={detail}
            onSave={save}
          />
        )}
      </PlanGate>
    </>
  );
}

function monitorOf(id: string, monitor: GetMonitorResponse['monitor']): AnyMonitor {
  switch (monitor.case) {
    case 'tcpMonitor':
      return { type: 'tcp', monitor: monitor.value };
    case 'grpcMonitor':
      return { type: 'grpc', monitor: monitor.value };
    case 'httpMonitor':
      return { type: 'http', monitor: monitor.value };
    default:
      throw new ApiError(500, 'INTERNAL', `The service returned monitor ${id} without its settings.`);
  }
}

function localRefusal(violations: Violation[]): ApiError {
  return new ApiError(400, 'VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}

function PlanGate({ plan, children }: { plan: LoadedPlan; children: (plan: PlanAllowance) => ReactNode }) {
  if (plan.state === 'loading') return <Loading what="the plan's frequencies and regions" />;
  if (plan.state === 'error') return <ErrorNote>{plan.error.message}</ErrorNote>;
  return <>{children(plan.value)}</>;
}

function TypeChooser({ type, onChoose }: { type: MonitorType | undefined; onChoose(type: MonitorType): void }) {
  const id = useId();
  return (
    <fieldset className="type-cards">
      <legend>Type</legend>
      {TYPES.map((option) => (
        <div key={option.type} className={`type-card${type === option.type ? ' type-card-chosen' : ''}`}>
          <input
            type="radio"
            id={`${id}-${option.type}`}
            name={`${id}-type`}
            value={option.type}
            checked={type === option.type}
            aria-describedby={`${id}-${option.type}-summary`}
            onChange={() => onChoose(option.type)}
          />
          <label htmlFor={`${id}-${option.type}`}>{option.title}</label>
          <small id={`${id}-${option.type}-summary`}>{option.summary}</small>
        </div>
      ))}
    </fieldset>
  );
}

function MonitorForm({
  type,
  workspace,
  initial,
  plan,
  storedPeriodicity,
  submitLabel,
  busyLabel,
  cancelTo,
  onSave,
}: {
  type: MonitorType;
  workspace: Workspace;
  initial: FormState;
  plan: PlanAllowance;
  /** The periodicity the monitor has: offered even when the plan no longer allows it, since keeping it is allowed. */
  storedPeriodicity?: Periodicity;
  submitLabel: string;
  busyLabel: string;
  cancelTo: string;
  onSave(form: FormState): Promise<void>;
}) {
  const [form, setForm] = useState<FormState>(initial);
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const problemsRef = useRef<HTMLDivElement>(null);
  const set = <K extends keyof FormState>(name: K, value: FormState[K]) => setForm((current) => ({ ...current, [name]: value }));

  // A refusal was about the type it was sent as; another type starts without it, keeping what was typed.
  useEffect(() => setFailure(undefined), [type]);

  useEffect(() => {
    if (!failure) return;
    // The first field the service named takes the focus; with none, the note above the form.
    if (!focusFirstInvalid(formRef.current)) problemsRef.current?.focus();
  }, [failure]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await onSave(form);
    } catch (caught) {
      setFailure(failureOf(asApiError(caught), type, form));
      setBusy(false);
    }
  };

  const errors = failure?.errors ?? matchViolations(undefined, []);
  const targetError = errors.of('monitor.uri');
  const rowError = (list: string, key: string, part?: string): RowMessage => {
    const index = failure?.rowIndex.get(key);
    return { id: `${key}-${part ?? 'row'}-message`, text: index === undefined ? undefined : errors.of(`monitor.${list}.${index}${part ? `.${part}` : ''}`) };
  };

  return (
    <form ref={formRef} className="monitor-form" onSubmit={submit} noValidate aria-label={`${TYPE_TITLES[type]} monitor`}>
      <div ref={problemsRef} tabIndex={-1} className="monitor-form-problems">
        <FormProblems error={failure?.error} errors={errors} />
      </div>

      <section className="card section monitor-form-section" aria-labelledby="monitor-about">
        <h2 id="monitor-about">About</h2>
        <Field label="Name" hint="1 to 200 characters." error={errors.of('monitor.name')}>
          {(control) => <input {...control} type="text" value={form.name} autoComplete="off" onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label="Description" hint="Optional, up to 2000 characters." error={errors.of('monitor.description')}>
          {(control) => <textarea {...control} rows={3} value={form.description} onChange={(e) => set('description', e.target.value)} />}
        </Field>
        <TagInput label="Tags" tags={form.tags} onChange={(tags) => set('tags', tags)} error={errors.of('monitor.tags')} hint="Up to 20 labels for grouping. Press Enter or type a comma after each." />
      </section>

      <section className="card section monitor-form-section" aria-labelledby="monitor-target">
        <h2 id="monitor-target">{type === 'http' ? 'Request' : 'Target'}</h2>
        {type === 'http' ? (
          <HttpTarget form={form} set={set} errors={errors} />
        ) : (
          <>
            <div className="monitor-form-target">
              <Field
                label="Host"
                hint="A hostname or an IP address, without a scheme."
                error={failure?.targetAt === 'host' ? targetError : undefined}
                className="monitor-form-host"
              >
                {(control) => (
                  <input
                    {...control}
                    type="text"
                    value={form.host}
                    placeholder={type === 'grpc' ? 'api.internal' : 'db.internal'}
                    autoComplete="off"
                    spellCheck={false}
                    onChange={(e) => set('host', e.target.value)}
                  />
                )}
              </Field>
              <Field label="Port" hint="1 to 65535." error={failure?.targetAt === 'port' ? targetError : undefined} className="monitor-form-port">
                {(control) => (
                  <input
                    {...control}
                    type="text"
                    inputMode="numeric"
                    value={form.port}
                    placeholder={type === 'grpc' ? '50051' : '5432'}
                    autoComplete="off"
                    onChange={(e) => set('port', e.target.value)}
                  />
                )}
              </Field>
            </div>
            {type === 'grpc' ? <GrpcTarget form={form} set={set} errors={errors} /> : null}
          </>
        )}
      </section>

      {type === 'http' ? (
        <section className="card section monitor-form-section" aria-labelledby="monitor-assertions">
          <h2 id="monitor-assertions">Assertions</h2>
          <p className="muted small monitor-form-lede">Every assertion must hold for a check to pass. Without status code assertions, any 2xx status passes.</p>
          <Assertions form={form} set={set} errors={errors} rowError={rowError} />
        </section>
      ) : null}

      <section className="card section monitor-form-section" aria-labelledby="monitor-schedule">
        <h2 id="monitor-schedule">Schedule</h2>
        <Frequency plan={plan} value={form.periodicity} stored={storedPeriodicity} onChange={(p) => set('periodicity', p)} error={errors.of('monitor.periodicity')} />
        <Regions type={type} plan={plan} value={form.regions} onChange={(regions) => set('regions', regions)} error={errors.of('monitor.regions')} />
        <PrivateLocations
          workspace={workspace}
          value={form.privateLocations}
          onChange={(locations) => set('privateLocations', locations)}
          error={errors.of('monitor.privateLocations')}
        />
        <div className="check-row">
          <input type="checkbox" id="monitor-active" checked={form.active} onChange={(e) => set('active', e.target.checked)} aria-describedby="monitor-active-hint" />
          <label htmlFor="monitor-active">Active</label>
          <small id="monitor-active-hint" className="field-hint">
            Checked on schedule. Turn off to pause the monitor and keep its settings.
          </small>
        </div>
      </section>

      <section className="card section monitor-form-section" aria-labelledby="monitor-limits">
        <h2 id="monitor-limits">Timing and retries</h2>
        <div className="monitor-form-numbers">
          <Field
            label="Timeout (seconds)"
            hint={type === 'grpc' ? 'For the whole check. Default 45, at most 120.' : type === 'http' ? 'For the whole request. Default 45, at most 120.' : 'Wait for the connection. Default 45, at most 120.'}
            error={errors.of('monitor.timeout')}
          >
            {(control) => (
              <input {...control} type="number" min="0.1" max="120" step="any" inputMode="decimal" placeholder="45" value={form.timeoutSeconds} onChange={(e) => set('timeoutSeconds', e.target.value)} />
            )}
          </Field>
          <Field label="Degraded after (milliseconds)" hint="A passing check slower than this counts as degraded. Below the timeout; empty for never." error={errors.of('monitor.degraded')}>
            {(control) => (
              <input {...control} type="number" min="1" step="1" inputMode="numeric" value={form.degradedMs} onChange={(e) => set('degradedMs', e.target.value)} />
            )}
          </Field>
          <Field label="Retries" hint={type === 'grpc' ? 'Of a failed connection; an answer is never retried. 0 to 10, default 3.' : 'Of a failed connection. 0 to 10, default 3.'} error={errors.of('monitor.retry')}>
            {(control) => (
              <input {...control} type="number" min="0" max="10" step="1" inputMode="numeric" placeholder="3" value={form.retry} onChange={(e) => set('retry', e.target.value)} />
            )}
          </Field>
        </div>
      </section>

      <section className="card section monitor-form-section" aria-labelledby="monitor-otlp">
        <h2 id="monitor-otlp">Metrics export</h2>
        <p className="muted small monitor-form-lede">Sends this monitor's timings to an OpenTelemetry collector over OTLP/HTTP. Leave the endpoint empty for no export.</p>
        <Field label="OTLP endpoint" hint="An http:// or https:// URL, e.g. http://localhost:4318/v1/metrics." error={errors.of('monitor.openTelemetry.endpoint') ?? errors.of('monitor.openTelemetry')}>
          {(control) => (
            <input {...control} type="url" value={form.otlpEndpoint} autoComplete="off" spellCheck={false} onChange={(e) => set('otlpEndpoint', e.target.value)} />
          )}
        </Field>
        <KeyValueEditor
          legend="OTLP headers"
          item="OTLP header"
          rows={form.otlpHeaders}
          onChange={(rows) => set('otlpHeaders', rows)}
          errors={errors}
          field="monitor.openTelemetry.headers"
          hint="Sent with every export, e.g. an authorization entry."
          namePlaceholder="authorization"
        />
      </section>

      <div className="monitor-form-actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
        <Link to={cancelTo} className="button button-ghost">
          Cancel
        </Link>
      </div>
    </form>
  );
}

type Setter = <K extends keyof FormState>(name: K, value: FormState[K]) => void;

function GrpcTarget({ form, set, errors }: { form: FormState; set: Setter; errors: FieldErrors }) {
  const id = useId();
  return (
    <>
      <Field label="Service name" hint="Sent in the health request, e.g. my.package.MyService. Empty checks the whole server. A service name, not a method path." error={errors.of('monitor.service')}>
        {(control) => (
          <input {...control} type="text" value={form.service} autoComplete="off" spellCheck={false} onChange={(e) => set('service', e.target.value)} />
        )}
      </Field>
      <FieldGroup legend="Connection" error={errors.of('monitor.tls')} className="radios">
        {(control) =>
          TLS_MODES.map((mode) => (
            <div className="radio" key={mode.mode}>
              <input
                type="radio"
                id={`${id}-tls-${mode.mode}`}
                name={`${id}-tls`}
                checked={form.tls === mode.mode}
                aria-invalid={control['aria-invalid']}
                aria-describedby={`${id}-tls-${mode.mode}-hint`}
                onChange={() => set('tls', mode.mode)}
              />
              <label htmlFor={`${id}-tls-${mode.mode}`}>{mode.label}</label>
              <small id={`${id}-tls-${mode.mode}-hint`}>{mode.hint}</small>
            </div>
          ))
        }
      </FieldGroup>
      <KeyValueEditor
        legend="Metadata"
        item="Metadata entry"
        rows={form.metadata}
        onChange={(rows) => set('metadata', rows)}
        errors={errors}
        field="monitor.metadata"
        hint="Sent with the request as HTTP/2 headers. Names are lower-case; grpc- names are reserved."
        namePlaceholder="authorization"
      />
    </>
  );
}

function HttpTarget({ form, set, errors }: { form: FormState; set: Setter; errors: FieldErrors }) {
  const bodyNotAllowed = form.method === HTTPMethod.HTTP_METHOD_GET || form.method === HTTPMethod.HTTP_METHOD_HEAD;
  return (
    <>
      <div className="monitor-form-request">
        <Field label="Method" error={errors.of('monitor.method')} className="monitor-form-method">
          {(control) => (
            <EnumSelect control={control} value={form.method} choices={METHODS} onChange={(method) => set('method', method)} />
          )}
        </Field>
        <Field label="URL" hint="An absolute http:// or https:// URL, without credentials: send them in a header." error={errors.of('monitor.url')} className="monitor-form-url">
          {(control) => (
            <input {...control} type="url" value={form.url} placeholder="https://example.com/health" autoComplete="off" spellCheck={false} onChange={(e) => set('url', e.target.value)} />
          )}
        </Field>
      </div>
      <KeyValueEditor
        legend="Request headers"
        item="Header"
        rows={form.headers}
        onChange={(rows) => set('headers', rows)}
        errors={errors}
        field="monitor.headers"
        hint="At most 32, 8 KiB in all."
        namePlaceholder="accept"
      />
      <Field
        label="Request body"
        hint={bodyNotAllowed ? 'Not sent with GET or HEAD: choose POST, PUT or PATCH to send one.' : 'Up to 64 KiB.'}
        error={errors.of('monitor.body')}
      >
        {(control) => <textarea {...control} rows={4} value={form.body} spellCheck={false} onChange={(e) => set('body', e.target.value)} />}
      </Field>
      <div className="check-row">
        <input type="checkbox" id="monitor-follow" checked={form.followRedirects} onChange={(e) => set('followRedirects', e.target.checked)} aria-describedby="monitor-follow-hint" />
        <label htmlFor="monitor-follow">Follow redirects</label>
        <small id="monitor-follow-hint" className="field-hint">
          Up to 10; the assertions apply to the last answer.
        </small>
      </div>
    </>
  );
}

type RowError = (list: string, key: string, part?: string) => RowMessage;

/** A message of the service about one part of an assertion row, and the id that part points at. */
interface RowMessage {
  id: string;
  text: string | undefined;
}

/** One assertion: its labelled controls, a remove button, and the service's messages for it. */
function AssertionRow({ label, cells, onRemove, messages }: { label: string; cells: ReactNode; onRemove(): void; messages: RowMessage[] }) {
  const shown = messages.filter((m): m is { id: string; text: string } => Boolean(m.text));
  return (
    <li className="assertion-row">
      <div className="assertion-cells">{cells}</div>
      <button type="button" className="button button-small button-ghost" onClick={onRemove}>
        <Icon name="trash" />
        <span className="visually-hidden">Remove {label.toLowerCase()}</span>
      </button>
      {shown.length > 0 ? (
        <div className="assertion-messages">
          {shown.map((m) => (
            <p key={m.id} id={m.id} className="field-message">
              <Icon name="warning" />
              <span>{m.text}</span>
            </p>
          ))}
        </div>
      ) : null}
    </li>
  );
}

/** A labelled control of an assertion row: the row reads as a sentence, the label names the control for assistive technology. */
function Cell({ label, message, children }: { label: string; message: RowMessage; children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  return (
    <span className="assertion-cell">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      {children({ id, 'aria-invalid': message.text ? true : undefined, 'aria-describedby': message.text ? message.id : undefined })}
    </span>
  );
}

/** "… is <comparator> <target>": the comparison of a header or body assertion; no target for empty / not empty. */
function StringComparison({
  label,
  comparator,
  target,
  comparatorError,
  targetError,
  onChange,
}: {
  label: string;
  comparator: StringComparator;
  target: string;
  comparatorError: RowMessage;
  targetError: RowMessage;
  onChange(change: { comparator?: StringComparator; target?: string }): void;
}) {
  return (
    <>
      <Cell label={`${label} comparator`} message={comparatorError}>
        {(control) => (
          <EnumSelect control={control} value={comparator} choices={STRING_COMPARATORS} onChange={(value) => onChange({ comparator: value })} />
        )}
      </Cell>
      {takesNoTarget(comparator) ? null : (
        <Cell label={`${label} target`} message={targetError}>
          {(control) => <input {...control} type="text" autoComplete="off" spellCheck={false} value={target} onChange={(e) => onChange({ target: e.target.value })} />}
        </Cell>
      )}
    </>
  );
}

function Assertions({ form, set, errors, rowError }: { form: FormState; set: Setter; errors: FieldErrors; rowError: RowError }) {
  const update = <K extends 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions'>(list: K, key: string, change: Partial<FormState[K][number]>) =>
    set(list, form[list].map((row) => (row.key === key ? { ...row, ...change } : row)) as FormState[K]);
  const remove = <K extends 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions'>(list: K, key: string) =>
    set(list, form[list].filter((row) => row.key !== key) as FormState[K]);

  return (
    <>
      <AssertionList
        legend="Status code"
        error={errors.of('monitor.statusCodeAssertions')}
        addLabel="Add status code assertion"
        onAdd={() => set('statusCodeAssertions', [...form.statusCodeAssertions, { key: rowKey(), comparator: NumberComparator.EQUAL, target: '' }])}
      >
        {form.statusCodeAssertions.map((row, i) => {
          const label = `Status code assertion ${i + 1}`;
          const comparatorError = rowError('statusCodeAssertions', row.key, 'comparator');
          const targetError = rowError('statusCodeAssertions', row.key, 'target');
          return (
            <AssertionRow
              key={row.key}
              label={label}
              onRemove={() => remove('statusCodeAssertions', row.key)}
              messages={[rowError('statusCodeAssertions', row.key), comparatorError, targetError]}
              cells={
                <>
                  <span className="assertion-word">Status code is</span>
                  <Cell label={`${label} comparator`} message={comparatorError}>
                    {(control) => (
                      <EnumSelect control={control} value={row.comparator} choices={NUMBER_COMPARATORS} onChange={(value) => update('statusCodeAssertions', row.key, { comparator: value })} />
                    )}
                  </Cell>
                  <Cell label={`${label} target`} message={targetError}>
                    {(control) => (
                      <input
                        {...control}
                        type="number"
                        min="100"
                        max="599"
                        step="1"
                        inputMode="numeric"
                        placeholder="200"
                        className="assertion-code"
                        value={row.target}
                        onChange={(e) => update('statusCodeAssertions', row.key, { target: e.target.value })}
                      />
                    )}
                  </Cell>
                </>
              }
            />
          );
        })}
      </AssertionList>

      <AssertionList
        legend="Response headers"
        error={errors.of('monitor.headerAssertions')}
        addLabel="Add header assertion"
        onAdd={() => set('headerAssertions', [...form.headerAssertions, { key: rowKey(), name: '', comparator: StringComparator.CONTAINS, target: '' }])}
      >
        {form.headerAssertions.map((row, i) => {
          const label = `Header assertion ${i + 1}`;
          const nameError = rowError('headerAssertions', row.key, 'key');
          const comparatorError = rowError('headerAssertions', row.key, 'comparator');
          const targetError = rowError('headerAssertions', row.key, 'target');
          return (
            <AssertionRow
              key={row.key}
              label={label}
              onRemove={() => remove('headerAssertions', row.key)}
              messages={[rowError('headerAssertions', row.key), nameError, comparatorError, targetError]}
              cells={
                <>
                  <span className="assertion-word">Header</span>
                  <Cell label={`${label} name`} message={nameError}>
                    {(control) => (
                      <input
                        {...control}
                        type="text"
                        placeholder="content-type"
                        autoComplete="off"
                        spellCheck={false}
                        value={row.name}
                        onChange={(e) => update('headerAssertions', row.key, { name: e.target.value })}
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
                    onChange={(change) => update('headerAssertions', row.key, change)}
                  />
                </>
              }
            />
          );
        })}
      </AssertionList>

      <AssertionList
        legend="Response body"
        error={errors.of('monitor.bodyAssertions')}
        addLabel="Add body assertion"
        onAdd={() => set('bodyAssertions', [...form.bodyAssertions, { key: rowKey(), comparator: StringComparator.CONTAINS, target: '' }])}
      >
        {form.bodyAssertions.map((row, i) => {
          const label = `Body assertion ${i + 1}`;
          const comparatorError = rowError('bodyAssertions', row.key, 'comparator');
          const targetError = rowError('bodyAssertions', row.key, 'target');
          return (
            <AssertionRow
              key={row.key}
              label={label}
              onRemove={() => remove('bodyAssertions', row.key)}
              messages={[rowError('bodyAssertions', row.key), comparatorError, targetError]}
              cells={
                <>
                  <span className="assertion-word">Body</span>
                  <StringComparison
                    label={label}
                    comparator={row.comparator}
                    target={row.target}
                    comparatorError={comparatorError}
                    targetError={targetError}
                    onChange={(change) => update('bodyAssertions', row.key, change)}
                  />
                </>
              }
            />
          );
        })}
      </AssertionList>
    </>
  );
}

function AssertionList({ legend, error, addLabel, onAdd, children }: { legend: string; error: string | undefined; addLabel: string; onAdd(): void; children: ReactNode[] }) {
  const list = useRef<HTMLUListElement>(null);
  const add = () => {
    onAdd();
    // The new row's first control takes the focus once it is drawn.
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>('.assertion-row:last-child select, .assertion-row:last-child input')?.focus());
  };
  return (
    <FieldGroup legend={legend} error={error} className="assertion-list">
      {() => (
        <>
          <ul ref={list} className="assertion-rows" hidden={children.length === 0}>
            {children}
          </ul>
          <button type="button" className="button button-small kv-add" onClick={add}>
            <Icon name="plus" />
            {addLabel}
          </button>
        </>
      )}
    </FieldGroup>
  );
}

function Frequency({
  plan,
  value,
  stored,
  onChange,
  error,
}: {
  plan: PlanAllowance;
  value: Periodicity;
  stored: Periodicity | undefined;
  onChange(periodicity: Periodicity): void;
  error: string | undefined;
}) {
  const id = useId();
  const offered = FREQUENCIES.filter((f) => plan.frequencies.includes(f.name) || f.periodicity === stored);
  return (
    <FieldGroup legend="Frequency" hint={`How often it is checked. The ${plan.plan} plan allows ${plan.frequencies.join(', ')}.`} error={error} className="frequency">
      {(control) => (
        <div className="choice-pills">
          {offered.map((f) => {
            const outsidePlan = !plan.frequencies.includes(f.name);
            return (
              <div className="choice-pill" key={f.name}>
                <input
                  type="radio"
                  id={`${id}-${f.name}`}
                  name={`${id}-frequency`}
                  checked={value === f.periodicity}
                  aria-invalid={control['aria-invalid']}
                  aria-describedby={control['aria-describedby']}
                  onChange={() => onChange(f.periodicity)}
                />
                <label htmlFor={`${id}-${f.name}`}>
                  {f.label}
                  {outsidePlan ? <span className="muted"> (kept; not on this plan)</span> : null}
                </label>
              </div>
            );
          })}
        </div>
      )}
    </FieldGroup>
  );
}

function Regions({
  type,
  plan,
  value,
  onChange,
  error,
}: {
  type: MonitorType;
  plan: PlanAllowance;
  value: string[];
  onChange(regions: string[]): void;
  error: string | undefined;
}) {
  const hint =
    type === 'grpc'
      ? 'Where it is checked from. Pick at least one, or a private location below.'
      : `Where it is checked from. Unless private locations are picked, none picked means the plan's default regions: ${plan.defaultTcpRegions.join(', ')}.`;
  // A stored region the catalogue no longer lists stays visible, so it can be unticked.
  const offered = [...plan.regions, ...value.filter((r) => !plan.regions.includes(r))];
  return (
    <FieldGroup legend="Regions" hint={hint} error={error} className="regions">
      {(control) => (
        <>
          <CheckGrid options={offered.map((region) => ({ value: region, label: region }))} value={value} onChange={onChange} control={control} />
          {value.length > 0 ? (
            <button type="button" className="button button-small button-ghost regions-clear" onClick={() => onChange([])}>
              {type === 'grpc' ? 'Clear regions' : 'Clear: use the plan default'}
            </button>
          ) : null}
        </>
      )}
    </FieldGroup>
  );
}

/**
 * The workspace's private locations to check from besides (or instead of) regions: each is a
 * region of its own in the monitor's status and results, named by the location.
 */
function PrivateLocations({
  workspace,
  value,
  onChange,
  error,
}: {
  workspace: Workspace;
  value: string[];
  onChange(locations: string[]): void;
  error: string | undefined;
}) {
  const [listed] = useResource(async () => {
    const { privateLocations } = await rpcFor(workspace.id).privateLocations.listPrivateLocations({ perPage: 100 });
    // The embedded runner serves the regions above; it is not a location to pick.
    return privateLocations.filter((l) => !l.embedded);
  }, workspace.id);
  const hint = 'Runners on your own machines that check it too, each shown as a region named by the location.';
  if (listed.state === 'loading') return <Loading what="the private locations" />;
  if (listed.state === 'error') return <ErrorNote>{listed.error.message}</ErrorNote>;
  // A stored location that is gone (or not listed) stays visible by its id, so it can be unticked.
  const offered = [
    ...listed.value.map((l) => ({ value: l.id, label: l.name })),
    ...value.filter((v) => !listed.value.some((l) => l.id === v)).map((v) => ({ value: v, label: `location ${v}` })),
  ];
  return (
    <FieldGroup legend="Private locations" hint={hint} error={error} className="regions">
      {(control) =>
        offered.length === 0 ? (
          <p className="muted small">
            This workspace has no private locations. <Link to="/locations">Add one</Link> to check from your own network.
          </p>
        ) : (
          <CheckGrid options={offered} value={value} onChange={onChange} control={control} />
        )
      }
    </FieldGroup>
  );
}

/** A grid of checkboxes, one per option, giving the values of those ticked in the order they were ticked. */
function CheckGrid({
  options,
  value,
  onChange,
  control,
}: {
  options: { value: string; label: string }[];
  value: string[];
  onChange(value: string[]): void;
  control: Omit<ControlProps, 'id'>;
}) {
  const id = useId();
  const toggle = (option: string, on: boolean) => onChange(on ? [...value, option] : value.filter((v) => v !== option));
  return (
    <div className="region-grid">
      {options.map((option) => (
        <div className="check-row" key={option.value}>
          <input
            type="checkbox"
            id={`${id}-${option.value}`}
            checked={value.includes(option.value)}
            aria-invalid={control['aria-invalid']}
            aria-describedby={control['aria-describedby']}
            onChange={(e) => toggle(option.value, e.target.checked)}
          />
          <label htmlFor={`${id}-${option.value}`}>{option.label}</label>
        </div>
      ))}
    </div>
  );
}
