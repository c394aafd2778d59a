// The "Badges" section of a monitor's screen: its public status badges (SVG of its state, uptime
// and latency for a README), off unless turned on here; while on, their previews and the Markdown
// to paste, each with Copy, and a way to give them a new address (the old one stops at once).
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type MonitorBadges as Badges, MonitorService } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import { ErrorNote, Loading } from '../components.tsx';
import { queryKeys, RPC_SERVICES } from '../data/query-keys.ts';
import { rpcTransport } from '../data/rpc-transport.ts';
import './monitor-badges.css';

/** The badges a monitor has, with what each shows. */
const BADGES: { key: keyof Badges & `${string}Url`; kind: string; label: string }[] = [
  { key: 'statusUrl', kind: 'status', label: 'Status' },
  { key: 'uptime24hUrl', kind: 'uptime-24h', label: 'Uptime, 24 hours' },
  { key: 'uptime7dUrl', kind: 'uptime-7d', label: 'Uptime, 7 days' },
  { key: 'uptime30dUrl', kind: 'uptime-30d', label: 'Uptime, 30 days' },
  { key: 'latencyUrl', kind: 'latency', label: 'Latency' },
];

/**
 * A badge's preview as a `data:` address: the dashboard's policy loads images of its own origin
 * only, and the badges are served on the API port, so the service sends their SVG along.
 */
const previewOf = (svg: string | undefined) => (svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` : undefined);

const markdownOf = (label: string, monitorName: string, url: string) => `![${`${monitorName} ${label.toLowerCase()}`.replace(/[[\]\\]/g, '')}](${url})`;

export function MonitorBadges({ workspaceId, monitorId, monitorName }: { workspaceId: string; monitorId: string; monitorName: string }) {
  const transport = rpcTransport(workspaceId);
  const queryClient = useQueryClient();
  const query = useQuery(MonitorService.method.getMonitorBadges, { id: monitorId }, { transport });
  const update = useMutation(MonitorService.method.updateMonitorBadges, {
    transport,
    meta: { done: 'Badges saved.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.rpc(workspaceId, RPC_SERVICES.monitors) }),
  });
  const id = useId();
  const badges = update.data?.badges ?? query.data?.badges;

  return (
    <section className="card section monitor-badges" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Badges</h2>
      <p className="muted">
        Images of this monitor's state, uptime and latency for a README or a wiki. Anyone who has their address can see them while they are on, and nobody once
        they are off.
      </p>
      {query.error ? <ErrorNote>{query.error.message}</ErrorNote> : null}
      {!badges && !query.error ? <Loading what="badges" /> : null}
      {badges ? (
        <>
          <div className="badge-toggle">
            <input
              id={`${id}-on`}
              type="checkbox"
              checked={badges.enabled}
              disabled={update.isPending}
              onChange={(event) => update.mutate({ id: monitorId, enabled: event.target.checked })}
            />
            <label htmlFor={`${id}-on`}>Public badges</label>
            {badges.enabled ? (
              <button
                type="button"
                className="button button-ghost"
                disabled={update.isPending}
                onClick={() => update.mutate({ id: monitorId, enabled: true, rotate: true })}
              >
                New address
              </button>
            ) : null}
          </div>
          {update.error ? <ErrorNote>{update.error.message}</ErrorNote> : null}
          {badges.enabled ? (
            <>
              <p className="small muted">
                Turning them off and on again keeps the address; New address gives them another, and the old one stops working at once.
              </p>
              <ul className="badge-list">
                {BADGES.map(({ key, kind, label }) => (
                  <BadgeRow key={key} label={label} preview={previewOf(query.data?.previews[kind])} markdown={markdownOf(label, monitorName, badges[key])} />
                ))}
              </ul>
            </>
          ) : (
            <p className="small">Off: the badges' address answers “not found”.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

function BadgeRow({ label, preview, markdown }: { label: string; preview: string | undefined; markdown: string }) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const copy = async (event: React.MouseEvent<HTMLButtonElement>) => {
    const field = event.currentTarget.parentElement?.querySelector('input');
    try {
      await navigator.clipboard.writeText(markdown);
      setCopied('yes');
    } catch {
      // No clipboard: select the text so the keyboard can copy it.
      field?.select();
      setCopied('failed');
    }
  };
  return (
    <li className="badge-row">
      <span className="badge-label">{label}</span>
      {preview ? <img src={preview} alt={`${label} badge`} height={20} /> : <span className="small muted">Loading the preview…</span>}
      <div className="badge-markdown">
        <label htmlFor={`${id}-md`} className="visually-hidden">
          Markdown of the {label.toLowerCase()} badge
        </label>
        <input id={`${id}-md`} type="text" readOnly value={markdown} className="secret" onFocus={(event) => event.target.select()} />
        <button type="button" className="button" onClick={copy} aria-label={`Copy the Markdown of the ${label.toLowerCase()} badge`}>
          Copy
        </button>
      </div>
      <p className="small muted" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copying was refused: the Markdown is selected, press Ctrl+C or ⌘C.' : ''}
      </p>
    </li>
  );
}
