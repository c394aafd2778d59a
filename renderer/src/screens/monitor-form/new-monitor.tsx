import { useState } from 'react';
import type { Workspace } from '../../api.ts';
import { PageHeader } from '../../components.tsx';
import { useCreateMonitor } from '../../data/monitors.ts';
import { useSetMonitorChannels } from '../../data/notifications.ts';
import { Link, navigate, useLocation } from '../../router.tsx';
import { channelsChanged, useChannelChoices } from './channel-choices.tsx';
import { MonitorForm, refusedHere } from './monitor-form.tsx';
import { createOf, emptyForm, type MonitorFormValues, type MonitorType } from './monitor-form-model.ts';
import { type LoadedPlan, PlanGate } from './plan-gate.tsx';
import { isMonitorType } from './monitor-options.ts';
import { TypeChooser } from './type-chooser.tsx';
import { PingUrlOnce } from '../monitor-detail-heartbeat.tsx';

/** A new monitor: its type chosen first (kept in `?type=`), then its form. */
export function NewMonitor({ workspace, plan }: { workspace: Workspace; plan: LoadedPlan }) {
  const { query } = useLocation();
  const asked = query.get('type');
  const type = isMonitorType(asked) ? asked : undefined;
  const choose = (next: MonitorType) => navigate(`/monitors/new?type=${next}`, { replace: true });
  const create = useCreateMonitor(workspace.id);
  // A new monitor starts with the channels that are a default for new ones ticked.
  const channelChoices = useChannelChoices(workspace.id);
  const setChannels = useSetMonitorChannels(workspace.id);
  // A heartbeat monitor's ping URL is in the answer to its creation alone: shown here, once, before its page.
  const [pinged, setPinged] = useState<{ id: string; name: string; pingUrl: string }>();

  const save = async (chosen: MonitorType, form: MonitorFormValues) => {
    const { wire, local } = createOf(chosen, form);
    if (local.length > 0) throw refusedHere(local);
    const { id, pingUrl } = await create.mutateAsync(wire);
    // The service wired it to the defaults for new monitors; a default unticked (or another channel ticked) is set now.
    if (channelsChanged(channelChoices)) await setChannels.mutateAsync({ monitorId: id, channelIds: [...(channelChoices.chosen ?? [])] });
    if (pingUrl) return setPinged({ id, name: form.name, pingUrl });
    navigate(`/monitors/${encodeURIComponent(id)}`);
  };

  if (pinged) {
    return (
      <>
        <PageHeader title="New monitor">Give the job its ping URL: it calls it each time it runs.</PageHeader>
        <PingUrlOnce
          heading={`Heartbeat monitor “${pinged.name}” created`}
          url={pinged.pingUrl}
          onDone={() => navigate(`/monitors/${encodeURIComponent(pinged.id)}`)}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader title="New monitor">Statusdesk checks it on schedule from this machine (or your private locations), and records each result.</PageHeader>
      <TypeChooser type={type} onChoose={choose} />
      {type === 'mcp' ? (
        <p className="muted">
          Already set up in Claude, Cursor, VS Code or Windsurf? <Link to="/monitors/import">Find them in your editors</Link>
        </p>
      ) : null}
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
              channelChoices={channelChoices}
            />
          )}
        </PlanGate>
      )}
    </>
  );
}
