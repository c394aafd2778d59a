import type { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config.ts';
import { type ContentIndex, createContentIndex } from './content/content-index.ts';
import { openDatabaseOf } from './db/connect.ts';
import type { Db } from './db/open.ts';
import { type CheckEngine, createCheckEngine } from './checks/engine.ts';
import { createDestinationPolicy } from './domain/destinations.ts';
import type { MonitorStateChange } from './domain/monitors/check-results.ts';
import { monitorName } from './domain/monitors/monitor-repository.ts';
import { ALERT_SENTENCE } from './domain/public-words.ts';
import { useSealingKey } from './domain/sealing.ts';
import { createServices, type Services } from './services.ts';
import { ensureOwner } from './domain/users/users.ts';
import { DEFAULT_OIDC_NAME, type OidcSettings } from './domain/users/oidc.ts';
import { createAdmission } from './http/credentials.ts';
import { createFront } from './http/front.ts';
import { withHealthz } from './http/healthz.ts';
import { createOriginGuard, LOOPBACK_NAMES, type OriginGuard, ownHosts } from './http/guard.ts';
import { type Listener, listen, type RequestHandler } from './http/listener.ts';
import { createRateLimiter, DEFAULT_RATE_LIMIT_PER_MINUTE } from './http/rate-limit.ts';
import { limitHeapGrowth } from './heap-growth.ts';
import { VERSION } from './package-root.ts';
import type { ResolveCaller } from './rpc/auth.ts';
import { isRpcRequest } from './rpc/rpc-request.ts';
import type { RpcHandlerOptions } from './rpc/routes.ts';
import { recordService } from './service-record.ts';

/**
 * A handler loaded with the first request it serves, so its code is neither loaded nor kept by a
 * service that never needs it. Requests that arrive while it loads wait for it; a failed load is
 * logged, its requests are dropped, and the next request tries again.
 */
function onFirstRequest(load: () => Promise<RequestHandler>, what: string, log: Logger): RequestHandler {
  let loading: Promise<RequestHandler> | undefined;
  // Once loaded, a request is handled at once, in the event that brought it, as without the loader.
  let handler: RequestHandler | undefined;
  return (req, res) => {
    if (handler) return handler(req, res);
    loading ??= load().then((loaded) => (handler = loaded));
    loading.then(
      (handle) => handle(req, res),
      (error: unknown) => {
        loading = undefined;
        log.error({ err: error }, `loading ${what} failed`);
        res.destroy();
      },
    );
  };
}

/**
 * A Hono app and its adapter to node:http, built with the first request they serve: the adapter
 * loads undici (Request, Response), and the routes their schemas, megabytes a service that is only
 * checking and answering /healthz never needs.
 */
const honoListener = (app: () => Promise<{ fetch: Parameters<typeof getRequestListener>[0] }>, log: Logger) =>
  onFirstRequest(
    async () => {
      const [{ getRequestListener }, { fetch }] = await Promise.all([import('@hono/node-server'), app()]);
      return getRequestListener(fetch);
    },
    'the HTTP routes',
    log,
  );

/** ConnectRPC and the protobuf descriptors of every service, loaded with the first RPC request. */
const rpcHandler = (options: Omit<RpcHandlerOptions, 'caller'>, caller: () => Promise<ResolveCaller>) =>
  onFirstRequest(
    async () => {
      const [{ createRpcHandler }, resolve] = await Promise.all([import('./rpc/routes.ts'), caller()]);
      return createRpcHandler({ ...options, caller: resolve });
    },
    'the RPC handler',
    options.log,
  );

/** The dashboard's routes and the caller of its RPC calls, loaded with its first request. */
const dashboardApp = () => import('./dashboard/dashboard-app.ts');

/** The organisation's OpenID Connect provider, when its settings are given (all of them: serviceConfig checks). */
const oidcSettings = (config: ServiceConfig): OidcSettings | undefined =>
  config.oidcIssuer && config.oidcClientId && config.oidcClientSecret
    ? { issuer: config.oidcIssuer, clientId: config.oidcClientId, clientSecret: config.oidcClientSecret, name: config.oidcName ?? DEFAULT_OIDC_NAME }
    : undefined;

/** How often expired sign-in links, sessions, consent requests, codes and tokens are dropped. */
const PRUNE_MS = 3_600_000;

export interface RunningService {
  apiUrl: string;
  dashboardUrl: string;
  /** The ports listened on (the addresses above may name others: OAUTH_ISSUER, DASHBOARD_URL). */
  ports: { api: number; dashboard: number };
  /** A one-time link that signs the owner into the dashboard. */
  signInUrl: string;
  /** The machine's owner: the person the dashboard's sign-in links sign in. */
  ownerId: number;
  /** The check engine: state changes, scheduler figures. */
  engine: CheckEngine;
  /**
   * Settles once the engine has read the monitors and schedules them, which it starts doing as the
   * ports answer, so reading thousands of monitors does not hold back the service; rejects when
   * the engine cannot start.
   */
  checking: Promise<void>;
  /** The domain services the surfaces call. */
  services: Services;
  /** The service's database, SQLite or PostgreSQL (tests read what it stored). */
  db: Db;
  /** Stops accepting, finishes requests in flight, stops checking, closes the database. */
  close(): Promise<void>;
}

/** The composition root: config, database, services, then the two loopback ports. */
export async function startService(config: ServiceConfig, log: Logger): Promise<RunningService> {
  limitHeapGrowth(); // first, so that no limit of V8's own outlives the start (heap-growth.ts)
  if (!LOOPBACK_NAMES.includes(config.host)) {
    log.warn({ host: config.host }, 'listening beyond loopback: other machines can reach this service');
  }
  const db = await openDatabaseOf(config.dataDir, config.database);
  if (config.sealingKey) {
    try {
      useSealingKey(db, config.sealingKey);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  const listeners: Listener[] = [];
  // Where checks, deliveries and exports may connect; the service's own ports join it once bound.
  const destinations = createDestinationPolicy({ allow: config.allowedDestinations });
  const engine = createCheckEngine(db, {
    log: log.child({ component: 'checks' }),
    version: VERSION,
    schedule: config.scheduleChecks,
    concurrency: config.checkConcurrency,
    maxRawResults: config.maxRawResults,
    leaseMs: config.checkLeaseMs,
    otlpIntervalMs: config.otlpIntervalMs,
    destinations,
    now: config.now,
  });
  let services: Services | undefined;
  let content: ContentIndex | undefined;
  try {
    // Routes are attached once both ports are known: the Host/Origin guard needs them.
    const api = await listen({ host: config.host, port: config.port });
    listeners.push(api);
    const dashboard = await listen({ host: config.host, port: config.dashboardPort });
    listeners.push(dashboard);
    destinations.listening(config.host, [api.port, dashboard.port]);

    const apiUrl = config.oauthIssuer ?? `http://localhost:${api.port}`;
    const dashboardUrl = config.dashboardUrl ?? `http://localhost:${dashboard.port}`;
    const docsBase = config.docsUrl ?? apiUrl;
    const apiOwnHosts = ownHosts(api.port, config.host);
    const dashboardOwnHosts = ownHosts(dashboard.port, config.host);
    // Status pages may be reached under their own public address (a tunnel, a reverse proxy).
    const publicUrl = config.publicUrl ?? apiUrl;
    const apiHosts = [...apiOwnHosts, new URL(apiUrl).host];
    const dashboardHosts = [...dashboardOwnHosts, new URL(dashboardUrl).host];
    const origins = [...apiOwnHosts, ...dashboardOwnHosts].map((h) => `http://${h}`).concat(apiUrl, dashboardUrl);
    // The public address reaches the status pages only (they load nothing from elsewhere on the port).
    // A page's custom domain reaches that page only (read from the services once they exist).
    const apiGuard = createOriginGuard(
      apiHosts,
      origins,
      { hosts: [new URL(publicUrl).host], origins: [publicUrl], paths: ['/status/'] },
      { slugOf: (hostname) => services?.pageHosts.slugOf(hostname) },
    );
    const dashboardGuard = createOriginGuard(dashboardHosts, origins);
    const common = { log, maxBodyBytes: config.maxBodyBytes, docsBase };

    const ready = createServices(db, {
      checks: engine.checks,
      runnerIngest: engine,
      publicUrl,
      smtpUrl: config.smtpUrl,
      mailFrom: config.mailFrom,
      log: log.child({ component: 'notifications' }),
      issuer: apiUrl,
      redirectPolicy: { ownHosts: [new URL(apiUrl).hostname, new URL(dashboardUrl).hostname], vendorDomains: config.oauthRedirectDomains },
      destinations,
      now: config.now,
      heartbeatWrites: engine.writes,
    });
    // The open dashboards hear of state changes and committed changes as they happen.
    engine.onStateChange(ready.live.stateChanged);
    const ownerId = await ensureOwner(db);
    services = ready;
    await ready.sealStoredSecrets();
    await ready.loadEmailSettings();
    await ready.sessions.prune();
    await ready.oauth.prune();
    await ready.subscribers.prunePending();
    await ready.pageHosts.start((error: unknown) => log.error({ err: error }, "reading the status pages' custom domains failed"));
    // A state change shows on the status pages at once, and its alert goes out to the channels.
    engine.onStateChange(() => ready.publicPages.invalidate());
    engine.onStateChange(ready.alerts.sendInBackground);
    // A monitor going down opens an incident on it; coming back closes it.
    engine.onStateChange((change) => void ready.monitorIncidents.stateChanged(change).catch(() => {}));
    // Back online, the monitors whose failure was held and that still fail are told once.
    engine.offline.onChange((change) => {
      if ('online' in change)
        ready.alerts.backOnline(change.online).catch((error: unknown) => log.error({ err: error }, 'sending the alerts held while offline failed'));
    });
    engine.onStateChange(logStateChange(db, log));
    // The tools each MCP check lists are pinned, or compared with the pinned ones: a drift alerts.
    engine.onToolListing((listing) => {
      ready.toolPins.listed(listing).then(
        (outcome) => {
          if (outcome.kind !== 'drifted') return;
          log.warn(
            { monitorId: outcome.monitorId, changes: outcome.changes.map(({ name, change }) => `${change} ${name}`) },
            'an MCP server changed its tools',
          );
          ready.alerts.toolsDriftedInBackground(outcome);
        },
        (error: unknown) => log.error({ err: error, monitorId: listing.monitorId }, 'recording listed tools failed'),
      );
    });
    // Alerts held back by a maintenance window go out when it ends, if the failure outlasted it,
    // from the one process that does the upkeep of those sharing the database.
    ready.alerts.start(() => engine.upkeep);
    const prune = setInterval(() => {
      Promise.all([ready.sessions.prune(), ready.oauth.prune(), ready.subscribers.prunePending()]).catch((error: unknown) =>
        log.error({ err: error }, 'pruning expired credentials failed'),
      );
    }, PRUNE_MS);
    prune.unref();

    const mount = (listener: Listener, guard: OriginGuard, app: Parameters<typeof honoListener>[0], rpc?: RequestHandler) => {
      const routes = honoListener(app, log);
      listener.handle(
        createFront(
          { ...common, guard },
          guard.confine(
            withHealthz(VERSION, (req, res) => {
              if (rpc && isRpcRequest(req)) return rpc(req, res);
              routes(req, res);
            }),
            docsBase,
          ),
        ),
      );
    };
    // One budget per credential, whichever API its calls come through.
    const admit = createAdmission(ready, createRateLimiter(config.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE));
    const rpc = rpcHandler({ services: ready, log, maxBodyBytes: config.maxBodyBytes, surface: 'api' }, () =>
      import('./rpc/auth.ts').then(({ credentialCaller }) => credentialCaller(admit)),
    );
    content = createContentIndex({ services: ready, docsUrl: docsBase, apiUrl });
    // Searches and the site index show a page changed a moment ago, not one 5 s old.
    ready.publicPages.onInvalidate(content.invalidate);
    // Told when the stop begins, so the answers that stay open (MCP event streams) end first.
    const stopping = new AbortController();
    const apiApp = {
      ...common,
      services: ready,
      admit,
      content,
      apiUrl,
      dashboardUrl,
      metadataNetwork: config.metadataNetwork,
      version: VERSION,
      stopping: stopping.signal,
    };
    mount(api, apiGuard, async () => (await import('./rest/api-app.ts')).createApiApp(apiApp), rpc);
    const dashboardOrigins = dashboardOwnHosts.map((h) => `http://${h}`).concat(dashboardUrl);
    const dashboardRpc = rpcHandler({ services: ready, log, maxBodyBytes: config.maxBodyBytes, surface: 'dashboard' }, async () =>
      (await dashboardApp()).dashboardCaller(ready, dashboardOrigins),
    );
    mount(
      dashboard,
      dashboardGuard,
      async () =>
        (await dashboardApp()).createDashboardApp({
          ...common,
          services: ready,
          origins: dashboardOrigins,
          apiUrl,
          editorFolders: config.editorFolders,
          dashboardUrl,
          oidc: oidcSettings(config),
        }),
      dashboardRpc,
    );

    const signInUrl = `${dashboardUrl}/signin?token=${await ready.sessions.createSignInToken(ownerId)}`;
    ready.warmMail().catch((error: unknown) => log.error({ err: error }, 'loading the mail code failed'));
    // Named without its password, for the local tools' refusal to pass it over.
    const database = config.database === undefined ? undefined : (await import('./db/postgres.ts')).describePostgres(config.database);
    const record = recordRunning({ dataDir: config.dataDir, apiUrl, dashboardUrl, version: VERSION, database }, log);
    const checking = engine.start();
    return {
      apiUrl,
      dashboardUrl,
      ports: { api: api.port, dashboard: dashboard.port },
      signInUrl,
      ownerId,
      engine,
      checking,
      services: ready,
      db,
      async close() {
        // The command stops pointing at this service before it stops answering.
        record.remove();
        // Open event streams never finish by themselves: they end first, so the ports close at once.
        ready.live.close();
        ready.runners.close();
        stopping.abort();
        await Promise.all(listeners.map((l) => l.close()));
        // A start still reading the monitors finishes first, so the engine stops all it started.
        await checking.catch(() => undefined);
        await engine.close();
        clearInterval(prune);
        services?.pageHosts.stop();
        // Alerts and subscriber notifications still being sent are waited for (each delivery is bounded).
        await Promise.all([ready.alerts.close(), ready.subscribers.close()]);
        content?.close();
        ready.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await Promise.all(listeners.map((l) => l.close(0)));
    await engine.close();
    await services?.alerts.close();
    content?.close();
    services?.close();
    await db.destroy();
    throw error;
  }
}

/** Records where the service runs for the command (see service-record.ts); a service that cannot still runs. */
function recordRunning(record: Parameters<typeof recordService>[0], log: Logger): { remove(): void } {
  try {
    return recordService(record);
  } catch (error) {
    log.warn({ err: error }, 'cannot record the running service: commands will need --data-dir and --api-url');
    return { remove() {} };
  }
}

/** One log line per change of a monitor's state: down and degraded as warnings, a recovery as info. */
function logStateChange(db: Db, log: Logger): (change: MonitorStateChange) => void {
  return (change) => {
    // A first check that is up is not news.
    if (change.kind === 'checked') return;
    const { monitorId, from, to, message, kind } = change;
    monitorName(db, Number(monitorId))
      .then((name) => {
        const fields = { monitorId, name: name ?? null, from, to, message };
        const line = `monitor ${monitorId} "${name ?? '(deleted)'}" ${ALERT_SENTENCE[kind]}${kind === 'recovered' ? '' : `: ${message}`}`;
        if (kind === 'recovered') log.info(fields, line);
        else log.warn(fields, line);
      })
      .catch((error: unknown) => log.error({ err: error, monitorId }, 'logging a state change failed'));
  };
}
