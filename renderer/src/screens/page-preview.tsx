import type { MonitorState, PagePreview, PreviewMaintenance, PublicState } from '../api.ts';
import { ErrorNote, Loading } from '../components.tsx';
import { usePagePreview } from '../data/pages.ts';
import { loadedOf } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { StatusBadge } from '../status.tsx';
import { When } from '../time.tsx';
import type { PageSectionProps } from './page-form-parts.tsx';
import { BrandBand, storedBranding } from './page-settings.tsx';

// What a visitor of the public page sees now: the page's own public summary, made by the service
// with the public page's rules (the same summary.json it serves), told in the dashboard's words.
// The public page itself opens in its own tab: the dashboard's pages allow no frames.

/** The public page's words for each state, with the monitor badge of the same meaning. */
const STATE_SHOWN: Record<PublicState, { label: string; badge: MonitorState }> = {
  operational: { label: 'Operational', badge: 'up' },
  degraded: { label: 'Degraded performance', badge: 'degraded' },
  down: { label: 'Outage', badge: 'down' },
  maintenance: { label: 'Under maintenance', badge: 'paused' },
  unknown: { label: 'Status unknown', badge: 'pending' },
};

/** The public words of a report's status. */
const REPORT_STATUS: Record<PagePreview['activeReports'][number]['status'], string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const affects = (names: string[]) => (names.length === 0 ? 'the whole page' : names.join(', '));
const percent = (uptime: number) => `${(uptime * 100).toFixed(uptime >= 0.9995 ? 0 : 2)}% uptime`;

export function PagePreviewSection({ workspaceId, page, components }: PageSectionProps) {
  const preview = usePagePreview(workspaceId, page.id, components.map((c) => `${c.id}:${c.monitorId ?? ''}:${c.group ?? ''}`).join(','));
  const data = loadedOf(preview);
  const reload = preview.refetch;

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
        The summary of <code>{page.url}</code> as its visitors get it: the banner, each component's state and uptime, open incidents and maintenance. The public
        page adds each component's 90 days and the incidents of the last 14 days.
      </p>
      {data.state === 'loading' ? <Loading what="the preview" /> : null}
      {data.state === 'error' ? <ErrorNote>{data.error.message}</ErrorNote> : null}
      {data.state === 'ready' ? <BrandBand {...storedBranding(page)} /> : null}
      {data.state === 'ready' ? <Preview preview={data.value} description={page.description} /> : null}
    </section>
  );
}

function Preview({ preview, description }: { preview: PagePreview; description: string }) {
  const windows: (PreviewMaintenance & { active: boolean })[] = [
    ...preview.maintenances.active.map((m) => ({ ...m, active: true })),
    ...preview.maintenances.upcoming.map((m) => ({ ...m, active: false })),
  ];
  // Runs of adjacent components with the same group, in the page's order (the service keeps a
  // group's members together), as the public page draws them: a group is one box with its heading
  // inside, and an ungrouped component between two groups stands on its own.
  const groups: { name: string | null; items: PagePreview['components'] }[] = [];
  for (const component of preview.components) {
    const last = groups.at(-1);
    if (last && last.name === component.group) last.items.push(component);
    else groups.push({ name: component.group, items: [component] });
  }

  return (
    <div className="preview card">
      <div className="preview-title">
        <strong>{preview.page.title}</strong>
        {description ? <span className="muted">{description}</span> : null}
      </div>
      <p className={`preview-banner preview-${preview.status.state}`}>
        <StatusBadge state={STATE_SHOWN[preview.status.state].badge} label={preview.status.description} />
      </p>

      {preview.activeReports.length > 0 ? (
        <section aria-labelledby="preview-incidents" className="preview-part">
          <h3 id="preview-incidents">Current incidents</h3>
          <ul className="preview-list">
            {preview.activeReports.map((report) => (
              <li key={report.id}>
                <strong>{report.title}</strong> <span className="badge">{REPORT_STATUS[report.status]}</span>
                <div className="small muted">Affects: {affects(report.components)}</div>
                {report.latestUpdate ? (
                  <p className="small">
                    {report.latestUpdate.message}{' '}
                    <span className="muted">
                      · <When iso={report.latestUpdate.at} />
                    </span>
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {windows.length > 0 ? (
        <section aria-labelledby="preview-maintenance" className="preview-part">
          <h3 id="preview-maintenance">Maintenance</h3>
          <ul className="preview-list">
            {windows.map((m) => (
              <li key={m.id}>
                <strong>{m.title}</strong> <span className="badge">{m.active ? 'In progress' : 'Scheduled'}</span>
                <div className="small muted">
                  {when(m.from)} – {when(m.to)} · {affects(m.components)}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="preview-components" className="preview-part">
        <h3 id="preview-components">Components</h3>
        {preview.components.length === 0 ? <p className="muted">No components: visitors see only the banner.</p> : null}
        {groups.map((group) => (
          <div key={`${group.name ?? ''}-${group.items[0]!.id}`} className={group.name === null ? 'preview-group' : 'preview-group preview-named-group'}>
            {group.name !== null ? <h4>{group.name}</h4> : null}
            <ul className="preview-components">
              {group.items.map((component) => (
                <li key={component.id}>
                  <span>{component.name}</span>
                  {component.uptime !== null ? <span className="small muted">{percent(component.uptime)}</span> : null}
                  <StatusBadge state={STATE_SHOWN[component.state].badge} label={STATE_SHOWN[component.state].label} />
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
    </div>
  );
}
