import { type KeyboardEvent, type ReactNode, useId, useRef } from 'react';
import type { ScreenProps } from '../app.tsx';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import { usePageComponents, useStatusPage } from '../data/pages.ts';
import { loadedOf } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { PageComponentsSection } from './page-components.tsx';
import { PageExportSection } from './page-export.tsx';
import type { PageSectionProps } from './page-form-parts.tsx';
import { PageMaintenanceSection } from './page-maintenance.tsx';
import { PagePreviewSection } from './page-preview.tsx';
import { PageReportsSection } from './page-reports.tsx';
import { PageSettingsSection } from './page-settings.tsx';
import { PageSubscribersSection } from './page-subscribers.tsx';
import './page-detail.css';

const TABS = [
  { id: 'components', label: 'Components', section: PageComponentsSection },
  { id: 'preview', label: 'Preview', section: PagePreviewSection },
  { id: 'reports', label: 'Status reports', section: PageReportsSection },
  { id: 'maintenance', label: 'Maintenance', section: PageMaintenanceSection },
  { id: 'subscribers', label: 'Subscribers', section: PageSubscribersSection },
  { id: 'export', label: 'Export', section: PageExportSection },
  { id: 'settings', label: 'Settings', section: PageSettingsSection },
] as const satisfies readonly { id: string; label: string; section: (props: PageSectionProps) => ReactNode }[];

type TabId = (typeof TABS)[number]['id'];

export function PageDetailScreen({ workspace, params }: ScreenProps) {
  const pageId = params.id ?? '';
  const { query } = useLocation();
  const tab: TabId = TABS.find((t) => t.id === query.get('tab'))?.id ?? 'components';

  const page = loadedOf(useStatusPage(workspace.id, pageId));
  const components = loadedOf(usePageComponents(workspace.id, pageId));

  if (page.state === 'loading') return <Loading what="the status page" />;
  if (page.state === 'error') {
    return (
      <>
        <PageHeader title="Status page">
          <Link to="/pages">All status pages</Link>
        </PageHeader>
        <ErrorNote>{page.error.message}</ErrorNote>
      </>
    );
  }
  const statusPage = page.value;
  return (
    <div className="page-detail">
      <PageHeader
        title={statusPage.title}
        actions={
          <a className="button" href={statusPage.url} target="_blank" rel="noopener noreferrer">
            <Icon name="external" />
            Open the public page
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        }
      >
        <Link to="/pages">Status pages</Link> · <code>{statusPage.url}</code>
        {statusPage.description ? <span className="page-description">{statusPage.description}</span> : null}
      </PageHeader>

      <Tabs current={tab} onChoose={(id) => navigate(`/pages/${encodeURIComponent(pageId)}?tab=${id}`, { replace: true })}>
        {(() => {
          if (components.state === 'loading') return <Loading what="the page's components" />;
          if (components.state === 'error') return <ErrorNote>{components.error.message}</ErrorNote>;
          const Section = TABS.find((t) => t.id === tab)!.section;
          return <Section workspaceId={workspace.id} page={statusPage} components={components.value} />;
        })()}
      </Tabs>
    </div>
  );
}

/**
 * The page's sections as tabs (the WAI-ARIA tabs pattern): one tab stop for the list, the arrow
 * keys, Home and End move between tabs and show each at once; the chosen one is in the address
 * (`?tab=`), so a reload or a shared link opens it.
 */
function Tabs({ current, onChoose, children }: { current: TabId; onChoose(id: TabId): void; children: ReactNode }) {
  const id = useId();
  const list = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.findIndex((t) => t.id === current);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = TABS[(next + TABS.length) % TABS.length]!;
    onChoose(target.id);
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(`${id}-${target.id}`)}`)?.focus();
  };
  return (
    <>
      <div className="tabs" role="tablist" aria-label="Sections of the page" ref={list} onKeyDown={move}>
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${id}-${t.id}`}
            aria-selected={t.id === current}
            aria-controls={t.id === current ? `${id}-panel` : undefined}
            tabIndex={t.id === current ? 0 : -1}
            className="tab"
            onClick={() => onChoose(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${current}`} tabIndex={0}>
        {children}
      </div>
    </>
  );
}
