import { useId } from 'react';
import { useController, useFormContext } from 'react-hook-form';
import type { Periodicity } from '../../../../proto/gen/monitor/v1/monitor_pb.js';
import type { PlanAllowance, Workspace } from '../../api.ts';
import { ErrorNote, Loading } from '../../components.tsx';
import { type FieldErrors, FieldGroup } from '../../forms.tsx';
import { useLocations } from '../../data/locations.ts';
import { loadedOf } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { CheckGrid } from './check-grid.tsx';
import { keptOrder, type MonitorFormValues, type MonitorType } from './monitor-form-model.ts';
import { FREQUENCIES } from './monitor-options.ts';
import { typeOf } from './type-fields.ts';

/** How often and from where the monitor is checked, and whether it is checked at all. */
export function ScheduleFields({
  type,
  workspace,
  plan,
  storedPeriodicity,
  errors,
}: {
  type: MonitorType;
  workspace: Workspace;
  plan: PlanAllowance;
  storedPeriodicity: Periodicity | undefined;
  errors: FieldErrors;
}) {
  const { register } = useFormContext<MonitorFormValues>();
  return (
    <>
      <Frequency plan={plan} stored={storedPeriodicity} error={errors.of('monitor.periodicity')} heartbeat={type === 'heartbeat'} />
      <Regions type={type} plan={plan} error={errors.of('monitor.regions')} />
      {/* A heartbeat's pings come to the service: no private location checks it. */}
      {type === 'heartbeat' ? null : <PrivateLocations workspace={workspace} error={errors.of('monitor.privateLocations')} />}
      <div className="check-row">
        <input type="checkbox" id="monitor-active" {...register('active')} aria-describedby="monitor-active-hint" />
        <label htmlFor="monitor-active">Active</label>
        <small id="monitor-active-hint" className="field-hint">
          Checked on schedule. Turn off to pause the monitor and keep its settings.
        </small>
      </div>
    </>
  );
}

/** The frequencies the plan allows, and the stored one even when the plan no longer does. */
function Frequency({
  plan,
  stored,
  error,
  heartbeat,
}: {
  plan: PlanAllowance;
  stored: Periodicity | undefined;
  error: string | undefined;
  heartbeat: boolean;
}) {
  const id = useId();
  const { field } = useController<MonitorFormValues, 'periodicity'>({ name: 'periodicity' });
  const offered = FREQUENCIES.filter((f) => plan.frequencies.includes(f.name) || f.periodicity === stored);
  return (
    <FieldGroup
      legend="Frequency"
      hint={`${heartbeat ? 'How often its state is recorded while no ping comes; a missed ping is seen at once whatever this says.' : 'How often it is checked.'} The ${plan.plan} plan allows ${plan.frequencies.join(', ')}.`}
      error={error}
      className="frequency"
    >
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
                  checked={field.value === f.periodicity}
                  aria-invalid={control['aria-invalid']}
                  aria-describedby={control['aria-describedby']}
                  onChange={() => field.onChange(f.periodicity)}
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

/** A list field of the form whose order means nothing: ticking a box off and on again is no change. */
function useUnorderedList(name: 'regions' | 'privateLocations'): { value: string[]; onChange(value: string[]): void } {
  const { formState } = useFormContext<MonitorFormValues>();
  const { field } = useController<MonitorFormValues, typeof name>({ name });
  const stored = formState.defaultValues?.[name]?.filter((v): v is string => v !== undefined) ?? [];
  return { value: field.value, onChange: (next) => field.onChange(keptOrder(next, stored)) };
}

function Regions({ type, plan, error }: { type: MonitorType; plan: PlanAllowance; error: string | undefined }) {
  const { value, onChange } = useUnorderedList('regions');
  // Regions are labels this machine's checks stand for, not places they run from: said in one
  // sentence, with where to go to check from elsewhere.
  const what = (
    <>
      This machine runs each check and records it for the regions picked here; to check from another network, add a{' '}
      <Link to="/locations">private location</Link>.
    </>
  );
  const hint = typeOf(type).regionsRequired ? (
    <>{what} Pick at least one region, or a private location below.</>
  ) : (
    <>
      {what} Unless private locations are picked, none picked means the plan's default regions: {plan.defaultTcpRegions.join(', ')}.
    </>
  );
  // A stored region the catalogue no longer lists stays visible, so it can be unticked.
  const offered = [...plan.regions, ...value.filter((r) => !plan.regions.includes(r))];
  return (
    <FieldGroup legend="Regions" hint={hint} error={error} className="regions">
      {(control) => (
        <>
          <CheckGrid options={offered.map((region) => ({ value: region, label: region }))} value={value} onChange={onChange} control={control} />
          {value.length > 0 ? (
            <button type="button" className="button button-small button-ghost regions-clear" onClick={() => onChange([])}>
              {typeOf(type).regionsRequired ? 'Clear regions' : 'Clear: use the plan default'}
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
function PrivateLocations({ workspace, error }: { workspace: Workspace; error: string | undefined }) {
  const { value, onChange } = useUnorderedList('privateLocations');
  const all = loadedOf(useLocations(workspace.id));
  // The embedded runner serves the regions above; it is not a location to pick.
  const listed = all.state === 'ready' ? { ...all, value: all.value.filter((l) => !l.embedded) } : all;
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
