/**
 * What the end-to-end tests of private locations need beside the service: `statusdesk runner` as a
 * child process of the bundle, a loopback TCP proxy between a runner and the service that can be
 * cut and restored, a workspace whose owner calls the service through the client library, and the
 * RunnerService as a runner calls it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before } from 'node:test';
import { type Client, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createClient as createStatusdeskClient, Periodicity, privateLocationV1, type StatusdeskClient } from '../../client/index.ts';
import { RunnerService } from '../../proto/gen/runner/v1/runner_pb.js';
import { startTcpListener, type TcpListener } from './grpc-peers.ts';
import { CLI, newWorkspace, perTestCleanup, startTestService, type TestService, withHeaders } from './harness.ts';
import { queryRows } from './database.ts';
import { eventually } from './wait.ts';

export interface RunnerProcess {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  /** Resolves with its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<number | null>;
}

/** `statusdesk runner` run from the bundle, as a user starts it, with its buffer in `dataDir`. */
export function startRunner(options: { apiUrl: string; token: string; dataDir: string; args?: string[]; env?: NodeJS.ProcessEnv }): RunnerProcess {
  const child = spawn(
    process.execPath,
    [CLI, 'runner', '--api-url', options.apiUrl, '--token', options.token, '--data-dir', options.dataDir, ...(options.args ?? [])],
    {
      env: { ...process.env, STATUSDESK_LOG_LEVEL: 'info', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface CuttableProxy {
  port: number;
  url: string;
  /** Where connections are forwarded: 127.0.0.1:target. May be set after the proxy starts. */
  target: number;
  /** Whether connections are forwarded. */
  open: boolean;
  /** Destroys every forwarded connection and refuses (resets) new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to 127.0.0.1:`target`, standing for the network between a runner and the
 * service. Cut, it resets every connection at once, as a link that went down and a peer that
 * answers with a reset would.
 */
export async function startProxy(target = 0): Promise<CuttableProxy> {
  const pairs = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    inbound.on('error', () => {});
    if (!proxy.open) return void inbound.resetAndDestroy();
    const outbound = net.connect({ host: '127.0.0.1', port: proxy.target });
    outbound.on('error', () => inbound.destroy());
    inbound.on('error', () => outbound.destroy());
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
    pairs.add(inbound).add(outbound);
    inbound.once('close', () => pairs.delete(inbound));
    outbound.once('close', () => pairs.delete(outbound));
    inbound.pipe(outbound).pipe(inbound);
  });
  const proxy: CuttableProxy = {
    port: 0,
    url: '',
    target,
    open: true,
    cut() {
      proxy.open = false;
      for (const socket of pairs) socket.resetAndDestroy();
      pairs.clear();
    },
    restore() {
      proxy.open = true;
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as net.AddressInfo).port;
  proxy.url = `http://127.0.0.1:${proxy.port}`;
  return proxy;
}

/** The address of a service's API port on 127.0.0.1, as a runner is given it, whatever OAUTH_ISSUER says. */
export const runnerApiUrl = (service: TestService) => `http://127.0.0.1:${service.ports.api}`;

/** The RunnerService at `apiUrl`, called as a runner calls it: with its location's token. */
export const runnerRpc = (apiUrl: string, token: string): Client<typeof RunnerService> =>
  createClient(
    RunnerService,
    createConnectTransport({ baseUrl: `${apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withHeaders({ authorization: `Bearer ${token}` })] }),
  );

/** A location as a test uses it: its id, its name and its token, shown once. */
export interface TestLocation {
  id: string;
  name: string;
  token: string;
}

/** A workspace of its own on the `scale` plan (30 s checks), with a write key and the two services' clients. */
export interface RunnerWorkspace {
  id: string;
  key: string;
  /** The client library's monitors and private locations, with the key. */
  monitors: StatusdeskClient['monitors'];
  locations: StatusdeskClient['privateLocations'];
  /** Creates a private location named `prefix-` and random hex. */
  location(prefix: string): Promise<TestLocation>;
  /** A TCP monitor of `uri` every 30 s, without retries, checked from `locationIds` only; its id. */
  tcpMonitor(uri: string, locationIds: string[]): Promise<string>;
  /** Waits until the location's status is `status` (ListPrivateLocations); bounded by `timeoutMs`. */
  locationStatus(id: string, status: 'active' | 'error', timeoutMs?: number): Promise<void>;
}

export async function runnerWorkspace(service: TestService, prefix: string): Promise<RunnerWorkspace> {
  const workspace = await newWorkspace(service, prefix);
  const key = (await service.createKey('write', workspace.slug)).secret;
  const { monitors, privateLocations: locations } = createStatusdeskClient({ baseUrl: `${runnerApiUrl(service)}/rpc`, apiKey: key, env: {} });
  const wanted = { active: privateLocationV1.PrivateLocationStatus.ACTIVE, error: privateLocationV1.PrivateLocationStatus.ERROR };
  return {
    id: workspace.id,
    key,
    monitors,
    locations,
    async location(name) {
      const created = await locations.createPrivateLocation({ name: `${name}-${randomBytes(4).toString('hex')}` });
      return { id: created.privateLocation!.id, name: created.privateLocation!.name, token: created.token };
    },
    async tcpMonitor(uri, locationIds) {
      const created = await monitors.createTCPMonitor({
        monitor: { name: `tcp ${uri}`, uri, periodicity: Periodicity.PERIODICITY_30S, retry: 0, timeout: { seconds: 5n }, privateLocations: locationIds },
      });
      return created.monitor!.id;
    },
    async locationStatus(id, status, timeoutMs = 15_000) {
      const read = async () => (await locations.listPrivateLocations({})).privateLocations.find((l) => l.id === id)?.status;
      // Up to a minute of waiting: four calls a second stay far within the key's 1,200 a minute.
      await eventually(read, (s) => s === wanted[status], `location ${id} ${status}`, timeoutMs, 250);
    },
  };
}

/** A stored check result, as the tests read it. */
export interface ResultRow {
  runner: string;
  regions: string;
  started_at: number;
  result: string;
}

/** The stored results of a monitor, oldest first, read from the service's database. */
export const resultsOf = (service: TestService, monitorId: string): Promise<ResultRow[]> =>
  queryRows<ResultRow>(
    service.dataDir,
    'SELECT runner, regions, started_at, result FROM check_results WHERE monitor_id = ? ORDER BY started_at, id',
    Number(monitorId),
  );

/** Waits until the monitor has a stored result of `runner`, and gives them all; bounded by `timeoutMs`. */
export const resultsFrom = (service: TestService, monitorId: string, runner: string, timeoutMs = 20_000): Promise<ResultRow[]> =>
  eventually(
    () => resultsOf(service, monitorId),
    (rows) => rows.some((r) => r.runner === runner),
    `a result of ${runner} for monitor ${monitorId}`,
    timeoutMs,
  );

/** A service and a loopback TCP target shared by a file's tests, and runners each test starts. */
export interface RunnerService {
  service: TestService;
  target: TcpListener;
  /** A runner of `token` (to the service unless `apiUrl` says otherwise) with a buffer folder of its own, killed after the test. */
  runner(token: string, apiUrl?: string): Promise<RunnerProcess>;
}

/** Starts a RunnerService before the file's tests and stops it after them; its fields are set once they start. */
export function useRunnerService(): RunnerService {
  const cleanup = perTestCleanup();
  const shared: RunnerService = {
    service: undefined as unknown as TestService,
    target: undefined as unknown as TcpListener,
    async runner(token, apiUrl = runnerApiUrl(shared.service)) {
      const started = startRunner({ apiUrl, token, dataDir: await cleanup.folder() });
      cleanup.children.push(started.child);
      return started;
    },
  };
  before(async () => {
    shared.service = await startTestService();
    shared.target = await startTcpListener();
  });
  after(async () => {
    await shared.target?.close();
    await shared.service?.stop();
  });
  return shared;
}
