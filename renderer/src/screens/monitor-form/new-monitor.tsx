import { ApiError, type Workspace } from '../../api.ts';
import { PageHeader } from '../../components.tsx';
import { navigate, useLocation } from '../../router.tsx';
import { rpcFor } from '../../rpc.ts';
import { MonitorForm, refusedHere } from './monitor-form.tsx';
import { createOf, emptyForm, type MonitorFormValues, type MonitorType } from './monitor-form-model.ts';
import { type LoadedPlan, PlanGate } from './plan-gate.tsx';
import { isMonitorType } from './monitor-options.ts';
import { TypeChooser } from './type-chooser.tsx';

/** A new monitor: its type chosen first (kept in `?type=`), then its form. */
export function NewMonitor({ workspace, plan }: { workspace: Workspace; plan: LoadedPlan }) {
  const { query } = useLocation();
  const asked = query.get('type');
  const type = isMonitorType(asked) ? asked : undefined;
  const choose = (next: MonitorType) => navigate(`/monitors/new?type=${next}`, { replace: true });
  const rpc = rpcFor(workspace.id);

  const save = async (chosen: MonitorType, form: MonitorFormValues) => {
    const { wire, local } = createOf(chosen, form);
    if (local.length > 0) throw refusedHere(local);
    const created =
      wire.type === 'tcp'
        ? (await rpc.monitors.createTCPMonitor({ monitor: wire.monitor })).monitor
        : wire.type === 'grpc'
          ? (await rpc.monitors.createGRPCMonitor({ monitor: wire.monitor })).monitor
          : (await rpc.monitors.createHTTPMonitor({ monitor: wire.monitor })).monitor;
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
              initial={emptyForm()}
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
