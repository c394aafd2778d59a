import pino, { type Logger } from 'pino';
import { serviceConfig, settingHelp } from '../config.ts';
import { AppError } from '../errors.ts';
import { logDestination } from '../log-destination.ts';
import { startService } from '../main.ts';
import { type Command, dataDir, str } from './flags.ts';

/** `statusdesk serve`: the service in the foreground, until SIGINT or SIGTERM. */
export const serveCommand: Command = {
  usage: 'serve [--data-dir D] [--database URL] [--port P] [--dashboard-port Q] [--host H]',
  summary: 'run the service in the foreground until stopped: the API, MCP and OAuth port and the dashboard port',
  options: {
    ...dataDir,
    database: { type: 'string', valueName: 'URL', description: settingHelp('database') },
    port: { type: 'string', valueName: 'PORT', description: settingHelp('port') },
    'dashboard-port': { type: 'string', valueName: 'PORT', description: settingHelp('dashboardPort') },
    host: { type: 'string', valueName: 'HOST', description: settingHelp('host') },
  },
  async run(values) {
    const config = serviceConfig({
      dataDir: str(values, 'data-dir'),
      database: str(values, 'database'),
      port: str(values, 'port'),
      dashboardPort: str(values, 'dashboard-port'),
      host: str(values, 'host'),
    });
    const log = await logger(config.logLevel);
    let service;
    try {
      service = await startService(config, log);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new AppError(
          'CONFLICT',
          `${(error as NodeJS.ErrnoException & { port?: number }).port ?? 'a'} port is already in use; pass --port or --dashboard-port (0 picks a free port)`,
        );
      throw error;
    }
    const { apiUrl, dashboardUrl, signInUrl } = service;
    process.stdout.write(`${JSON.stringify({ event: 'ready', apiUrl, dashboardUrl, signInUrl })}\n`);
    log.info({ apiUrl, dashboardUrl, dataDir: config.dataDir }, 'ready');
    const code = await new Promise<number>((resolve) => {
      let closing = false;
      const shutDown = (code: number) => {
        if (closing) return;
        closing = true;
        service.close().then(
          () => resolve(code),
          (error: unknown) => {
            log.error({ err: error }, 'shutdown failed');
            resolve(code);
          },
        );
      };
      const stop = (signal: string) => {
        log.info({ signal }, 'shutting down');
        shutDown(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // A service that cannot check its monitors stops, rather than answer as if it did.
      service.checking.catch((error: unknown) => {
        log.fatal({ err: error }, 'the check engine could not start: shutting down');
        shutDown(1);
      });
    });
    log.flush();
    // A metric export to a collector that does not answer holds a socket until its own timeout;
    // a stopped service does not wait for it.
    process.exit(code);
  },
};

/**
 * Logs on stderr: a line to read on a terminal, a JSON line each for programs and files. The
 * pretty printer is loaded only for a terminal.
 */
async function logger(level: string): Promise<Logger> {
  const options = { level, base: undefined };
  if (!process.stderr.isTTY) return pino(options, logDestination());
  const { default: pretty } = await import('pino-pretty');
  return pino(options, pretty({ destination: 2, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss' }));
}
