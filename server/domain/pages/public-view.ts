/**
 * The public view of a status page: everything a visitor may see, and nothing else, as plain
 * data. The pages domain builds it; the renderers in server/public turn it into HTML, an Atom
 * feed and a JSON summary without looking anything up.
 */

export type ComponentState = 'operational' | 'degraded' | 'down' | 'maintenance' | 'unknown';
/** One day of a component's history, UTC. */
export interface UptimeDay { date: string /* YYYY-MM-DD */; up: number; degraded: number; down: number; /** up+degraded over all checks, 0..1; null when nothing was checked that day */ uptime: number | null }
export interface PublicComponent { id: string; name: string; description: string; group: string | null; state: ComponentState; /** 90 days, oldest first; empty for a static component */ days: UptimeDay[]; /** over those days; null without data */ uptime: number | null }
export interface PublicUpdate { status: 'investigating' | 'identified' | 'monitoring' | 'resolved'; message: string; at: string /* ISO 8601 */ }
export interface PublicReport { id: string; title: string; status: PublicUpdate['status']; resolved: boolean; createdAt: string; resolvedAt: string | null; components: string[] /* component names */; updates: PublicUpdate[] /* newest first */ }
export interface PublicMaintenance { id: string; title: string; message: string; from: string; to: string; active: boolean; components: string[] /* names; empty = the whole page */ }
export interface PublicPage {
  id: string; slug: string; title: string; description: string;
  /** Absolute public address of the page, e.g. http://localhost:3000/status/acme */
  url: string;
  generatedAt: string;
  /** The worst component state; 'maintenance' when only maintenance; 'operational' when all are. */
  state: ComponentState;
  components: PublicComponent[] /* in display order; grouped components are adjacent */;
  activeReports: PublicReport[] /* unresolved, newest first */;
  pastReports: PublicReport[] /* resolved within the last 14 days, newest first */;
  activeMaintenances: PublicMaintenance[]; upcomingMaintenances: PublicMaintenance[] /* soonest first */;
  /** Whether the page offers email subscription (a form posting to `${url}/subscribe`). */
  subscribable: boolean;
}
