import { useEffect, useRef, useState } from 'react';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import type { FieldViolation } from '../../../../contract/errors.ts';
import { ApiError, type PlanAllowance, type Workspace } from '../../api.ts';
import type { DeclaredFieldHints } from '../../declared-input.ts';
import { focusFirstInvalid, FormProblems, matchViolations } from '../../forms.tsx';
import { asApiError } from '../../hooks.ts';
import type { Periodicity } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import { Link } from '../../router.tsx';
import { AboutFields } from './about-fields.tsx';
import { AssertionFields } from './assertion-fields.tsx';
import { HeaderFields } from './header-fields.tsx';
import { DnsNameField, DnsValuesField } from './dns-fields.tsx';
import { HeartbeatGraceField, HeartbeatScheduleField } from './heartbeat-fields.tsx';
import { McpArgsField, McpServerField } from './mcp-fields.tsx';
import type { ChangedFields, MonitorFormValues, MonitorType } from './monitor-form-model.ts';
import { type Failure, failureOf } from './monitor-form-refusal.ts';
import { TYPE_TITLES } from './monitor-options.ts';
import { OpenTelemetryFields } from './open-telemetry-fields.tsx';
import { RequestBody } from './request-fields.tsx';
import { AlertFields } from './alert-fields.tsx';
import { ChannelChoiceFields, type ChannelChoices } from './channel-choices.tsx';
import { ScheduleFields } from './schedule-fields.tsx';
import { TargetFields } from './target-fields.tsx';
import { TimingFields } from './timing-fields.tsx';
import { type OwnEditors, TypeField, TypeFields } from './type-field.tsx';
import { shownFor, typeOf } from './type-fields.ts';

/** A refusal made before sending: values the wire cannot carry, named as the service names them. */
export function refusedHere(violations: FieldViolation[]): ApiError {
  return new ApiError(400, 'VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}

/**
 * The form of one monitor type, in sections. react-hook-form holds the values and marks the
 * changed ones (an edit saves only those); the service validates, and its refusal is shown beside
 * the fields it names.
 */
export function MonitorForm({
  type,
  workspace,
  initial,
  plan,
  storedPeriodicity,
  submitLabel,
  busyLabel,
  cancelTo,
  onSave,
  channelChoices,
}: {
  type: MonitorType;
  workspace: Workspace;
  initial: MonitorFormValues;
  plan: PlanAllowance;
  /** The periodicity the monitor has: offered even when the plan no longer allows it, since keeping it is allowed. */
  storedPeriodicity?: Periodicity;
  submitLabel: string;
  busyLabel: string;
  cancelTo: string;
  onSave(form: MonitorFormValues, changed: ChangedFields): Promise<void>;
  /** Which channels alert the monitor; the screen saves them beside the monitor. */
  channelChoices?: ChannelChoices;
}) {
  const form = useForm<MonitorFormValues>({ defaultValues: initial });
  // Read while drawing, so react-hook-form keeps the marks of changed fields up to date.
  const { isSubmitting, dirtyFields } = form.formState;
  const [failure, setFailure] = useState<Failure<ApiError>>();
  const transport = useWatch({ control: form.control, name: 'transport' });
  const formRef = useRef<HTMLFormElement>(null);
  const problemsRef = useRef<HTMLDivElement>(null);

  // A refusal was about the type it was sent as; another type starts without it, keeping what was typed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the refusal is cleared when the type changes, as the comment above says
  useEffect(() => setFailure(undefined), [type]);

  useEffect(() => {
    if (!failure) return;
    // The first field the service named takes the focus; with none, the note above the form.
    if (!focusFirstInvalid(formRef.current)) problemsRef.current?.focus();
  }, [failure]);

  const submit = form.handleSubmit(async (values) => {
    try {
      await onSave(values, dirtyFields);
    } catch (caught) {
      setFailure(failureOf(asApiError(caught), type, values));
    }
  });

  const errors = failure?.errors ?? matchViolations(undefined, []);
  const targetError = errors.of('monitor.uri');
  const declared = typeOf(type);
  const hasAssertions = declared.fields.some((field) => field.name === 'statusCodeAssertions');
  // The editors of the fields that are not plain inputs; the assertions have a section of their own.
  const editors: OwnEditors = {
    uri: (spec) => (
      <TargetFields
        spec={spec}
        hostError={failure?.targetAt === 'host' ? targetError : undefined}
        portError={failure?.targetAt === 'port' ? targetError : undefined}
      />
    ),
    headers: (spec) => (
      <HeaderFields name="headers" legend={spec.label} item="Header" errors={errors} field="monitor.headers" hint={spec.hint} namePlaceholder="accept" />
    ),
    metadata: (spec) => (
      <HeaderFields
        name="metadata"
        legend={spec.label}
        item="Metadata entry"
        errors={errors}
        field="monitor.metadata"
        hint={spec.hint}
        namePlaceholder="authorization"
      />
    ),
    body: (spec) => <RequestBody spec={spec} errors={errors} />,
    server: (spec) => <McpServerField spec={spec} errors={errors} />,
    args: (spec) => <McpArgsField spec={spec} errors={errors} />,
    env: (spec) => <HeaderFields name="env" legend={spec.label} item="Variable" errors={errors} field="monitor.env" hint={spec.hint} namePlaceholder="PATH" />,
    // A DNS monitor's name to look up is one input (its `host` is not a TCP target's host).
    ...(type === 'dns' ? { host: (spec: DeclaredFieldHints) => <DnsNameField spec={spec} errors={errors} /> } : {}),
    // A ping monitor's host is one input too: a hostname or an address, no port.
    ...(type === 'ping' ? { host: (spec: DeclaredFieldHints) => <TypeField field={spec} error={errors.of('monitor.host')} /> } : {}),
    contains: (spec) => <DnsValuesField spec={spec} errors={errors} name="contains" />,
    // A heartbeat's schedule is a period or a cron expression with its time zone; its grace a count of a unit.
    ...(type === 'heartbeat'
      ? {
          schedule: (spec: DeclaredFieldHints) => <HeartbeatScheduleField spec={spec} errors={errors} />,
          timezone: () => null,
          grace: (spec: DeclaredFieldHints) => <HeartbeatGraceField spec={spec} errors={errors} />,
        }
      : {}),
    equals: (spec) => <DnsValuesField spec={spec} errors={errors} name="equals" />,
  };

  return (
    <FormProvider {...form}>
      <form ref={formRef} className="monitor-form" onSubmit={submit} noValidate aria-label={`${TYPE_TITLES[type]} monitor`}>
        <div ref={problemsRef} tabIndex={-1} className="monitor-form-problems">
          <FormProblems error={failure?.error} errors={errors} />
        </div>

        <section className="card section monitor-form-section" aria-labelledby="monitor-about">
          <h2 id="monitor-about">About</h2>
          <AboutFields errors={errors} workspaceId={workspace.id} />
        </section>

        <section className="card section monitor-form-section" aria-labelledby="monitor-target">
          <h2 id="monitor-target">{type === 'heartbeat' ? 'Expected pings' : declared.targetIsUrl ? 'Request' : 'Target'}</h2>
          <TypeFields type={type} errors={errors} editors={editors} shown={(name) => shownFor(type, name, transport)} />
        </section>

        {hasAssertions ? (
          <section className="card section monitor-form-section" aria-labelledby="monitor-assertions">
            <h2 id="monitor-assertions">Assertions</h2>
            <p className="muted small monitor-form-lede">
              Every assertion must hold for a check to pass. Without status code assertions, any 2xx status passes.
            </p>
            <AssertionFields errors={errors} failure={failure} />
          </section>
        ) : null}

        <section className="card section monitor-form-section" aria-labelledby="monitor-schedule">
          <h2 id="monitor-schedule">Schedule</h2>
          <ScheduleFields type={type} workspace={workspace} plan={plan} storedPeriodicity={storedPeriodicity} errors={errors} />
        </section>

        {/* A heartbeat runs no check: nothing to time or retry. */}
        {type === 'heartbeat' ? null : (
          <section className="card section monitor-form-section" aria-labelledby="monitor-limits">
            <h2 id="monitor-limits">Timing and retries</h2>
            <TimingFields type={type} errors={errors} />
          </section>
        )}

        <section className="card section monitor-form-section" aria-labelledby="monitor-alerts">
          <h2 id="monitor-alerts">Alerts</h2>
          <p className="muted small monitor-form-lede">
            Each change goes to the channels ticked here (also editable under Notifications). A reminder repeats it while the monitor stays down.
          </p>
          {channelChoices ? <ChannelChoiceFields choices={channelChoices} /> : null}
          <AlertFields errors={errors} />
        </section>

        <section className="card section monitor-form-section" aria-labelledby="monitor-otlp">
          <h2 id="monitor-otlp">Metrics export</h2>
          <p className="muted small monitor-form-lede">
            Sends this monitor's timings to an OpenTelemetry collector over OTLP/HTTP. Leave the endpoint empty for no export.
          </p>
          <OpenTelemetryFields errors={errors} />
        </section>

        <div className="monitor-form-actions">
          <button type="submit" className="button button-primary" disabled={isSubmitting}>
            {isSubmitting ? busyLabel : submitLabel}
          </button>
          <Link to={cancelTo} className="button button-ghost">
            Cancel
          </Link>
        </div>
      </form>
    </FormProvider>
  );
}
