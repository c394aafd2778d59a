import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import { createCheckEngine } from './checks/engine.ts';
import type { Database } from './db/schema.ts';
import { deliverAlert } from './delivery/alert-delivery.ts';
import { channelKindRules } from './delivery/channels/registry.ts';
import { loadMailCode } from './delivery/mail.ts';
import { createOutbound } from './delivery/outbound.ts';
import { createSubscriberDelivery } from './delivery/subscriber-delivery.ts';
import { sendTestMail } from './delivery/test-mail.ts';
import { createEmailSettingsService } from './domain/email-settings/email-settings.ts';
import { createSignUpLimiter } from './http/rate-limit.ts';
import { VERSION } from './package-root.ts';
import { createAuditLogService } from './domain/audit/audit-log.ts';
import { createIdentityService } from './domain/identity.ts';
import { createKeyService } from './domain/keys/keys.ts';
import { createLiveFeed } from './domain/live-feed.ts';
import { createLocationService } from './domain/locations/locations.ts';
import { createRunnerService, type RunnerIngest } from './domain/locations/runners.ts';
import { createMaintenanceService } from './domain/maintenance/maintenances.ts';
import type { MonitorChecks } from './domain/monitors/check-results.ts';
import { createMonitorIncidentService } from './domain/monitors/monitor-incidents.ts';
import { createMonitorViewService } from './domain/monitors/monitor-views.ts';
import { createMonitorService } from './domain/monitors/monitors.ts';
import { createBulkMonitorService } from './domain/monitors/bulk-actions.ts';
import { createHeartbeatService } from './domain/monitors/heartbeats.ts';
import { createBadgeService } from './domain/monitors/badges.ts';
import { createToolPinService } from './domain/monitors/tool-pins.ts';
import { createDestinationPolicy, type DestinationPolicy } from './domain/destinations.ts';
import { createConnectionService } from './domain/oauth/grants.ts';
import { createOAuthService } from './domain/oauth/oauth.ts';
import type { RedirectPolicy } from './domain/oauth/redirect-uris.ts';
import { type AlertServiceOptions, createAlertService } from './domain/notifications/alerts.ts';
import type { ChannelTarget } from './domain/notifications/channel-rules.ts';
import { createChannelService } from './domain/notifications/channels.ts';
import type { AlertEvent } from './domain/notifications/events.ts';
import { createSubscriberService } from './domain/notifications/subscribers.ts';
import { createPageHosts } from './domain/pages/page-hosts.ts';
import { createPageService } from './domain/pages/pages.ts';
import { createPublicPages } from './domain/pages/public-pages.ts';
import { createReportService } from './domain/reports/reports.ts';
import { sealerOf } from './domain/sealing.ts';
import { sealStoredSecrets } from './domain/stored-secrets.ts';
import { createSessionService } from './domain/sessions/sessions.ts';
import { createUserService } from './domain/users/users.ts';
import { createPasskeyService } from './domain/users/passkeys.ts';
import { createUserIdentityService } from './domain/users/oidc.ts';
import { createWorkspaceService } from './domain/workspaces/workspaces.ts';
import { createMemberService } from './domain/members/members.ts';

export interface ServiceOptions {
  /** The check engine; by default one that runs checks only when asked (the service passes its scheduling engine). */
  checks?: MonitorChecks;
  /** Where the results of remote runners are stored; by default the default engine (the service passes its scheduling engine). */
  runnerIngest?: RunnerIngest;
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
  /** Publishing: how long a call waits for its dispatch (DISPATCH_DEADLINE_MS), and how long one webhook POST may take. */
  subscriberDispatch?: { deadlineMs?: number; webhookTimeoutMs?: number };
  /** Where checks and deliveries may connect, and what a write may name; by default the policy without an allow-list. */
  destinations?: DestinationPolicy;
  /** The check engine's clock, which heartbeat pings are timed on; by default the wall clock. */
  now?: () => number;
  /** Where heartbeat pings are written (the engine's own writes, see engine.ts); by default the database. */
  heartbeatWrites?: Kysely<Database>;
  /** The dashboard's address: alerts link to their monitor there. */
  dashboardUrl?: string;
  /** How alerts retry and group (tests shorten them), and whether this machine is offline (the check engine knows). */
  alerts?: Pick<AlertServiceOptions, 'retryDelaysMs' | 'storms' | 'offline'>;
}

/**
 * Every domain service over one database: the single boundary all surfaces call. Composed here,
 * above the domain, because it hands the services what lies beside them: the check engine, the
 * delivery of alerts and subscriber notifications, and the public sign-up form's limits.
 */
export function createServices(db: Kysely<Database>, options: ServiceOptions = {}) {
  const log = options.log ?? pino({ enabled: false });
  const destinations = options.destinations ?? createDestinationPolicy();
  let engine: ReturnType<typeof createCheckEngine> | undefined;
  const defaultEngine = () => (engine ??= createCheckEngine(db, { log, version: VERSION, schedule: false, destinations, now: options.now }));
  const checks = options.checks ?? defaultEngine().checks;
  const runners = createRunnerService(db, { version: VERSION, ingest: options.runnerIngest ?? defaultEngine() });
  const publicUrl = options.publicUrl ?? 'http://localhost:3000';
  const sealer = sealerOf(db);
  // The email settings stored in the database; STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM win over them.
  const emailSettings = createEmailSettingsService(db, {
    sealer,
    destinations,
    environment: { smtpUrl: Boolean(options.smtpUrl), mailFrom: Boolean(options.mailFrom) },
    available: () => outbound.emailAvailable(),
    async sendTest(to) {
      const stored = await outbound.refresh();
      const relay = options.smtpUrl ?? (stored && stored.server);
      if (!relay) throw new Error('no mail server is set up');
      return sendTestMail(relay, outbound.mailFrom, to, destinations);
    },
    async changed() {
      await outbound.refresh();
      publicPages.invalidate();
    },
  });
  const outbound = createOutbound({
    smtpUrl: options.smtpUrl,
    mailFrom: options.mailFrom,
    destinations,
    async storedRelay() {
      const relay = await emailSettings.storedRelay();
      if (!relay) return undefined;
      return {
        // A password is sent only with a user name to log in as: without one, the server is used without logging in.
        server: { host: relay.host, port: relay.port, security: relay.security, user: relay.username, pass: relay.username ? relay.password : '' },
        from: relay.from,
        stamp: relay.stamp,
      };
    },
  });
  const deliver = (target: ChannelTarget, event: AlertEvent) => deliverAlert(target, event, outbound);

  // `canMail` is read with each summary: email settings saved later make pages subscribable.
  const publicPages = createPublicPages(db, {
    publicUrl,
    get canMail() {
      return outbound.hasMailRelay;
    },
  });
  // A monitor that is paused, changed or deleted changes the components it drives at once.
  // The runners of its private locations hear of it at once too, and a trigger asks them as well
  // as the embedded runner (which serves the monitor's regions, if it has any).
  const monitorChecks: MonitorChecks = {
    ...checks,
    async trigger(monitor) {
      const [local, remote] = await Promise.all([monitor.regions.length > 0 ? checks.trigger(monitor) : [], runners.trigger(monitor)]);
      return [...local, ...remote];
    },
    monitorChanged(monitor, change) {
      checks.monitorChanged(monitor, change);
      runners.monitorsChanged(change?.checkNow ? [monitor.id] : []);
      publicPages.invalidate();
    },
    monitorRemoved(id) {
      checks.monitorRemoved(id);
      runners.monitorsChanged();
      publicPages.invalidate();
    },
    runnersChanged() {
      checks.runnersChanged();
      publicPages.invalidate();
    },
  };
  const changed = (pageId: number) => publicPages.invalidate(pageId);
  const pageHosts = createPageHosts(db);
  const subscribers = createSubscriberService(db, {
    publicUrl,
    sealer,
    destinations,
    delivery: createSubscriberDelivery(outbound, { ...options.subscriberDispatch, log: log.child({ component: 'subscribers' }) }),
    signUpLimits: createSignUpLimiter(),
  });
  const publishing = { publicUrl, changed, log, notifySubscribers: subscribers.dispatch };
  const channels = createChannelService(db, { sealer, deliver, destinations, kinds: channelKindRules });
  const live = createLiveFeed(db, { log: log.child({ component: 'live' }) });
  const monitors = createMonitorService(db, monitorChecks, sealer, destinations);

  return {
    workspaces: createWorkspaceService(db),
    members: createMemberService(db),
    keys: createKeyService(db),
    identity: createIdentityService(db),
    sessions: createSessionService(db),
    users: createUserService(db),
    /** People's passkeys: added while signed in, and signing in with one. */
    passkeys: createPasskeyService(db),
    /** People's accounts at the organisation's OpenID Connect provider. */
    userIdentities: createUserIdentityService(db),
    oauth: createOAuthService(db, { issuer: options.issuer ?? 'http://localhost:3000', redirectPolicy: options.redirectPolicy }),
    connections: createConnectionService(db),
    monitors,
    /** One action (pause, resume, delete, tag, wire to a channel) on many monitors, by id or by the overview's filter. */
    bulkMonitors: createBulkMonitorService(db, monitors, channels),
    /** Heartbeat monitors' pings, ping tokens and their rotation. */
    heartbeats: createHeartbeatService(db, {
      checks: monitorChecks,
      apiUrl: options.issuer ?? 'http://localhost:3000',
      now: options.now,
      writes: options.heartbeatWrites,
    }),
    /** Monitors' public status badges: on, off, their address, and what they show. */
    badges: createBadgeService(db, { publicUrl, now: options.now }),
    /** The pinned tools of MCP monitors and their drifts. */
    toolPins: createToolPinService(db),
    /** What the dashboard's screens read: the overview, a monitor's latency, results and regions, the plan. */
    monitorViews: createMonitorViewService(db),
    /** Each monitor's incidents: the spans it was down, opened and closed by the check engine's state changes. */
    monitorIncidents: createMonitorIncidentService(db, { log: log.child({ component: 'incidents' }), now: options.now }),
    /** State changes and committed changes, announced to the open dashboards. */
    live,
    /** Seals what earlier versions stored in the clear (see stored-secrets.ts); the service runs it at start. */
    sealStoredSecrets: () => sealStoredSecrets(db, sealer),
    locations: createLocationService(db, { revoked: runners.revoked, runnersChanged: monitorChecks.runnersChanged }),
    /** The service's side of remote runners: their assignment streams and the results they report. */
    runners,
    auditLog: createAuditLogService(db),
    pages: createPageService(db, { publicUrl, changed, hosts: pageHosts }),
    /** The pages' custom domains by host name, which the HTTP edge reads on each request of another host. */
    pageHosts,
    publicPages,
    reports: createReportService(db, publishing),
    maintenances: createMaintenanceService(db, publishing),
    subscribers,
    channels,
    /** The service's email settings (SMTP server and sender), and its test send. */
    emailSettings,
    /**
     * Whether the service can send email (a mail server set by the environment or in the email
     * settings), read now: what a form asks before it offers email subscriptions or channels.
     */
    emailAvailable: () => outbound.emailAvailable(),
    /** Reads the stored email settings, so what is answered at once (a page's summary) knows them; the service runs it at start. */
    loadEmailSettings: () => outbound.refresh().then(() => undefined),
    alerts: createAlertService(db, {
      targetsOf: channels.targetsOf,
      deliver,
      recordDelivery: (channelId, outcome) => channels.recordDelivery(channelId, outcome),
      desktop: outbound.desktop,
      dashboardUrl: options.dashboardUrl,
      ...options.alerts,
      log,
    }),
    /**
     * Loads the mail code now when the data says mail will be sent (email subscribers with a relay,
     * email channels), so the first dispatch does not pay for it while other calls wait; a service
     * that never mails never loads it.
     */
    async warmMail(): Promise<void> {
      if ((await subscribers.mailsPageEvents()) || (await channels.mailsAlerts())) await loadMailCode();
    },
    /** Desktop alerts, for the app shell. */
    onDesktopAlert: outbound.onDesktopAlert,
    /** Ends the open live streams and closes the pooled mail connections. */
    close() {
      runners.close();
      live.close();
      outbound.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
