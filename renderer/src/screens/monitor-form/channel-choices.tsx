// Which channels alert a monitor, chosen on its own form: a box per channel of the workspace. The
// choice lives beside the monitor's form values (it is saved through the channels, not in the
// monitor): the screen compares it with what was there and sends it only when it differs.
import { useEffect, useId, useState } from 'react';
import { CHANNEL_KINDS } from '../../../../contract/channel-kinds.ts';
import type { NotificationChannel } from '../../../../proto/gen/notification/v1/notification_pb.js';
import { ErrorNote } from '../../components.tsx';
import { useChannelPage } from '../../data/notifications.ts';
import { Link } from '../../router.tsx';

/** The channels a monitor's form offers, and the ticked ones, once the channels are read. */
export interface ChannelChoices {
  channels: readonly NotificationChannel[] | undefined;
  error: Error | null;
  /** The workspace has more channels than one page holds: they are wired from Notifications. */
  incomplete: boolean;
  /** The channels wired to the monitor when the form opened (for a new one: the defaults for new monitors); undefined until read. */
  initial: readonly string[] | undefined;
  chosen: readonly string[] | undefined;
  setChosen(next: string[]): void;
}

/**
 * The workspace's channels and which of them alert the monitor `monitorId` (undefined: a new
 * monitor, which starts with the channels that are a default for new ones). Channels of every
 * monitor alert it whatever is ticked, so they are not part of the choice.
 */
export function useChannelChoices(workspaceId: string, monitorId?: string): ChannelChoices {
  const query = useChannelPage(workspaceId);
  // Every channel must be on the page, or a save would unwire the monitor from those beyond it:
  // a workspace with more is told to wire them from Notifications (see ChannelChoiceFields).
  const complete = query.data !== undefined && query.data.channels.length >= (query.data.pagination?.totalSize ?? 0);
  const channels = complete ? query.data?.channels : undefined;
  const [chosen, setChosen] = useState<string[]>();
  const [initial, setInitial] = useState<string[]>();
  useEffect(() => {
    // Filled once, from the first answer: a later refresh does not undo what the user ticked.
    if (!channels || initial) return;
    const wired = channels.filter((c) => !c.allMonitors && (monitorId === undefined ? c.defaultForNew : c.monitorIds.includes(monitorId))).map((c) => c.id);
    setInitial(wired);
    setChosen(wired);
  }, [channels, initial, monitorId]);
  return { channels, error: query.error, incomplete: query.data !== undefined && !complete, initial, chosen, setChosen };
}

/** Whether the ticked channels differ from those the monitor had (in any order). */
export function channelsChanged(choices: ChannelChoices): boolean {
  const { initial, chosen } = choices;
  if (!initial || !chosen) return false;
  return initial.length !== chosen.length || chosen.some((id) => !initial.includes(id));
}

const kindLabel = (kind: string) => (CHANNEL_KINDS as Record<string, { label: string } | undefined>)[kind]?.label ?? kind;

/** A box per channel of the workspace: its name and kind; a channel of every monitor ticked and fixed. */
export function ChannelChoiceFields({ choices }: { choices: ChannelChoices }) {
  const id = useId();
  const { channels, chosen, setChosen, error, incomplete } = choices;
  if (error) return <ErrorNote>The channels could not be read: {error.message}</ErrorNote>;
  if (incomplete)
    return (
      <p className="muted small">
        This workspace has more channels than this form lists: wire the monitor to them under <Link to="/notifications">Notifications</Link>.
      </p>
    );
  if (!channels || !chosen) return <p className="muted small">Reading the channels…</p>;
  const toggle = (channel: string, on: boolean) => setChosen(on ? [...chosen, channel] : chosen.filter((c) => c !== channel));
  return (
    <fieldset className="field-group channel-choices" aria-describedby={`${id}-hint`}>
      <legend>Channels</legend>
      <p className="field-hint" id={`${id}-hint`}>
        {channels.length === 0 ? (
          <>
            No channels yet. Add one under <Link to="/notifications">Notifications</Link>, then tick it here.
          </>
        ) : (
          'The channels ticked receive this monitor’s alerts.'
        )}
      </p>
      <ul className="channel-choice-list">
        {channels.map((channel) => {
          const boxId = `${id}-${channel.id}`;
          return (
            <li className="check-row" key={channel.id}>
              <input
                type="checkbox"
                id={boxId}
                checked={channel.allMonitors || chosen.includes(channel.id)}
                disabled={channel.allMonitors}
                aria-describedby={channel.allMonitors ? `${boxId}-every` : undefined}
                onChange={(e) => toggle(channel.id, e.target.checked)}
              />
              <label htmlFor={boxId}>
                {channel.name} <span className="muted">({kindLabel(channel.kind)})</span>
              </label>
              {channel.allMonitors ? (
                <small id={`${boxId}-every`} className="field-hint">
                  alerts every monitor
                </small>
              ) : null}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
