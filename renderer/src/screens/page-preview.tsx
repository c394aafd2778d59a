import type { Maintenance } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorStatus } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { StatusReport } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import type { MonitorState } from '../api.ts';
import { ErrorNote, Loading } from '../components.tsx';
import { useResource } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { StatusBadge } from '../status.tsx';
import { When } from '../time.tsx';
import { componentNames, isoOf, type PageSectionProps } from './page-form-parts.tsx';
import { REPORT_STATUS_LABELS } from './page-reports.tsx';

// What a visitor of the public page sees now, told in the dashboard: the dashboard's
// Content-Security-Policy allows no frames, so the page itself opens in its own tab. The states
// follow the public page's rules (docs/guides/status-pages.md, "How a component's state is
// decided"): a monitor's worst region, unknown when paused or unchecked, at least degraded when
// an open report names it, under maintenance while an active window covers it.

type ComponentState = 'operational' | 'degraded' | 'down' | 'maintenance' | 'unknown';

const RANK: Record<ComponentState, number> = { unknown: 0, operational: 1, maintenance: 2, degraded: 3, down: 4 };
const worst = (states: ComponentState[]) => states.reduce<ComponentState>((a, b) => (RANK[b] > RANK[a] ? b : a), 'unknown');

/** The public page's words for each state, with the monitor badge of the same meaning. */
const STATE_SHOWN: Record<ComponentState, { label: string; badge: MonitorState }> = {
  operational: { label: 'Operational', badge: 'up' },
  degraded: { label: 'Degraded performance', badge: 'degraded' },
  down: { label: 'Outage', badge: 'down' },
  maintenance: { label: 'Under maintenance', badge: 'paused' },
  unknown: { label: 'Status unknown', badge: 'pending' },
};

const FROM_MONITOR: Record<MonitorStatus, ComponentState> = {
  [MonitorStatus.UNSPECIFIED]: 'unknown',
  [MonitorStatus.ACTIVE]: 'operational',
  [MonitorStatus.DEGRADED]: 'degraded',
  [MonitorStatus.ERROR]: 'down',
};

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

interface PreviewData {
  reports: StatusReport[];
  maintenances: Maintenance[];
  /** Health by monitor id, for the monitors the components follow. */
  health: Map<string, ComponentState>;
}

function banner(state: ComponentState, states: ComponentState[]): string {
  switch (state) {
    case 'operational':
      return 'All systems operational';
    case 'degraded':
      return 'Degraded performance';
    case 'down':
      return states.length > 0 && states.every((s) => s === 'down') ? 'Major outage' : 'Partial outage';
    case 'maintenance':
      return 'Under maintenance';
    case 'unknown':
      return 'Status unknown';
  }
}

export function PagePreviewSection({ rpc, page, components, monitors }: PageSectionProps) {
  const linked = [...new Set(components.flatMap((c) => (c.monitorId === undefined ? [] : [c.monitorId])))];
  const [data, reload] = useResource(async (): Promise<PreviewData> => {
    const active = new Set(monitors.filter((m) => m.active).map((m) => m.id));
    const [reports, maintenances, statuses] = await Promise.all([
      rpc.reports.listStatusReports({ pageId: page.id, filter: 'active', perPage: 200 }).then((r) => r.statusReports),
      rpc.maintenances.listMaintenances({ pageId: page.id, perPage: 200 }).then((r) => r.maintenances.filter((m) => m.status !== 'completed')),
      Promise.all(
        linked.map(async (id): Promise<[string, ComponentState]> => {
          if (!active.has(id)) return [id, 'unknown'];
          const status = await rpc.monitors.getMonitorStatus({ id });
          return [id, FROM_MONITOR[status.overall]];
        }),
      ),
    ]);
    return { reports, maintenances, health: new Map(statuses) };
  }, `${page.id} ${components.map((c) => `${c.id}:${c.monitorId ?? ''}`).join(',')}`);

  return (
    <section aria-labelledby="preview-heading" className="section">
      <div className="section-head">
        <h2 id="preview-heading">What visitors see now</h2>
        <div className="row-actions">
          <button type="button" className="button button-small" onClick={() => void reload()}>
            <Icon name="refresh" />
            Refresh
          </button>
          <a className="button button-small" href={page.url} target="_blank" rel="noopener noreferrer">
            <Icon name="external" />
            Open the public page
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        </div>
      </div>
      <p className="muted section-lede">
        A summary of <code>{page.url}</code>: its banner, each component's state, open incidents and maintenance. The public page adds 90 days of uptime per
        component and the incidents of the last 14 days.
      </p>
      {data.state === 'loading' ? <Loading what="the preview" /> : null}
      {data.state === 'error' ? <ErrorNote>{data.error.message}</ErrorNote> : null}
      {data.state === 'ready' ? <Preview components={components} data={data.value} title={page.title} description={page.description} /> : null}
    </section>
  );
}

function Preview({ components, data, title, description }: { components: PageComponent[]; data: PreviewData; title: string; description: string }) {
  const activeWindows = data.maintenances.filter((m) => m.status === 'active');
  const upcoming = data.maintenances.filter((m) => m.status === 'scheduled').sort((a, b) => a.from.localeCompare(b.from));
  const reported = new Set(data.reports.flatMap((r) => r.pageComponentIds));
  const underMaintenance = (id: string) => activeWindows.some((m) => m.pageComponentIds.length === 0 || m.pageComponentIds.includes(id));

  const states = components.map((c): ComponentState => {
    let state: ComponentState = c.monitorId === undefined ? 'operational' : (data.health.get(c.monitorId) ?? 'unknown');
    if (reported.has(c.id) && RANK[state] < RANK.degraded) state = 'degraded';
    if (underMaintenance(c.id)) state = 'maintenance';
    return state;
  });
  const known = states.filter((s) => s !== 'unknown');
  let overall: ComponentState = known.length === 0 ? (components.length === 0 ? 'operational' : 'unknown') : worst(known);
  if (data.reports.length > 0 && RANK[overall] < RANK.degraded) overall = 'degraded';

  // Grouped components are shown together, each group where its first component is.
  const groups: { name: string | undefined; items: { component: PageComponent; state: ComponentState }[] }[] = [];
  components.forEach((component, i) => {
    const item = { component, state: states[i]! };
    const group = component.group === undefined ? undefined : groups.find((g) => g.name === component.group);
    if (group) group.items.push(item);
    else groups.push({ name: component.group, items: [item] });
  });

  return (
    <div className="preview card">
      <div className="preview-title">
        <strong>{title}</strong>
        {description ? <span className="muted">{description}</span> : null}
      </div>
      <p className={`preview-banner preview-${overall}`}>
        <StatusBadge state={STATE_SHOWN[overall].badge} label={banner(overall, states)} />
      </p>

      {data.reports.length > 0 ? (
        <section aria-labelledby="preview-incidents" className="preview-part">
          <h3 id="preview-incidents">Current incidents</h3>
          <ul className="preview-list">
            {data.reports.map((report) => {
              const latest = report.updates[0];
              return (
                <li key={report.id}>
                  <strong>{report.title}</strong> <span className="badge">{REPORT_STATUS_LABELS[report.status]}</span>
                  <div className="small muted">Affects: {componentNames(components, report.pageComponentIds)}</div>
                  {latest ? (
                    <p className="small">
                      {latest.message}{' '}
                      <span className="muted">
                        · <When iso={isoOf(latest.createdAt)} />
                      </span>
                    </p>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}

      {activeWindows.length + upcoming.length > 0 ? (
        <section aria-labelledby="preview-maintenance" className="preview-part">
          <h3 id="preview-maintenance">Maintenance</h3>
          <ul className="preview-list">
            {[...activeWindows, ...upcoming].map((m) => (
              <li key={m.id}>
                <strong>{m.title}</strong> <span className="badge">{m.status === 'active' ? 'In progress' : 'Scheduled'}</span>
                <div className="small muted">
                  {when(m.from)} – {when(m.to)} · {componentNames(components, m.pageComponentIds)}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="preview-components" className="preview-part">
        <h3 id="preview-components">Components</h3>
        {components.length === 0 ? <p className="muted">No components: visitors see only the banner.</p> : null}
        {groups.map((group) => (
          <div key={group.name ?? `single-${group.items[0]!.component.id}`} className="preview-group">
            {group.name !== undefined ? <h4>{group.name}</h4> : null}
            <ul className="preview-components">
              {group.items.map(({ component, state }) => (
                <li key={component.id}>
                  <span>{component.name}</span>
                  <StatusBadge state={STATE_SHOWN[state].badge} label={STATE_SHOWN[state].label} />
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
    </div>
  );
}
