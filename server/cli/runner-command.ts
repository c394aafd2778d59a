import { hostname } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';
import pino from 'pino';
import { ALLOW_SETTING, type AllowedDestination, createDestinationPolicy, parseAllowList } from '../domain/destinations.ts';
import { logDestination } from '../log-destination.ts';
import { VERSION } from '../package-root.ts';
import { DEFAULT_BUFFER_MAX } from '../runner/buffer.ts';
import { startRunner } from '../runner/runner.ts';
import { type Command, count, note, str } from './flags.ts';
import { UsageError } from './output.ts';

/** `statusdesk runner`: a private location's runner in the foreground, until SIGINT or SIGTERM, or until the service refuses it. */
export const runnerCommand: Command = {
  usage: 'runner --api-url URL --token TOKEN [--data-dir D] [--buffer-max N] [--concurrency N] [--allow-commands]',
  summary: "run a private location's checks on this machine and send their results to the service, until stopped",
  options: {
    'api-url': { type: 'string', valueName: 'URL', description: 'the service address (default: SERVICE_API_URL)' },
    token: { type: 'string', valueName: 'TOKEN', description: "the location's token, svc_run_... (default: STATUSDESK_RUNNER_TOKEN)" },
    'data-dir': {
      type: 'string',
      valueName: 'DIR',
      description: "the runner's folder, where its buffer is (default: runner in the platform's app-data folder)",
    },
    'buffer-max': { type: 'string', valueName: 'N', description: `results the buffer holds at most, the oldest dropped first (default ${DEFAULT_BUFFER_MAX})` },
    concurrency: { type: 'string', valueName: 'N', description: 'most checks in flight at once (default 500)' },
    'allow-commands': {
      type: 'boolean',
      description:
        "run the programs of stdio MCP monitors on this machine (default: they are checked as down, saying so); each runs with only its monitor's environment",
    },
  },
  async run(values) {
    const apiUrl = str(values, 'api-url') || process.env.SERVICE_API_URL;
    const token = str(values, 'token') || process.env.STATUSDESK_RUNNER_TOKEN;
    if (!apiUrl) throw new UsageError('--api-url (or SERVICE_API_URL) is required: the address of the service');
    const url = URL.parse(apiUrl);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host)
      throw new UsageError(`--api-url must be a URL such as http://localhost:3000, got "${apiUrl}"`);
    if (!token) throw new UsageError("--token (or STATUSDESK_RUNNER_TOKEN) is required: the private location's token");
    const positive = (flag: string) => {
      const n = count(flag, str(values, flag));
      if (n === 0) throw new UsageError(`--${flag} must be 1 or more`);
      return n;
    };
    const bufferMax = positive('buffer-max');
    const concurrency = positive('concurrency');
    const dataDir = str(values, 'data-dir') || join(envPaths('statusdesk', { suffix: '' }).data, 'runner');
    let allow: AllowedDestination[];
    try {
      allow = parseAllowList(process.env[ALLOW_SETTING] ?? '');
    } catch (error) {
      throw new UsageError(`${ALLOW_SETTING}: ${(error as Error).message}`);
    }
    // JSON lines on stderr, as the service's logs to a file.
    const log = pino({ level: process.env.STATUSDESK_LOG_LEVEL || 'info', base: undefined }, logDestination());
    const runner = startRunner({
      apiUrl: url.toString().replace(/\/+$/, ''),
      token,
      dataDir,
      bufferMax,
      concurrency,
      log,
      version: VERSION,
      hostname: hostname(),
      destinations: createDestinationPolicy({ allow }),
      allowCommands: values['allow-commands'] === true,
    });
    log.info({ apiUrl: url.origin, dataDir, instanceId: runner.instanceId, allowCommands: values['allow-commands'] === true }, 'runner started');
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      void runner.stop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const end = await runner.done;
    log.flush();
    if (end.refused === undefined) return 0;
    note(`statusdesk runner: ${end.refused}`);
    return 2;
  },
};
