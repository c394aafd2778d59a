import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { componentLinksOf, currentMaintenanceRowsOfPage } from '../maintenance/maintenance-repository.ts';
import { windowAt } from '../maintenance/maintenances.ts';
import { activeMonitorIds } from '../monitors/monitor-repository.ts';
import { dailyOutcomes, latestChecks, monitorsCreatedAt } from '../monitors/view-repository.ts';
import { planOfWorkspace } from '../plans.ts';
import { recentReportIdsOfPage } from '../reports/report-repository.ts';
import { loadReports, type StatusReport } from '../reports/reports.ts';
import { findPageBySlug, listComponentRows } from './page-repository.ts';
import { publicBrandingOf } from './page-branding.ts';
import { toPage } from './pages.ts';
import type { ComponentState, PublicComponent, PublicMaintenance, PublicPage, PublicReport, UptimeDay } from './public-view.ts';

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 90;
const PAST_REPORT_DAYS = 14;
/** How long a built view is served before it is built again; changes made through the services drop it at once. */
const VIEW_TTL_MS = 10_000;

const rank: Record<ComponentState, number> = { unknown: 0, operational: 1, maintenance: 2, degraded: 3, down: 4 };
const worst = (states: ComponentState[]) => states.reduce<ComponentState>((a, b) => (rank[b] > rank[a] ? b : a), 'unknown');
const fromResult: Record<string, ComponentState> = { up: 'operational', degraded: 'degraded', down: 'down' };

export interface PublicPageOptions {
  publicUrl: string;
  /** Whether the service can send mail: without it the page offers no subscription. */
  canMail: boolean;
}

/**
 * The public face of status pages: everything a visitor may see, built from components, check
 * health, 90 days of rollups, reports and maintenance windows. Nothing here needs a credential,
 * so nothing here reveals more than the page shows.
 */
export function createPublicPages(db: Kysely<Database>, options: PublicPageOptions) {
  /**
   * Views by slug. A view being built is shared by every request that wants it meanwhile, so a
   * busy page is built once, not once per visitor. `pageId` is known once the build is done.
   */
  const cache = new Map<string, { view: Promise<PublicPage>; expires: number; pageId?: string }>();
  /** Counts invalidations: a view built while one happened may hold the old state and is not kept. */
  let generation = 0;
  const listeners = new Set<() => void>();

  async function uptimeOf(monitorIds: number[], firstDay: number): Promise<Map<number, Map<number, { up: number; degraded: number; down: number }>>> {
    const byMonitor = new Map<number, Map<number, { up: number; degraded: number; down: number }>>();
    for (const row of await dailyOutcomes(db, monitorIds, firstDay)) {
      const days = byMonitor.get(row.monitor_id) ?? new Map();
      days.set(Number(row.day) * DAY_MS, { up: Number(row.up), degraded: Number(row.degraded), down: Number(row.down) });
      byMonitor.set(row.monitor_id, days);
    }
    return byMonitor;
  }

  function publicReport(report: StatusReport, names: Map<string, string>): PublicReport {
    return {
      id: report.id,
      title: report.title,
      status: report.status,
      resolved: report.resolved,
      createdAt: report.createdAt,
      resolvedAt: report.resolvedAt,
      components: report.pageComponentIds.flatMap((id) => names.get(id) ?? []),
      updates: report.updates.map((u) => ({ status: u.status, message: u.message, at: u.createdAt })),
    };
  }

  async function build(slug: string): Promise<PublicPage> {
    const page = await findPageBySlug(db, slug);
    if (!page) throw notFound('status page', slug);
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const firstDay = today - (HISTORY_DAYS - 1) * DAY_MS;
    const components = await listComponentRows(db, page.id);
    const monitorIds = [...new Set(components.flatMap((c) => (c.monitor_id === null ? [] : [c.monitor_id])))];

    const [plan, activeMonitors, states, uptime, reportIds, maintenanceRows, createdAt] = await Promise.all([
      planOfWorkspace(db, page.workspace_id),
      activeMonitorIds(db, monitorIds),
      latestChecks(db, monitorIds),
      uptimeOf(monitorIds, firstDay),
      recentReportIdsOfPage(db, page.id, new Date(now - PAST_REPORT_DAYS * DAY_MS).toISOString()),
      currentMaintenanceRowsOfPage(db, page.id, nowIso),
      monitorsCreatedAt(db, monitorIds),
    ]);
    const maintenanceLinks = await componentLinksOf(
      db,
      maintenanceRows.map((m) => m.id),
    );
    const reports = await loadReports(db, reportIds);

    const names = new Map(components.map((c) => [String(c.id), c.name]));
    const health = new Map<number, ComponentState>();
    for (const state of states) {
      if (!activeMonitors.has(state.monitor_id)) continue;
      health.set(state.monitor_id, worst([health.get(state.monitor_id) ?? 'unknown', fromResult[state.result]!]));
    }
    // A repeating window shows as its occurrence under way or its next one (windowAt).
    const windows = maintenanceRows.map((m) => windowAt(m, nowIso));
    const maintenances: PublicMaintenance[] = maintenanceRows.map((m, i) => ({
      id: String(m.id),
      title: m.title,
      message: m.message,
      from: windows[i]!.from,
      to: windows[i]!.to,
      active: windows[i]!.status === 'active',
      components: maintenanceLinks.filter((l) => l.maintenance_id === m.id).flatMap((l) => names.get(String(l.component_id)) ?? []),
    }));
    const underMaintenance = (componentId: number) =>
      maintenanceRows.some(
        (m, i) =>
          maintenances[i]!.active &&
          (maintenanceLinks.every((l) => l.maintenance_id !== m.id) ||
            maintenanceLinks.some((l) => l.maintenance_id === m.id && l.component_id === componentId)),
      );
    const activeReports = reports.filter((r) => !r.resolved);
    const reported = new Set(activeReports.flatMap((r) => r.pageComponentIds));

    const publicComponents: PublicComponent[] = components.map((c) => {
      let state: ComponentState = c.monitor_id === null ? 'operational' : (health.get(c.monitor_id) ?? 'unknown');
      if (reported.has(String(c.id)) && rank[state] < rank.degraded) state = 'degraded';
      if (underMaintenance(c.id)) state = 'maintenance';
      const history = c.monitor_id === null ? undefined : uptime.get(c.monitor_id);
      const days: UptimeDay[] =
        c.monitor_id === null
          ? []
          : Array.from({ length: HISTORY_DAYS }, (_, i) => {
              const day = firstDay + i * DAY_MS;
              const counts = history?.get(day) ?? { up: 0, degraded: 0, down: 0 };
              const total = counts.up + counts.degraded + counts.down;
              return { date: new Date(day).toISOString().slice(0, 10), ...counts, uptime: total === 0 ? null : (counts.up + counts.degraded) / total };
            });
      const totals = days.reduce((sum, d) => ({ ok: sum.ok + d.up + d.degraded, all: sum.all + d.up + d.degraded + d.down }), { ok: 0, all: 0 });
      return {
        id: String(c.id),
        name: c.name,
        description: c.description,
        group: c.group_name,
        state,
        days,
        uptime: totals.all === 0 ? null : totals.ok / totals.all,
        ...(c.monitor_id !== null && createdAt.has(c.monitor_id) ? { createdAt: createdAt.get(c.monitor_id)! } : {}),
      };
    });

    const componentStates = publicComponents.map((c) => c.state).filter((s) => s !== 'unknown');
    let state: ComponentState = componentStates.length === 0 ? (publicComponents.length === 0 ? 'operational' : 'unknown') : worst(componentStates);
    if (activeReports.length > 0 && rank[state] < rank.degraded) state = 'degraded';
    const ref = toPage(page, options.publicUrl);
    return {
      id: ref.id,
      slug: page.slug,
      title: page.title,
      description: page.description,
      url: ref.url,
      generatedAt: nowIso,
      state,
      // Grouped components are kept together, each group where its first component is.
      components: groupTogether(publicComponents),
      activeReports: activeReports.map((r) => publicReport(r, names)),
      pastReports: reports.filter((r) => r.resolved).map((r) => publicReport(r, names)),
      activeMaintenances: maintenances.filter((m) => m.active),
      upcomingMaintenances: maintenances.filter((_m, i) => windows[i]!.status === 'scheduled'),
      subscribable: options.canMail && plan.subscriberNotifications,
      ...publicBrandingOf(page),
    };
  }

  return {
    /** The page as visitors see it; NOT_FOUND for an unknown slug. */
    async view(slug: string): Promise<PublicPage> {
      const cached = cache.get(slug);
      if (cached && cached.expires > Date.now()) return cached.view;
      const started = generation;
      const entry: { view: Promise<PublicPage>; expires: number; pageId?: string } = { view: build(slug), expires: Date.now() + VIEW_TTL_MS };
      cache.set(slug, entry);
      const forget = () => {
        if (cache.get(slug) === entry) cache.delete(slug);
      };
      entry.view.then((view) => (started === generation ? (entry.pageId = view.id) : forget()), forget);
      return entry.view;
    },
    /** Drops the cached view of a page (after a change to it), or of every page. */
    invalidate(pageId?: number): void {
      generation++;
      for (const listener of listeners) listener();
      if (pageId === undefined) return cache.clear();
      // A view still being built may be of this page: it is dropped too.
      for (const [slug, entry] of cache) if (entry.pageId === undefined || entry.pageId === String(pageId)) cache.delete(slug);
    },
    /** Calls `listener` whenever a public page may have changed; returns the unsubscribe. */
    onInvalidate(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function groupTogether(components: PublicComponent[]): PublicComponent[] {
  const result: PublicComponent[] = [];
  const placed = new Set<string>();
  for (const c of components) {
    if (c.group === null) {
      result.push(c);
    } else if (!placed.has(c.group)) {
      placed.add(c.group);
      result.push(...components.filter((other) => other.group === c.group));
    }
  }
  return result;
}

export type PublicPages = ReturnType<typeof createPublicPages>;
