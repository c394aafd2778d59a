import { useCallback } from 'react';
import { ApiError, type Workspace } from '../../api.ts';
import { ErrorNote, Loading, PageHeader } from '../../components.tsx';
import { useMonitor, useUpdateMonitor } from '../../data/monitors.ts';
import { useSetMonitorChannels } from '../../data/notifications.ts';
import { loadedOf } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { channelsChanged, useChannelChoices } from './channel-choices.tsx';
import { MonitorForm, refusedHere } from './monitor-form.tsx';
import { type ChangedFields, formOf, type MonitorFormValues, type StoredMonitor, storedMonitorOf, updateOf } from './monitor-form-model.ts';
import { TYPE_TITLES } from './monitor-options.ts';
import { type LoadedPlan, PlanGate } from './plan-gate.tsx';

/** The stored monitor of a GetMonitor answer, and the form it fills. */
function editedOf(answer: Parameters<typeof storedMonitorOf>[0], id: string): { found: StoredMonitor; initial: MonitorFormValues } {
  const found = storedMonitorOf(answer);
  if (!found) throw new ApiError(500, 'INTERNAL', `The service returned monitor ${id} without its settings.`);
  return { found, initial: formOf(found) };
}

/** An existing monitor's form, prefilled; only the fields changed are saved. */
/** `An` before a vowel sound, as an initialism spelt out is read (an HTTP, an MCP server, a TCP). */
const anOrA = (word: string) => (/^([AEIOU]|[FHLMNRSX][A-Z])/.test(word) ? 'An' : 'A');

export function EditMonitor({ workspace, id, plan }: { workspace: Workspace; id: string; plan: LoadedPlan }) {
  // One function per monitor, so the form is filled once per answer, not once per drawing.
  const select = useCallback((answer: { monitor: Parameters<typeof storedMonitorOf>[0] }) => editedOf(answer.monitor, id), [id]);
  const query = useMonitor(workspace.id, id, { select });
  // The form starts from the service's answer to this visit, never from what the cache kept of an earlier one.
  const loaded = query.isFetchedAfterMount || query.error ? loadedOf(query) : ({ state: 'loading' } as const);
  const update = useUpdateMonitor(workspace.id);
  const channelChoices = useChannelChoices(workspace.id, id);
  const setChannels = useSetMonitorChannels(workspace.id);
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
    const { update: changes, local } = updateOf(found.type, form, changed);
    if (local.length > 0) throw refusedHere(local);
    if (changes) await update.mutateAsync({ id, update: changes, before: found.monitor.updatedAt });
    if (channelsChanged(channelChoices)) await setChannels.mutateAsync({ monitorId: id, channelIds: [...(channelChoices.chosen ?? [])] });
    navigate(detail);
  };

  return (
    <>
      <PageHeader title={`Edit ${found.monitor.name}`}>
        {anOrA(TYPE_TITLES[found.type])} {TYPE_TITLES[found.type]} monitor. Its type cannot change; only the fields you change are saved.
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
            channelChoices={channelChoices}
          />
        )}
      </PlanGate>
    </>
  );
}
