import { overallStatus } from '../public-words.ts';

/**
 * The public view of a status page: everything a visitor may see, and nothing else, as plain
 * data, and its JSON summary. The pages domain builds it; the renderers in server/public turn it
 * into HTML and an Atom feed without looking anything up.
 */

export type ComponentState = 'operational' | 'degraded' | 'down' | 'maintenance' | 'unknown';
/** One day of a component's history, UTC. */
export interface UptimeDay {
  date: string /* YYYY-MM-DD */;
  up: number;
  degraded: number;
  down: number /** up+degraded over all checks, 0..1; null when nothing was checked that day */;
  uptime: number | null;
}
export interface PublicComponent {
  id: string;
  name: string;
  description: string;
  group: string | null;
  state: ComponentState /** 90 days, oldest first; empty for a static component */;
  days: UptimeDay[] /** over those days; null without data */;
  uptime: number | null;
  /** When its monitor was created (ISO 8601): a younger one's uptime is "since created"; absent for a static component. */
  createdAt?: string;
}
export interface PublicUpdate {
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
  message: string;
  at: string /* ISO 8601 */;
}
export interface PublicReport {
  id: string;
  title: string;
  status: PublicUpdate['status'];
  resolved: boolean;
  createdAt: string;
  resolvedAt: string | null;
  components: string[] /* component names */;
  updates: PublicUpdate[] /* newest first */;
}
export interface PublicMaintenance {
  id: string;
  title: string;
  message: string;
  from: string;
  to: string;
  active: boolean;
  components: string[] /* names; empty = the whole page */;
}
export interface PublicPage {
  id: string;
  slug: string;
  title: string;
  description: string;
  /** Absolute public address of the page, e.g. http://localhost:3000/status/acme */
  url: string;
  generatedAt: string;
  /** The worst component state; 'maintenance' when only maintenance; 'operational' when all are. */
  state: ComponentState;
  components: PublicComponent[] /* in display order; grouped components are adjacent */;
  activeReports: PublicReport[] /* unresolved, newest first */;
  pastReports: PublicReport[] /* resolved within the last 14 days, newest first */;
  activeMaintenances: PublicMaintenance[];
  upcomingMaintenances: PublicMaintenance[] /* soonest first */;
  /** Whether the page offers email subscription (a form posting to `${url}/subscribe`). */
  subscribable: boolean;
  /** The owner's branding; absent or null fields: none. */
  branding?: PublicBranding;
}

/** What the page shows of its owner: see domain/pages/page-branding.ts for the rules. */
export interface PublicBranding {
  /** `#rrggbb`, the heading band's colour. */
  accentColor: string | null;
  /** The text colour on the band: black or white, whichever contrasts more (at least 4.58:1). */
  textColor: string | null;
  /** The logo as a `data:` address of its own image type. */
  logo: string | null;
  /** The link back to the owner's site, http or https. */
  websiteUrl: string | null;
}

/** The public JSON of a page: no day-by-day history, only what a script polls for. */
export interface StatusSummary {
  page: { id: string; slug: string; title: string; url: string; updatedAt: string };
  status: { state: ComponentState; description: string };
  components: { id: string; name: string; group: string | null; state: ComponentState; uptime: number | null }[];
  activeReports: {
    id: string;
    title: string;
    status: PublicUpdate['status'];
    components: string[];
    updatedAt: string;
    latestUpdate: PublicUpdate | null;
  }[];
  maintenances: { active: SummaryMaintenance[]; upcoming: SummaryMaintenance[] };
}

export interface SummaryMaintenance {
  id: string;
  title: string;
  message: string;
  from: string;
  to: string;
  components: string[];
}

/** The newest update's time, else the report's creation. */
export function reportUpdatedAt(report: PublicReport): string {
  let latest = report.createdAt;
  let latestMs = Date.parse(latest);
  for (const update of report.updates) {
    const ms = Date.parse(update.at);
    if (!Number.isNaN(ms) && !(ms <= latestMs)) {
      latest = update.at;
      latestMs = ms;
    }
  }
  return latest;
}

/** The newest update: the first, as the view orders them, unless the times disagree. */
function latestUpdate(report: PublicReport): PublicUpdate | null {
  let latest: PublicUpdate | null = null;
  for (const update of report.updates) {
    if (latest === null || Date.parse(update.at) > Date.parse(latest.at)) latest = update;
  }
  return latest;
}

function summaryMaintenance(m: PublicMaintenance): SummaryMaintenance {
  return { id: m.id, title: m.title, message: m.message, from: m.from, to: m.to, components: m.components };
}

/** The page's public JSON (served as summary.json): current state, components and open matters. */
export function summaryJson(page: PublicPage): StatusSummary {
  return {
    page: { id: page.id, slug: page.slug, title: page.title, url: page.url, updatedAt: page.generatedAt },
    status: { state: page.state, description: overallStatus(page) },
    components: page.components.map((c) => ({ id: c.id, name: c.name, group: c.group, state: c.state, uptime: c.uptime })),
    activeReports: page.activeReports.map((r) => ({
      id: r.id,
      title: r.title,
      status: r.status,
      components: r.components,
      updatedAt: reportUpdatedAt(r),
      latestUpdate: latestUpdate(r),
    })),
    maintenances: { active: page.activeMaintenances.map(summaryMaintenance), upcoming: page.upcomingMaintenances.map(summaryMaintenance) },
  };
}
