import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import { createCheckEngine } from '../checks/engine.ts';
import type { Database } from '../db/schema.ts';
import { deliverAlert } from '../delivery/alert-delivery.ts';
import { VERSION } from '../package-root.ts';
import { createAuditLogService } from './audit/audit-log.ts';
import { createIdentityService } from './identity.ts';
import { createKeyService } from './keys/keys.ts';
import { createLiveFeed } from './live-feed.ts';
import { createLocationService } from './locations/locations.ts';
import { createMaintenanceService } from './maintenance/maintenances.ts';
import type { MonitorChecks } from './monitors/checks.ts';
import { createMonitorViewService } from './monitors/monitor-views.ts';
import { createMonitorService } from './monitors/monitors.ts';
import { createConnectionService } from './oauth/grants.ts';
import { createOAuthService } from './oauth/oauth.ts';
import type { RedirectPolicy } from './oauth/redirect-uris.ts';
import { createAlertService } from './notifications/alerts.ts';
import type { ChannelTarget } from './notifications/channel-rules.ts';
import { createChannelService } from './notifications/channels.ts';
import type { AlertEvent } from './notifications/events.ts';
import { createOutbound } from './notifications/outbound.ts';
import { createSubscriberService } from './notifications/subscribers.ts';
import { createPageService } from './pages/pages.ts';
import { createPublicPages } from './pages/public-pages.ts';
import { createReportService } from './reports/reports.ts';
import { sealerOf } from './sealing.ts';
import { sealStoredSecrets } from './stored-secrets.ts';
import { createSessionService } from './sessions/sessions.ts';
import { createUserService } from './users/users.ts';
import { createWorkspaceService } from './workspaces/workspaces.ts';

export interface ServiceOptions {
  /** The check engine; by default one that runs checks only when asked (the service passes its scheduling engine). */
  checks?: MonitorChecks;
  /** Base of public addresses: status pages and the links in subscriber mail. */
  publicUrl?: string;
  /** The service's mail relay (STATUSDESK_SMTP_URL) and sender (STATUSDESK_MAIL_FROM). */
  smtpUrl?: string;
  mailFrom?: string;
  log?: Logger;
  /** OAUTH_ISSUER; default http://localhost:3000. */
  issuer?: string;
  /** Where OAuth clients may be sent back to, beyond loopback and the editor schemes. */
  redirectPolicy?: Partial<RedirectPolicy>;
}

/** Every domain service over one database: the single boundary all surfaces call. */
export function createServices(db: Kysely<Database>, options: ServiceOptions = {}) {
  const log = options.log ?? pino({ enabled: false });
  const checks = options.checks ?? createCheckEngine(db, { log, version: VERSION, schedule: false }).checks;
  const publicUrl = options.publicUrl ?? 'http://localhost:3000';
  const sealer = sealerOf(db);
  const outbound = createOutbound({ smtpUrl: options.smtpUrl, mailFrom: options.mailFrom });
  const deliver = (target: ChannelTarget, event: AlertEvent) => deliverAlert(target, event, outbound);

  const publicPages = createPublicPages(db, { publicUrl, canMail: outbound.hasMailRelay });
  // A monitor that is paused, changed or deleted changes the components it drives at once.
  const monitorChecks: MonitorChecks = {
    ...checks,
    monitorChanged(monitor) {
      checks.monitorChanged(monitor);
      publicPages.invalidate();
    },
    monitorRemoved(id) {
      checks.monitorRemoved(id);
      publicPages.invalidate();
    },
  };
  const changed = (pageId: number) => publicPages.invalidate(pageId);
  const subscribers = createSubscriberService(db, { publicUrl, sealer, outbound });
  const publishing = { publicUrl, changed, log, notifySubscribers: subscribers.dispatch };
  const channels = createChannelService(db, { sealer, deliver });
  const live = createLiveFeed(db, { log: log.child({ component: 'live' }) });

  return {
    workspaces: createWorkspaceService(db),
    keys: createKeyService(db),
    identity: createIdentityService(db),
    sessions: createSessionService(db),
    users: createUserService(db),
    oauth: createOAuthService(db, { issuer: options.issuer ?? 'http://localhost:3000', redirectPolicy: options.redirectPolicy }),
    connections: createConnectionService(db),
    monitors: createMonitorService(db, monitorChecks, sealer),
    /** What the dashboard's screens read: the overview, a monitor's latency, results and regions, the plan. */
    monitorViews: createMonitorViewService(db),
    /** State changes and committed changes, announced to the open dashboards. */
    live,
    /** Seals what earlier versions stored in the clear (see stored-secrets.ts); the service runs it at start. */
    sealStoredSecrets: () => sealStoredSecrets(db, sealer),
    locations: createLocationService(db),
    auditLog: createAuditLogService(db),
    pages: createPageService(db, { publicUrl, changed }),
    publicPages,
    reports: createReportService(db, publishing),
    maintenances: createMaintenanceService(db, publishing),
    subscribers,
    channels,
    alerts: createAlertService(db, { targetsOf: channels.targetsOf, deliver, log }),
    /** Desktop alerts, for the app shell. */
    onDesktopAlert: outbound.onDesktopAlert,
    /** Ends the open live streams and closes the pooled mail connections. */
    close() {
      live.close();
      outbound.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
