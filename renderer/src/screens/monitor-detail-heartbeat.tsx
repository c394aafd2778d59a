import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useState } from 'react';
import type { HeartbeatCheck } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { ConfirmDialog, ErrorNote, Loading, SecretOnce } from '../components.tsx';
import { useHeartbeatPings, useRotateHeartbeatToken } from '../data/monitors.ts';
import { loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { formatMs } from '../sparkline.tsx';
import { When } from '../time.tsx';
import './monitor-detail-heartbeat.css';

// The part of a monitor's screen that only a heartbeat monitor has: where its latest ping left
// it (the run it ended, when the next is expected, when it goes down), its latest pings with what
// the jobs posted, and a new ping URL. The URL itself is never read back: the service shows it
// once, when the monitor is created (PingUrlOnce) and when it is replaced.

/** What a heartbeat monitor's state was at a check, as the dashboard lists checks. */
export type HeartbeatSeen = NonNullable<CheckResult['heartbeat']>;

const iso = (t: Parameters<typeof timestampDate>[0] | undefined) => (t ? timestampDate(t).toISOString() : null);

/** A span to its two largest units, `1 h 30 min`, `2 d`; under a minute as a latency is (`850 ms`, `12 s`). */
export function spanText(ms: number): string {
  if (ms < 60_000) return formatMs(ms);
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1_000],
  ];
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000) * 1_000;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
    else if (parts.length > 0) break;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** The heartbeat part of a TriggerMonitor result in the shape of the dashboard's results. */
export function heartbeatSeenOf(check: HeartbeatCheck | undefined): HeartbeatSeen | null {
  if (!check) return null;
  return {
    status: check.status,
    pingKind: check.pingKind || null,
    exitStatus: check.exitStatus ?? null,
    runTimeMs: check.runTimeMs ?? null,
    lastPingAt: iso(check.lastPingAt),
    expectedBy: iso(check.expectedBy),
    downAt: iso(check.downAt),
  };
}

/** Each state of a heartbeat monitor in words (docs/reference/monitors.md, "Heartbeat"). */
const STATUS_WORDS: Record<string, string> = {
  OK: 'Pinged on time',
  RUNNING: 'Running',
  FAILED: 'The job reported a failure',
  MISSED: 'Missed its expected ping',
  NEVER_PINGED: 'Never pinged',
  DID_NOT_FINISH: 'Started and did not finish',
};

/** The curl lines a job runs, with the URL in them; `$?` is the shell's exit status of the job. */
export function curlLines(url: string): string[] {
  const curl = 'curl -fsS -m 10 --retry 3';
  return [`${curl} ${url}`, `${curl} ${url}/start`, `${curl} ${url}/fail`, `${curl} --data-binary @job.log ${url}/$?`];
}

/** A heartbeat monitor's ping URL, shown this once, with the lines a job runs to call it. */
export function PingUrlOnce({ heading, url, rotated, onDone }: { heading: string; url: string; rotated?: boolean; onDone(): void }) {
  const [success, start, fail, status] = curlLines(url);
  return (
    <>
      <SecretOnce heading={heading} label="Ping URL" secret={url} onDone={onDone}>
        Copy it now: it will not be shown again{rotated ? ', and the old URL no longer works: give this one to the job' : ''}. Anyone who holds it can report
        for the job, so keep it where the job's secrets are.
      </SecretOnce>
      <section className="card section heartbeat-calls" aria-labelledby="heartbeat-calls-heading">
        <h2 id="heartbeat-calls-heading">How the job calls it</h2>
        <dl>
          <div>
            <dt>When it succeeds</dt>
            <dd>
              <code>{success}</code>
            </dd>
          </div>
          <div>
            <dt>When it starts, to measure its run</dt>
            <dd>
              <code>{start}</code>
            </dd>
          </div>
          <div>
            <dt>When it fails</dt>
            <dd>
              <code>{fail}</code>
            </dd>
          </div>
          <div>
            <dt>With its exit status and the end of its log (up to 10 KiB)</dt>
            <dd>
              <code>{status}</code>
            </dd>
          </div>
        </dl>
        <p className="small muted">
          In a crontab: <code>30 2 * * * /usr/local/bin/backup.sh &amp;&amp; {success}</code>. The guide Heartbeats for cron jobs in the documentation has lines
          for systemd timers, GitHub Actions and Windows, and how to reach this service from another machine.
        </p>
      </section>
    </>
  );
}

/** Where the latest check found the monitor: its state, the latest ping and run, and the next deadline. */
export function HeartbeatFacts({ latest }: { latest: CheckResult | undefined }) {
  const seen = latest?.heartbeat;
  if (!latest || !seen) return <p className="empty">Not pinged yet: the monitor waits for its first ping, and is down if none comes by its first deadline.</p>;
  return (
    <dl className="heartbeat-facts">
      <div>
        <dt>State</dt>
        <dd>
          {STATUS_WORDS[seen.status] ?? seen.status} <span className="muted small">{latest.message}</span>
        </dd>
      </div>
      <div>
        <dt>Latest ping</dt>
        <dd>
          {seen.lastPingAt ? (
            <>
              {seen.pingKind}
              {seen.exitStatus !== null ? ` (exit status ${seen.exitStatus})` : ''} <When iso={seen.lastPingAt} />
            </>
          ) : (
            <span className="muted">None yet</span>
          )}
        </dd>
      </div>
      <div>
        <dt>Run time</dt>
        <dd>{seen.runTimeMs === null ? <span className="muted">Not measured: ping /start when the job starts</span> : spanText(seen.runTimeMs)}</dd>
      </div>
      <div>
        <dt>Next ping expected</dt>
        <dd>{seen.expectedBy ? <When iso={seen.expectedBy} /> : <span className="muted">After the next success</span>}</dd>
      </div>
      <div>
        <dt>Down unless pinged</dt>
        <dd>{seen.downAt ? <When iso={seen.downAt} /> : <span className="muted">Down now, until the next success</span>}</dd>
      </div>
    </dl>
  );
}

/** The first line of a body, as a fold's summary. */
const firstLine = (body: string) => {
  const line = body.split('\n', 1)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
};

/** The monitor's latest pings, newest first, each body folded; and the button that replaces its ping URL. */
export function HeartbeatPings({
  workspaceId,
  monitorId,
  monitorName,
  refreshMs,
}: {
  workspaceId: string;
  monitorId: string;
  monitorName: string;
  refreshMs: number;
}) {
  const query = useHeartbeatPings(workspaceId, monitorId, true, refreshMs);
  const pings = loadedOf({ data: query.data?.pings, error: query.error });
  const rotate = useRotateHeartbeatToken(workspaceId);
  const [issued, setIssued] = useState<string>();
  const replace = useConfirmedAction(async (id: string) => setIssued((await rotate.mutateAsync({ id })).pingUrl));
  return (
    <>
      {issued ? <PingUrlOnce heading={`New ping URL of “${monitorName}”`} url={issued} rotated onDone={() => setIssued(undefined)} /> : null}
      <div className="section-head">
        <p className="muted small">The latest pings the jobs sent, with what each posted. The service keeps the last 100.</p>
        <button type="button" className="button button-small" onClick={() => replace.ask(monitorId)}>
          <Icon name="refresh" />
          New ping URL
        </button>
      </div>
      {pings.state === 'loading' ? <Loading what="the pings" /> : null}
      {pings.state === 'error' ? <ErrorNote>{pings.error.message}</ErrorNote> : null}
      {pings.state === 'ready' && pings.value.length === 0 ? <p className="empty">No ping yet.</p> : null}
      {pings.state === 'ready' && pings.value.length > 0 ? (
        <div className="table-wrap">
          <table className="table heartbeat-pings">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Kind</th>
                <th scope="col">Exit status</th>
                <th scope="col">Run time</th>
                <th scope="col">From</th>
                <th scope="col">Body</th>
              </tr>
            </thead>
            <tbody>
              {pings.value.map((p, i) => (
                // Pings have no id of their own: their place and time name them.
                <tr key={`${iso(p.receivedAt)}-${i}`}>
                  <td>
                    <When iso={iso(p.receivedAt) ?? ''} />
                  </td>
                  <td>
                    <span className={`heartbeat-ping-kind heartbeat-ping-kind-${p.kind}`}>{p.kind}</span>
                  </td>
                  <td>{p.exitStatus ?? '-'}</td>
                  <td>{p.runTimeMs === undefined ? '-' : spanText(p.runTimeMs)}</td>
                  <td className="muted small">
                    {p.method} from {p.address}
                    {p.userAgent ? ` (${p.userAgent})` : ''}
                  </td>
                  <td>
                    {p.body ? (
                      <details className="heartbeat-body">
                        <summary>{firstLine(p.body) || '(blank line)'}</summary>
                        <pre>{p.body}</pre>
                      </details>
                    ) : (
                      <span className="muted">-</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ConfirmDialog title={`Give “${monitorName}” a new ping URL?`} confirmLabel="Make a new URL" {...replace.dialog}>
        <p>The current URL stops working at once: jobs that call it are answered 404 until they call the new one, which is shown once.</p>
      </ConfirmDialog>
    </>
  );
}
