/**
 * The service host: the desktop app runs this file (bundled as dist/desktop-host.js) in an
 * Electron utility process, and tests run it with child_process.fork. It starts the service when
 * the app says so, answers the app's requests, tells the app what it shows natively (desktop
 * alerts, consent requests, the health of the monitors), and closes the service cleanly when told
 * to stop or when the app goes away. See host-protocol.ts for the messages.
 */
import pino, { type Logger } from 'pino';
import { serviceConfig } from '../config.ts';
import type { Actor } from '../domain/actor.ts';
import { onAuditRecorded } from '../domain/audit/audit.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import { alertHeadline } from '../domain/public-words.ts';
import { NO_DESKTOP_APP } from '../delivery/outbound.ts';
import type { ConsentRequestView } from '../domain/oauth/consent.ts';
import { AppError } from '../errors.ts';
import { logDestination } from '../log-destination.ts';
import { type RunningService, startService } from '../main.ts';
import { coalesce, healthSummary } from './health-summary.ts';
import { type AppMessage, appMessageOf, type DesktopAlert, type HealthSummary, type HostMessage, type HostPorts, type StartMessage } from './host-protocol.ts';
import { type ParentChannel, parentChannel } from './parent-channel.ts';

/** Health is worked out at most this often, however many monitors change at once. */
const HEALTH_INTERVAL_MS = 500;

interface Started {
  service: RunningService;
  /** Tells the app what is already there: the health of the monitors, and consent requests still pending. */
  greet(): void;
  /** Stops listening to the service: alerts, consent requests, health. */
  detach(): Promise<void>;
}

const alertOf = (event: AlertEvent): DesktopAlert => ({
  kind: event.kind,
  monitorId: event.monitor.id,
  monitorName: event.monitor.name,
  workspaceName: event.workspace.name,
  workspaceSlug: event.workspace.slug,
  message: event.message,
  at: event.at,
  test: event.test === true,
  headline: alertHeadline(event),
});

const consentOf = (request: ConsentRequestView) => ({
  id: request.id,
  matchCode: request.matchCode,
  clientName: request.client.name,
  access: request.access,
  expiresAt: request.expiresAt,
});

/** A failure in words for a person: which port is taken, or what is wrong with the folder. */
function reasonOf(error: unknown, ports?: HostPorts): string {
  const failure = error as NodeJS.ErrnoException & { port?: number };
  if (failure.code === 'EADDRINUSE') {
    const which = failure.port === ports?.api ? 'the API port' : failure.port === ports?.dashboard ? 'the dashboard port' : 'the port';
    return `${which} ${failure.port} is already in use by another program: choose another port, or 0 for a free one`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The host's life: idle until `start`, then running until `stop`, the app going away, or a
 * termination signal, whichever comes first; a start that fails ends it at once.
 */
function runServiceHost(channel: ParentChannel, log: Logger): void {
  let starting: Promise<Started | undefined> | undefined;
  let stopping: Promise<void> | undefined;
  let exiting = false;

  /** Ends the host after its last message; only the first call counts. */
  async function exit(code: number, last: HostMessage): Promise<void> {
    if (exiting) return;
    exiting = true;
    await channel.send(last);
    log.flush();
    // A metric export to a collector that does not answer holds a socket until its own timeout;
    // a stopped host does not wait for it.
    process.exit(code);
  }

  async function start(message: StartMessage): Promise<Started | undefined> {
    let service: RunningService;
    try {
      const config = serviceConfig({
        dataDir: message.dataDir,
        host: '127.0.0.1',
        port: String(message.ports.api),
        dashboardPort: String(message.ports.dashboard),
      });
      const sealingKey = message.sealingKey === undefined ? undefined : Buffer.from(message.sealingKey, 'base64');
      service = await startService({ ...config, sealingKey }, log);
    } catch (error) {
      const reason = reasonOf(error, message.ports);
      log.error({ err: error }, `the service could not start: ${reason}`);
      if (!stopping) await exit(1, { type: 'failed', message: reason });
      return undefined;
    }
    const started = attach(service);
    // A service that cannot check its monitors stops, rather than answer as if it did.
    service.checking.catch((error: unknown) => {
      const reason = `the check engine could not start: ${reasonOf(error)}`;
      log.fatal({ err: error }, reason);
      stopping ??= started
        .detach()
        .then(() => service.close())
        .catch((closing: unknown) => log.error({ err: closing }, 'closing the service failed'))
        .then(() => exit(1, { type: 'failed', message: reason }));
    });
    const { apiUrl, dashboardUrl, ports } = service;
    await channel.send({ type: 'ready', apiUrl, dashboardUrl, ports });
    log.info({ apiUrl, dashboardUrl, dataDir: message.dataDir }, 'ready');
    started.greet();
    return started;
  }

  /** Forwards to the app what it shows natively. */
  function attach(service: RunningService): Started {
    const { services, engine } = service;
    const owner: Actor = { type: 'user', userId: service.ownerId, surface: 'dashboard' };
    const stopAlerts = services.onDesktopAlert((event) => {
      // Throwing records the alert as not delivered, with the reason.
      if (!channel.connected()) throw new AppError('PRECONDITION_FAILED', NO_DESKTOP_APP);
      void channel.send({ type: 'alert', alert: alertOf(event) });
    });
    const stopConsent = services.oauth.onRequested((request) => void channel.send({ type: 'consent', request: consentOf(request) }));

    let sent: string | undefined;
    const health = coalesce(async () => {
      let summary: HealthSummary;
      try {
        summary = await healthSummary(services, owner);
      } catch (error) {
        log.error({ err: error }, 'working out the health of the monitors failed');
        return;
      }
      // The tray needs news, not repeats: an unchanged summary is not sent again.
      const text = JSON.stringify(summary);
      if (text === sent) return;
      sent = text;
      await channel.send({ type: 'health', ...summary });
    }, HEALTH_INTERVAL_MS);
    // State changes come from the check engine; monitors created, paused or deleted leave an audit entry.
    const stopStates = engine.onStateChange(() => health.poke());
    const stopAudit = onAuditRecorded(() => health.poke());
    return {
      service,
      greet() {
        health.poke();
        // Requests made while the app was not running still wait for a decision: oldest first.
        services.oauth
          .pending(owner)
          .then((requests) => requests.reverse().forEach((request) => void channel.send({ type: 'consent', request: consentOf(request) })))
          .catch((error: unknown) => log.error({ err: error }, 'reading pending consent requests failed'));
      },
      async detach() {
        stopAlerts();
        stopConsent();
        stopStates();
        stopAudit();
        await health.stop();
      },
    };
  }

  async function signIn(): Promise<void> {
    const started = await starting;
    if (!started || stopping) return;
    const token = await started.service.services.sessions.createSignInToken(started.service.ownerId);
    await channel.send({ type: 'sign-in', url: `${started.service.dashboardUrl}/signin?token=${token}` });
  }

  /** Closes the service (requests and writes in flight finish), says so, and exits. */
  function stop(reason: string): Promise<void> {
    stopping ??= (async () => {
      log.info({ reason }, 'stopping');
      const started = await starting;
      try {
        await started?.detach();
        await started?.service.close();
      } catch (error) {
        log.error({ err: error }, 'closing the service failed');
        return exit(1, { type: 'failed', message: `closing the service failed: ${reasonOf(error)}` });
      }
      log.info('stopped');
      return exit(0, { type: 'stopped' });
    })();
    return stopping;
  }

  function receive(message: AppMessage): void {
    switch (message.type) {
      case 'start':
        if (starting || stopping) {
          log.warn('a start is ignored: the host was started already, or is stopping');
          return;
        }
        starting = start(message);
        return;
      case 'sign-in':
        if (!starting) {
          log.warn('a sign-in link was asked for before start');
          return;
        }
        signIn().catch((error: unknown) => log.error({ err: error }, 'making a sign-in link failed'));
        return;
      case 'stop':
        void stop('the app asked');
        return;
    }
  }

  channel.onMessage((data) => {
    let message: AppMessage;
    try {
      message = appMessageOf(data);
    } catch (error) {
      log.warn({ err: error }, 'a message from the app was ignored');
      return;
    }
    receive(message);
  });
  channel.onClose(() => void stop('the app went away'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

function main(): void {
  const log = pino({ level: process.env.STATUSDESK_LOG_LEVEL ?? 'info', base: undefined }, logDestination());
  const channel = parentChannel();
  if (!channel) {
    process.stderr.write('statusdesk: the service host is started by the desktop app (or child_process.fork), not by hand; use `statusdesk serve`\n');
    process.exit(2);
  }
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'the service host failed');
    log.flush();
    void channel.send({ type: 'failed', message: `the service host failed: ${error.message}` }).finally(() => process.exit(1));
  });
  runServiceHost(channel, log);
}

main();
