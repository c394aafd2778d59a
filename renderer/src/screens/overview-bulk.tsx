import { useId, useState } from 'react';
import { MONITOR_LIMITS } from '../../../contract/limits.ts';
import { ConfirmDialog, ErrorNote } from '../components.tsx';
import { BULK_ACTION, type BulkVerb, filterOf, useBulkUpdateMonitors } from '../data/bulk-monitors.ts';
import { useChannels } from '../data/notifications.ts';
import type { OverviewFilters } from '../data/overview.ts';
import { asApiError } from '../hooks.ts';
import './overview-bulk.css';
import { GroupSuggestions } from './overview-groups.tsx';
import { type Selection, selectedCount } from './overview-selection.ts';

const monitors = (n: number) => (n === 1 ? '1 monitor' : `${n.toLocaleString()} monitors`);

/**
 * What can be done to the chosen monitors at once: pause, resume, delete (after a confirmation
 * that names how many), add a tag, wire to a channel, put in a group or take out of one (after a
 * confirmation too). One request does it (BulkUpdateMonitors); the toast says how many changed.
 */
export function BulkBar({
  workspaceId,
  selection,
  total,
  filters,
  onClear,
}: {
  workspaceId: string;
  selection: Selection;
  /** Monitors that match the filter, across all pages. */
  total: number;
  filters: OverviewFilters;
  onClear(): void;
}) {
  const id = useId();
  const bulk = useBulkUpdateMonitors(workspaceId);
  const channels = useChannels(workspaceId);
  const [tag, setTag] = useState('');
  const [channelId, setChannelId] = useState('');
  const [group, setGroup] = useState('');
  const [confirming, setConfirming] = useState<'delete' | 'group'>();
  const [error, setError] = useState<string>();
  const count = selectedCount(selection, total);
  const groupName = group.trim();
  if (count === 0) return null;

  const run = async (verb: BulkVerb) => {
    setError(undefined);
    try {
      const answer = await bulk.mutateAsync({
        action: BULK_ACTION[verb],
        ...(selection.kind === 'filter' ? { filter: filterOf(filters) } : { ids: [...selection.ids] }),
        tag: verb === 'tag' ? tag : '',
        channelId: verb === 'wire' ? channelId : '',
        group: verb === 'group' ? group.trim() : '',
      });
      if (answer.failures.length > 0) setError(answer.failures.map((f) => `Monitor ${f.id}: ${f.reason}`).join(' '));
      setConfirming(undefined);
      if (verb === 'tag') setTag('');
      if (verb === 'group') setGroup('');
      // Deleted monitors cannot stay chosen; after the other actions the choice stays for the next one.
      if (verb === 'delete') onClear();
    } catch (caught) {
      setError(asApiError(caught).message);
    }
  };

  const chosen = selection.kind === 'filter' ? `All ${monitors(count)} that match chosen` : `${monitors(count)} chosen`;
  return (
    <section className="bulk-bar" aria-label="Chosen monitors">
      <p className="bulk-count" role="status">
        <strong>{chosen}</strong>
        <button type="button" className="button button-small" onClick={onClear}>
          Clear
        </button>
      </p>
      <div className="bulk-actions">
        <button type="button" className="button" disabled={bulk.isPending} onClick={() => run('pause')}>
          Pause
        </button>
        <button type="button" className="button" disabled={bulk.isPending} onClick={() => run('resume')}>
          Resume
        </button>
        <button type="button" className="button button-danger-quiet" disabled={bulk.isPending} onClick={() => setConfirming('delete')}>
          Delete
        </button>
        <form
          className="bulk-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run('tag');
          }}
        >
          <label htmlFor={`${id}-tag`}>Tag</label>
          <input id={`${id}-tag`} type="text" value={tag} maxLength={64} required onChange={(event) => setTag(event.target.value)} />
          <button type="submit" className="button" disabled={bulk.isPending}>
            Add tag
          </button>
        </form>
        <form
          className="bulk-form"
          onSubmit={(event) => {
            event.preventDefault();
            setError(undefined);
            setConfirming('group');
          }}
        >
          <label htmlFor={`${id}-group`}>Group</label>
          <input
            id={`${id}-group`}
            type="text"
            value={group}
            maxLength={MONITOR_LIMITS.groupLength}
            autoComplete="off"
            list={`${id}-groups`}
            onChange={(event) => setGroup(event.target.value)}
          />
          <GroupSuggestions id={`${id}-groups`} workspaceId={workspaceId} />
          <button type="submit" className="button" disabled={bulk.isPending}>
            {groupName ? 'Set group' : 'Remove from group'}
          </button>
        </form>
        {channels.data && channels.data.length > 0 ? (
          <form
            className="bulk-form"
            onSubmit={(event) => {
              event.preventDefault();
              void run('wire');
            }}
          >
            <label htmlFor={`${id}-channel`}>Channel</label>
            <select id={`${id}-channel`} value={channelId} required onChange={(event) => setChannelId(event.target.value)}>
              <option value="">Choose…</option>
              {channels.data.map((channel) => (
                <option key={channel.id} value={channel.id}>
                  {channel.name}
                </option>
              ))}
            </select>
            <button type="submit" className="button" disabled={bulk.isPending}>
              Wire to channel
            </button>
          </form>
        ) : null}
      </div>
      {error ? <ErrorNote>{error}</ErrorNote> : null}
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${monitors(count)}?`}
        confirmLabel={`Delete ${monitors(count)}`}
        busy={bulk.isPending}
        error={confirming === 'delete' ? error : undefined}
        onConfirm={() => void run('delete')}
        onCancel={() => setConfirming(undefined)}
      >
        <p>Their checks and check history are deleted too. This cannot be undone.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'group'}
        title={groupName ? `Put ${monitors(count)} in ${groupName}?` : `Remove ${monitors(count)} from their group?`}
        confirmLabel={groupName ? `Put ${monitors(count)} in the group` : `Remove ${monitors(count)} from their group`}
        tone="primary"
        busy={bulk.isPending}
        error={confirming === 'group' ? error : undefined}
        onConfirm={() => void run('group')}
        onCancel={() => setConfirming(undefined)}
      >
        <p>
          {groupName
            ? 'They leave any group they are in. The overview shows them together under this group.'
            : 'The overview shows them with the monitors that are in no group.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}
