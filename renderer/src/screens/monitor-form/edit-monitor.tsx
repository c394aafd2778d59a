import { ApiError, type Workspace } from '../../api.ts';
import { ErrorNote, Loading, PageHeader } from '../../components.tsx';
import { asApiError, useResource } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { rpcFor } from '../../rpc.ts';
import { MonitorForm, refusedHere } from './monitor-form.tsx';
import { type ChangedFields, formOf, type MonitorFormValues, type StoredMonitor, storedMonitorOf, updateOf } from './monitor-form-model.ts';
import { type LoadedPlan, PlanGate } from './plan-gate.tsx';
import { TYPE_TITLES } from './monitor-options.ts';

/** An existing monitor's form, prefilled; only the fields changed are saved. */
export function EditMonitor({ workspace, id, plan }: { workspace: Workspace; id: string; plan: LoadedPlan }) {
  const rpc = rpcFor(workspace.id);
  const [loaded] = useResource(async (): Promise<{ found: StoredMonitor; initial: MonitorFormValues }> => {
    try {
      const found = storedMonitorOf((await rpc.monitors.getMonitor({ id })).monitor);
      if (!found) throw new ApiError(500, 'INTERNAL', `The service returned monitor ${id} without its settings.`);
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
  const save = async (form: MonitorFormValues, changed: ChangedFields) => {
    const { update, local } = updateOf(found.type, form, changed);
    if (local.length > 0) throw refusedHere(local);
    if (update?.type === 'tcp') await rpc.monitors.updateTCPMonitor({ id, monitor: update.monitor, updateMask: update.updateMask });
    else if (update?.type === 'grpc') await rpc.monitors.updateGRPCMonitor({ id, monitor: update.monitor, updateMask: update.updateMask });
    else if (update?.type === 'http') await rpc.monitors.updateHTTPMonitor({ id, monitor: update.monitor, updateMask: update.updateMask });
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
