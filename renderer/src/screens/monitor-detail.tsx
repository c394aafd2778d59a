import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { type ReactNode, useId, useState } from 'react';
import {
  type CheckResult as ProtoCheckResult,
  DNSRecordType,
  type GetMonitorResponse,
  MCPTransport,
  MonitorStatus,
  Periodicity,
  SummaryWindow,
} from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { ApiError, CheckResult, LatencySeries, MonitorState, MonitorType, RegionHealth } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { LatencyChart, PhaseBar } from '../charts.tsx';
import { formatMs } from '../sparkline.tsx';
import { ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { useLatency, useRegions, useResults } from '../data/monitor-views.ts';
import { useDeleteMonitor, useMonitor, useMonitorStatus, useMonitorSummary, useResponseLogs, useSetActive, useTriggerMonitor } from '../data/monitors.ts';
import { asApiError, type Loaded, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { BackLink, Link, navigate } from '../router.tsx';
import { StatusBadge, TYPE_LABELS } from '../status.tsx';
import { When } from '../time.tsx';
import { DnsFacts, dnsSeenOf } from './monitor-detail-dns.tsx';
import { McpServerFacts, McpTools, mcpFoundOf, mcpStatusWord } from './monitor-detail-mcp.tsx';
import { PingFacts, pingSeenOf } from './monitor-detail-ping.tsx';
import { HeartbeatFacts, HeartbeatPings, heartbeatSeenOf, spanText } from './monitor-detail-heartbeat.tsx';
import { MonitorBadges } from './monitor-badges.tsx';
import { WebSocketFacts, websocketSeenOf } from './monitor-detail-websocket.tsx';
import { CertificateFacts, certificateSeenOf } from './monitor-detail-certificate.tsx';
import { MonitorIncidents } from './monitor-incidents.tsx';
import './monitor-detail.css';

type Period = LatencySeries['window'];

const WINDOW_MS: Record<Period, number> = { '1d': 86_400_000, '7d': 7 * 86_400_000, '14d': 14 * 86_400_000 };

const PERIODS: { value: Period; label: string; summary: SummaryWindow }[] = [
  { value: '1d', label: '1 day', summary: SummaryWindow.SUMMARY_WINDOW_1D },
  { value: '7d', label: '7 days', summary: SummaryWindow.SUMMARY_WINDOW_7D },
  { value: '14d', label: '14 days', summary: SummaryWindow.SUMMARY_WINDOW_14D },
];

const EVERY: Record<Periodicity, string> = {
  [Periodicity.PERIODICITY_UNSPECIFIED]: 'on no schedule',
  [Periodicity.PERIODICITY_30S]: 'every 30 seconds',
  [Periodicity.PERIODICITY_1M]: 'every minute',
  [Periodicity.PERIODICITY_5M]: 'every 5 minutes',
  [Periodicity.PERIODICITY_10M]: 'every 10 minutes',
  [Periodicity.PERIODICITY_30M]: 'every 30 minutes',
  [Periodicity.PERIODICITY_1H]: 'every hour',
};

/** Checks and timings change without an event (a check that keeps its state), so the screen refreshes this often. */
const REFRESH_MS = 30_000;

/** What this screen shows of a monitor, whichever its type. */
interface MonitorFacts {
  id: string;
  type: MonitorType;
  name: string;
  description: string;
  target: string;
  active: boolean;
  periodicity: Periodicity;
  regions: string[];
  tags: string[];
  /** When it was created: its charts and uptime start there when that is within their window. */
  createdAt: string | null;
  /** A ping monitor's loss in percent above which an answered check is degraded. */
  degradedLoss?: number;
  /** A WebSocket monitor waits for an expected message. */
  expectsMessage?: boolean;
  /** A certificate monitor's days before expiry below which a check is degraded. */
  minDaysLeft?: number;
}

function factsOf(response: GetMonitorResponse): MonitorFacts {
  const { monitor } = response;
  if (monitor.case === undefined) throw new Error('the service answered a monitor of a type this window does not know');
  const m = monitor.value;
  const common = {
    id: m.id,
    name: m.name,
    description: m.description,
    active: m.active !== false,
    periodicity: m.periodicity,
    regions: m.regions,
    tags: m.tags,
    createdAt: iso(m.createdAt),
  };
  switch (monitor.case) {
    case 'tcpMonitor':
      return { ...common, type: 'tcp', target: monitor.value.uri };
    case 'grpcMonitor': {
      const { uri, service } = monitor.value;
      return { ...common, type: 'grpc', target: service ? `${uri} (${service})` : uri };
    }
    case 'httpMonitor':
      return { ...common, type: 'http', target: monitor.value.url };
    case 'mcpMonitor': {
      const { transport, server, args } = monitor.value;
      // A stdio server is the command with its arguments, as the command line would show it.
      return { ...common, type: 'mcp', target: transport === MCPTransport.MCP_TRANSPORT_STDIO ? [server, ...args].join(' ') : server };
    }
    case 'pingMonitor': {
      const { host, degradedLoss } = monitor.value;
      return { ...common, type: 'ping', target: host, degradedLoss };
    }
    case 'websocketMonitor': {
      const { url, subprotocol, expectText } = monitor.value;
      return { ...common, type: 'websocket', target: subprotocol ? `${url} (${subprotocol})` : url, expectsMessage: expectText !== '' };
    }
    case 'certificateMonitor': {
      const { uri, serverName, minDaysLeft } = monitor.value;
      return { ...common, type: 'certificate', target: serverName ? `${uri} (${serverName})` : uri, minDaysLeft };
    }
    case 'heartbeatMonitor': {
      // What it waits for: its schedule, in its time zone for a cron expression, and its grace time.
      const { schedule, timezone, grace } = monitor.value;
      const cron = /\s/.test(schedule) || schedule.startsWith('@');
      const graceText = spanText(grace ? Number(grace.seconds) * 1000 : 3_600_000);
      return {
        ...common,
        type: 'heartbeat',
        target: `${cron ? `${schedule} (${timezone || 'UTC'})` : `every ${schedule}`}, grace ${graceText}`,
      };
    }
    case 'dnsMonitor': {
      // The question as dig writes it, and where it is asked: `MX example.com @192.168.1.1`.
      const { host, recordType, resolver } = monitor.value;
      const word = DNSRecordType[recordType]?.replace('DNS_RECORD_TYPE_', '') ?? 'A';
      return { ...common, type: 'dns', target: `${word === 'UNSPECIFIED' ? 'A' : word} ${host}${resolver ? ` @${resolver}` : ''}` };
    }
  }
}

function stateOf(monitor: MonitorFacts, overall: MonitorStatus | undefined): MonitorState {
  if (!monitor.active) return 'paused';
  switch (overall) {
    case MonitorStatus.ACTIVE:
      return 'up';
    case MonitorStatus.DEGRADED:
      return 'degraded';
    case MonitorStatus.ERROR:
      return 'down';
    default:
      return 'pending';
  }
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/**
 * The wire lists a check once per region it stood for (the SPEC's results); a person reads the
 * check once, with its regions. Entries of one check share their runner and start.
 */
function byCheck<T extends { runner: string; startedAt?: Timestamp; region: string }>(results: T[]): { first: T; regions: string[] }[] {
  const checks = new Map<string, { first: T; regions: string[] }>();
  for (const result of results) {
    const key = `${result.runner} ${iso(result.startedAt)}`;
    const check = checks.get(key);
    if (check) check.regions.push(result.region);
    else checks.set(key, { first: result, regions: [result.region] });
  }
  return [...checks.values()];
}

/** Results of TriggerMonitor in the shape of the dashboard API's results (one per check), so one view shows both. */
function fromProto(results: ProtoCheckResult[]): CheckResult[] {
  return byCheck(results).map(({ first, regions }, index) => checkOf(first, regions, index));
}

function checkOf(result: ProtoCheckResult, regions: string[], index: number): CheckResult {
  const timing = result.timing;
  return {
    id: `now-${index}`,
    regions,
    runner: result.runner,
    startedAt: iso(result.startedAt) ?? new Date().toISOString(),
    result: result.result === 'down' || result.result === 'degraded' ? result.result : 'up',
    latencyMs: result.latencyMs,
    timing: {
      dns: timing?.dns ?? null,
      connect: timing?.connect ?? null,
      tls: timing?.tls ?? null,
      ttfb: timing?.ttfb ?? null,
      transfer: timing?.transfer ?? null,
      total: timing?.total ?? null,
    },
    attempts: result.attempts,
    message: result.message,
    grpcStatus: result.grpcStatus || null,
    statusCode: result.statusCode ?? null,
    mcp: mcpFoundOf(result.mcp),
    dns: dnsSeenOf(result.dns),
    ping: pingSeenOf(result.ping),
    websocket: websocketSeenOf(result.websocket),
    certificate: certificateSeenOf(result.certificate),
    heartbeat: heartbeatSeenOf(result.heartbeat),
  };
}

/** A server asking for a sign-in is degraded, and says so in those words: it is not an outage. */
const outcomeLabel = (result: CheckResult | undefined) => (result?.mcp?.status === 'SIGN_IN_NEEDED' ? mcpStatusWord('SIGN_IN_NEEDED') : undefined);

export function MonitorDetailScreen({ workspace, params }: ScreenProps) {
  const id = params.id ?? '';
  const ws = workspace.id;
  const [period, setPeriod] = useState<Period>('1d');
  const summaryWindow = PERIODS.find((w) => w.value === period)!.summary;

  // Kept current by the live feed (data/live-queries.ts) and asked again every REFRESH_MS.
  const monitor = loadedOf(useMonitor(ws, id, { select: factsOf, refreshMs: REFRESH_MS }));
  const status = loadedOf(useMonitorStatus(ws, id, REFRESH_MS));
  const summary = loadedOf(useMonitorSummary(ws, id, summaryWindow, REFRESH_MS));
  const latency = loadedOf(useLatency(ws, id, period, REFRESH_MS));
  const regions = loadedOf(useRegions(ws, id, REFRESH_MS));
  const results = loadedOf(useResults(ws, id, 20, REFRESH_MS));
  const isHttp = monitor.state === 'ready' && monitor.value.type === 'http';
  const isMcp = monitor.state === 'ready' && monitor.value.type === 'mcp';
  const isDns = monitor.state === 'ready' && monitor.value.type === 'dns';
  const isPing = monitor.state === 'ready' && monitor.value.type === 'ping';
  const isWebSocket = monitor.state === 'ready' && monitor.value.type === 'websocket';
  const isCertificate = monitor.state === 'ready' && monitor.value.type === 'certificate';
  const isHeartbeat = monitor.state === 'ready' && monitor.value.type === 'heartbeat';
  const logsQuery = useResponseLogs(ws, id, summaryWindow, isHttp, REFRESH_MS);
  const logs = loadedOf({ data: logsQuery.data?.results, error: logsQuery.error });

  const trigger = useTriggerMonitor(ws);
  const setActive = useSetActive(ws);
  const deleteMonitor = useDeleteMonitor(ws);
  const [checked, setChecked] = useState<{ results: CheckResult[]; at: string } | ApiError | 'running'>();
  const [toggling, setToggling] = useState(false);
  const [actionError, setActionError] = useState<string>();
  const remove = useConfirmedAction(
    (monitorId: string) => deleteMonitor.mutateAsync({ id: monitorId }),
    async () => navigate('/'),
  );

  if (monitor.state === 'loading') {
    return (
      <>
        <PageHeader title="Monitor" />
        <Loading what="the monitor" />
      </>
    );
  }
  if (monitor.state === 'error') {
    if (monitor.error.code === 'NOT_FOUND') {
      return (
        <>
          <PageHeader title="Monitor not found" />
          <section className="card placeholder">
            <p>
              There is no monitor with the id <code>{id}</code> in {workspace.name}. It may have been deleted, or it belongs to another workspace.
            </p>
            <Link to="/" className="button">
              Back to the overview
            </Link>
          </section>
        </>
      );
    }
    return (
      <>
        <PageHeader title="Monitor" />
        <ErrorNote>{monitor.error.message}</ErrorNote>
      </>
    );
  }

  const facts = monitor.value;
  const state = stateOf(facts, status.state === 'ready' ? status.value.overall : undefined);
  const latest = results.state === 'ready' ? results.value.results[0] : undefined;
  // Where it is checked from: this machine for the monitor's regions; the regions view names its
  // private locations too, after the regions.
  const locations = regions.state === 'ready' ? regions.value.regions.map((r) => r.region).filter((place) => !facts.regions.includes(place)) : [];
  const young = facts.createdAt !== null && Date.now() - new Date(facts.createdAt).getTime() < WINDOW_MS[period];

  const checkNow = async () => {
    setChecked('running');
    try {
      const answer = await trigger.mutateAsync({ id });
      setChecked({ results: fromProto(answer.results), at: new Date().toISOString() });
    } catch (error) {
      setChecked(asApiError(error));
    }
  };

  const toggle = async () => {
    setToggling(true);
    setActionError(undefined);
    try {
      await setActive.mutateAsync({ id: facts.id, type: facts.type, active: !facts.active });
    } catch (error) {
      setActionError(asApiError(error).message);
    } finally {
      setToggling(false);
    }
  };

  return (
    <>
      <BackLink fallback="/" />
      <PageHeader
        title={facts.name}
        actions={
          <div className="detail-actions">
            <button type="button" className="button" onClick={checkNow} disabled={checked === 'running'}>
              <Icon name="refresh" />
              Check now
            </button>
            <button type="button" className="button" onClick={toggle} disabled={toggling}>
              <Icon name={facts.active ? 'pause' : 'play'} />
              {facts.active ? 'Pause' : 'Resume'}
            </button>
            <Link to={`/monitors/${encodeURIComponent(facts.id)}/edit`} className="button">
              <Icon name="edit" />
              Edit
            </Link>
            <button type="button" className="button button-danger-quiet" onClick={() => remove.ask(facts.id)}>
              <Icon name="trash" />
              Delete
            </button>
          </div>
        }
      />
      <div className="detail-facts">
        <span className="detail-state" aria-live="polite">
          <span className="visually-hidden">Status: </span>
          <StatusBadge state={state} label={state === 'degraded' ? outcomeLabel(latest) : undefined} />
        </span>
        <span className="badge">{TYPE_LABELS[facts.type]}</span>
        <code className="detail-target">{facts.target}</code>
        <span className="muted small">
          {facts.type === 'heartbeat' ? 'State recorded' : 'Checked'} {EVERY[facts.periodicity]}
          {facts.regions.length ? ` by this machine for ${facts.regions.join(', ')}` : ''}
          {locations.length
            ? `${facts.regions.length ? ', and' : ''} from ${locations.join(', ')} (${locations.length === 1 ? 'private location' : 'private locations'})`
            : ''}
        </span>
        {facts.tags.map((tag) => (
          <span key={tag} className="badge">
            {tag}
          </span>
        ))}
      </div>
      {facts.description ? <p className="lede detail-description">{facts.description}</p> : null}
      {!facts.active ? (
        <p className="note note-warning">
          <Icon name="pause" />
          Paused: no scheduled checks run until you resume it. Check now still runs one.
        </p>
      ) : null}
      {actionError ? <ErrorNote>{actionError}</ErrorNote> : null}

      {checked ? <CheckNowPanel checked={checked} /> : null}

      {isMcp ? (
        <>
          <section className="card section" aria-labelledby="mcp-server-heading">
            <h2 id="mcp-server-heading">MCP server</h2>
            <Section loaded={results} what="the latest check">
              {() => <McpServerFacts latest={latest} monitorId={facts.id} />}
            </Section>
          </section>
          <section className="card section" aria-labelledby="mcp-tools-heading">
            <h2 id="mcp-tools-heading">Tools</h2>
            <McpTools workspaceId={ws} monitorId={facts.id} refreshMs={REFRESH_MS} />
          </section>
        </>
      ) : null}

      {isWebSocket ? (
        <section className="card section" aria-labelledby="websocket-heading">
          <h2 id="websocket-heading">WebSocket</h2>
          <Section loaded={results} what="the latest check">
            {() => <WebSocketFacts latest={latest} expects={facts.expectsMessage === true} />}
          </Section>
        </section>
      ) : null}

      {isCertificate || latest?.certificate ? (
        <section className="card section" aria-labelledby="certificate-heading">
          <h2 id="certificate-heading">Certificate</h2>
          <Section loaded={results} what="the latest check">
            {() =>
              latest?.certificate ? (
                <CertificateFacts latest={latest} minDaysLeft={facts.minDaysLeft} />
              ) : (
                <p className="empty">{latest ? `The latest check saw no certificate: ${latest.message}` : 'No check yet. Press Check now to run one.'}</p>
              )
            }
          </Section>
        </section>
      ) : null}

      {isPing ? (
        <section className="card section" aria-labelledby="ping-heading">
          <h2 id="ping-heading">Packets</h2>
          <Section loaded={results} what="the latest check">
            {() => <PingFacts latest={latest} degradedLoss={facts.degradedLoss} />}
          </Section>
        </section>
      ) : null}

      {isHeartbeat ? (
        <>
          <section className="card section" aria-labelledby="heartbeat-heading">
            <h2 id="heartbeat-heading">Heartbeat</h2>
            <Section loaded={results} what="the latest check">
              {() => <HeartbeatFacts latest={latest} />}
            </Section>
          </section>
          <section className="section" aria-labelledby="heartbeat-pings-heading">
            <h2 id="heartbeat-pings-heading">Latest pings</h2>
            <HeartbeatPings workspaceId={ws} monitorId={facts.id} monitorName={facts.name} refreshMs={REFRESH_MS} />
          </section>
        </>
      ) : null}

      {isDns ? (
        <section className="card section" aria-labelledby="dns-heading">
          <h2 id="dns-heading">DNS answer</h2>
          <Section loaded={results} what="the latest check">
            {() => <DnsFacts latest={latest} />}
          </Section>
        </section>
      ) : null}

      <section className="card section" aria-labelledby="latency-heading">
        <div className="section-head">
          <h2 id="latency-heading">Latency</h2>
          <PeriodPicker value={period} onChange={setPeriod} />
        </div>
        <Section loaded={latency} what="latency">
          {(series) => <LatencyChart series={series} since={facts.createdAt} />}
        </Section>
      </section>

      <section className="card section" aria-labelledby="uptime-heading">
        <h2 id="uptime-heading">
          {young ? 'Uptime since created' : `Uptime, ${PERIODS.find((w) => w.value === period)!.label}`}
          {young && facts.createdAt ? (
            <span className="muted small uptime-created">
              {' '}
              <time dateTime={facts.createdAt}>
                {new Date(facts.createdAt).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}
              </time>
            </span>
          ) : null}
        </h2>
        <Section loaded={summary} what="uptime">
          {(value) => (
            <Uptime
              successes={Number(value.successCount)}
              degraded={Number(value.degradedCount)}
              errors={Number(value.errorCount)}
              gaps={young && facts.createdAt ? value.gaps.filter((gap) => (iso(gap.endedAt) ?? '') > facts.createdAt!) : value.gaps}
              span={young ? 'since it was created' : 'in this window'}
            />
          )}
        </Section>
      </section>

      <MonitorBadges workspaceId={ws} monitorId={facts.id} monitorName={facts.name} />

      <MonitorIncidents workspaceId={ws} monitorId={facts.id} monitorName={facts.name} refreshMs={REFRESH_MS} />

      <section className="section" aria-labelledby="regions-heading">
        <h2 id="regions-heading">Regions</h2>
        <Section loaded={regions} what="regions">
          {(value) => <RegionsTable regions={value.regions} />}
        </Section>
      </section>

      <section className="section" aria-labelledby="results-heading">
        <h2 id="results-heading">Recent checks</h2>
        <Section loaded={results} what="recent checks">
          {(value) => <ResultsTable results={value.results} />}
        </Section>
      </section>

      {isHttp ? (
        <section className="section" aria-labelledby="logs-heading">
          <h2 id="logs-heading">Response logs</h2>
          <Section loaded={logs} what="response logs">
            {(value) => <ResponseLogs results={value} />}
          </Section>
        </section>
      ) : null}

      <ConfirmDialog title={`Delete ${facts.name}?`} confirmLabel="Delete monitor" {...remove.dialog}>
        <p>Its checks stop and its results are deleted. Status pages that show it lose that component. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

/** A part of the screen that loads on its own: its spinner, its error, or its content. */
function Section<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children(value: T): ReactNode }) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'error') return <ErrorNote>{loaded.error.message}</ErrorNote>;
  return <>{children(loaded.value)}</>;
}

function PeriodPicker({ value, onChange }: { value: Period; onChange(period: Period): void }) {
  const name = useId();
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">Window</legend>
      {PERIODS.map((w) => (
        <label key={w.value} className="segment">
          <input type="radio" name={name} value={w.value} checked={value === w.value} onChange={() => onChange(w.value)} />
          <span>{w.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

function CheckNowPanel({ checked }: { checked: { results: CheckResult[]; at: string } | ApiError | 'running' }) {
  return (
    <section className="card section check-now" aria-labelledby="check-now-heading" aria-live="polite" aria-busy={checked === 'running'}>
      <h2 id="check-now-heading">Check result</h2>
      {checked === 'running' ? (
        <Loading what="the check" />
      ) : 'results' in checked ? (
        checked.results.length === 0 ? (
          <p className="muted">The check ran in no region.</p>
        ) : (
          <ul className="check-now-list">
            {checked.results.map((result) => (
              <li key={result.id}>
                <div className="check-now-line">
                  <StatusBadge state={result.result} label={outcomeLabel(result)} />
                  {result.result === 'down' ? null : <strong>{formatMs(result.latencyMs)}</strong>}
                  <CheckedFrom result={result} />
                  <span className="muted">{describe(result)}</span>
                </div>
                <PhaseBar timing={result.timing} />
              </li>
            ))}
          </ul>
        )
      ) : (
        <ErrorNote>{checked.message}</ErrorNote>
      )}
    </section>
  );
}

/** What a check found, in words: its message, the status code or health answer, retries. */
function describe(result: CheckResult): string {
  const parts = [result.message];
  if (result.statusCode !== null) parts.push(`HTTP ${result.statusCode}`);
  if (result.grpcStatus) parts.push(result.grpcStatus);
  if (result.attempts > 1) parts.push(`${result.attempts} attempts`);
  return parts.filter(Boolean).join(' · ');
}

function Uptime({
  successes,
  degraded,
  errors,
  gaps,
  span,
}: {
  successes: number;
  degraded: number;
  errors: number;
  gaps: { startedAt?: Timestamp; endedAt?: Timestamp }[];
  /** "in this window", "since it was created". */
  span: string;
}) {
  const total = successes + degraded + errors;
  const shown = gaps.slice(-20).reverse();
  // Without a check and without a gap there is nothing to say about spans: "checks ran throughout" would contradict "no checks".
  if (total === 0 && gaps.length === 0) {
    return (
      <div className="uptime">
        <p className="muted">No checks ran {span} yet.</p>
      </div>
    );
  }
  return (
    <div className="uptime">
      {total === 0 ? (
        <p className="muted">No checks ran {span} yet.</p>
      ) : (
        <p className="uptime-figure">
          <strong>{(((successes + degraded) / total) * 100).toFixed(total >= 10_000 ? 3 : 2)}%</strong> up
          <span className="muted small">
            {' '}
            of {total === 1 ? '1 check' : `${total.toLocaleString()} checks`}: {successes.toLocaleString()} up, {degraded.toLocaleString()} degraded,{' '}
            {errors.toLocaleString()} down
          </span>
        </p>
      )}
      <h3>Spans without checks</h3>
      {gaps.length === 0 ? (
        <p className="muted small">None: checks ran throughout{span === 'in this window' ? ' the window' : ''}.</p>
      ) : (
        <>
          <p className="muted small">The machine slept or Statusdesk was not running; these spans count neither as up nor as down.</p>
          <ul className="gap-list">
            {shown.map((gap, index) => (
              <li key={index}>
                <GapSpan from={iso(gap.startedAt)} to={iso(gap.endedAt)} />
              </li>
            ))}
          </ul>
          {gaps.length > shown.length ? <p className="muted small">And {gaps.length - shown.length} earlier.</p> : null}
        </>
      )}
    </div>
  );
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.round(hours / 24)} days`;
}

function GapSpan({ from, to }: { from: string | null; to: string | null }) {
  if (!from || !to) return null;
  const format = (value: string) => new Date(value).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (
    <>
      <time dateTime={from}>{format(from)}</time> to <time dateTime={to}>{format(to)}</time>{' '}
      <span className="muted">({duration(new Date(to).getTime() - new Date(from).getTime())})</span>
    </>
  );
}

const REGION_STATES: Record<NonNullable<RegionHealth['status']>, { state: MonitorState; label: string }> = {
  active: { state: 'up', label: 'Up' },
  degraded: { state: 'degraded', label: 'Degraded' },
  error: { state: 'down', label: 'Down' },
};

function RegionsTable({ regions }: { regions: RegionHealth[] }) {
  if (regions.length === 0) return <p className="empty">This monitor names no region or private location.</p>;
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Region</th>
            <th scope="col">Status</th>
            <th scope="col">Runner</th>
            <th scope="col">Last check</th>
          </tr>
        </thead>
        <tbody>
          {regions.map((region) => (
            <tr key={region.region}>
              <th scope="row">{region.region}</th>
              <td>
                {region.status ? (
                  <StatusBadge state={REGION_STATES[region.status].state} label={REGION_STATES[region.status].label} />
                ) : (
                  <StatusBadge state="pending" label="No check yet" />
                )}
              </td>
              <td>{region.runner ?? <span className="muted">None yet</span>}</td>
              <td>
                <When iso={region.lastCheckedAt} never="Never" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The embedded runner's name: checks made by this machine's service. */
const LOCAL_RUNNER = 'local';

/**
 * Where a check ran and what it stands for: this machine for the monitor's regions, or a private
 * location (whose one region is its name).
 */
function CheckedFrom({ result }: { result: Pick<CheckResult, 'runner' | 'regions'> }) {
  if (result.runner === LOCAL_RUNNER) {
    return (
      <span className="checked-from">
        This machine
        {result.regions.length ? <span className="muted small"> for {result.regions.join(', ')}</span> : null}
      </span>
    );
  }
  const others = result.regions.filter((region) => region !== result.runner);
  return (
    <span className="checked-from">
      Private location {result.runner}
      {others.length ? <span className="muted small"> for {others.join(', ')}</span> : null}
    </span>
  );
}

function ResultsTable({ results }: { results: CheckResult[] }) {
  if (results.length === 0) return <p className="empty">No checks yet. Press Check now to run one.</p>;
  return (
    <div className="table-wrap">
      <table className="table results-table table-cards">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Checked from</th>
            <th scope="col">Result</th>
            <th scope="col">Latency</th>
            <th scope="col">Phases</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {results.map((result) => (
            <tr key={result.id}>
              <th scope="row" className="results-when">
                <When iso={result.startedAt} past />
              </th>
              <td data-label="Checked from">
                <CheckedFrom result={result} />
              </td>
              <td data-label="Result">
                <StatusBadge state={result.result} label={outcomeLabel(result)} />
              </td>
              <td data-label="Latency" className="numeric">
                {/* A failed check's duration is how long it waited: not a latency. */}
                {result.result === 'down' ? <span className="muted">None: failed</span> : formatMs(result.latencyMs)}
              </td>
              <td data-label="Phases" className="cell-wrap">
                <PhaseBar timing={result.timing} />
              </td>
              <td data-label="Details" className="cell-wrap small">
                {describe(result)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ResponseLogs({ results: entries }: { results: ProtoCheckResult[] }) {
  if (entries.length === 0) return <p className="empty">No responses in this window yet.</p>;
  const results = byCheck(entries).map(({ first, regions }) => ({ ...first, regions }));
  return (
    <div className="table-wrap">
      <table className="table results-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Checked from</th>
            <th scope="col">Status code</th>
            <th scope="col">URL</th>
            <th scope="col">Assertions</th>
          </tr>
        </thead>
        <tbody>
          {results.map((result, index) => (
            <tr key={`${iso(result.startedAt)} ${result.runner} ${index}`}>
              <td>
                <When iso={iso(result.startedAt)} past />
              </td>
              <td>
                <CheckedFrom result={result} />
              </td>
              <td className="numeric">{result.statusCode ?? <span className="muted">No answer</span>}</td>
              <td className="cell-wrap">
                <code className="log-url">{result.url || '—'}</code>
              </td>
              <td className="cell-wrap">
                {result.assertionResults.length === 0 ? (
                  <span className="muted small">{result.message || 'Any 2xx passes'}</span>
                ) : (
                  <ul className="assertions">
                    {result.assertionResults.map((assertion, i) => (
                      <li key={i} className={assertion.passed ? 'assertion-passed' : 'assertion-failed'}>
                        <Icon name={assertion.passed ? 'check' : 'warning'} />
                        <strong>{assertion.passed ? 'Passed' : 'Failed'}</strong> {assertion.assertion}
                        {assertion.actual ? <span className="muted"> (got {assertion.actual})</span> : null}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
