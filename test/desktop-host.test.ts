// The desktop app's service host as the app runs it: a child process (the bundle dist/desktop-host.js,
// forked as Electron's utilityProcess.fork does) that is told to start on a data folder, answers
// on its message channel, and closes cleanly when told to or when its parent goes away.
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { withLocalOwner } from '../server/cli/local.ts';
import { DATABASE_FILE } from '../server/db/open.ts';
import { coalesce } from '../server/desktop/health-summary.ts';
import { appMessageOf, type HostMessage, hostMessageOf, ProtocolError } from '../server/desktop/host-protocol.ts';
import { NO_DESKTOP_APP } from '../server/delivery/outbound.ts';
import { createSealer, KEY_FILE, KEY_HELD_FILE } from '../server/domain/sealing.ts';
import { packageRoot } from '../server/package-root.ts';
import { perTestCleanup, readRows, rejectsWith, sessionTokenOf, startTestService } from './support/harness.ts';
import { authorizeUrl, pkce, registerClient, startReceiver, TestBrowser } from './support/oauth-peers.ts';
import { eventually } from './support/wait.ts';
import { sqliteOnly } from './support/database.ts';

const HOST = join(packageRoot, 'dist', 'desktop-host.js');
/** Every wait gives up after this long, so a host that never answers fails the test instead of hanging it. */
const WAIT_MS = 15_000;
const POLL_MS = 20;

const cleanup = perTestCleanup();

type Message<T extends HostMessage['type']> = Extract<HostMessage, { type: T }>;

interface Host {
  child: ChildProcess;
  /** Every message received, each checked against the protocol. */
  messages: HostMessage[];
  /** The first message of `type` (received or to come) for which `where` holds. */
  waitFor<T extends HostMessage['type']>(type: T, where?: (message: Message<T>) => boolean): Promise<Message<T>>;
  /** The exit code; resolves when the host has exited. */
  exited: Promise<number | null>;
  stderr(): string;
}

/** The host as a child process with its message channel, not yet started. */
function forkHost(env: NodeJS.ProcessEnv = {}): Host {
  assert.ok(existsSync(HOST), `${HOST} is missing: run npm run build`);
  // Monitors are checked only when a test triggers them.
  const child = fork(HOST, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, STATUSDESK_CHECKS: 'off', ...env } });
  cleanup.children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const messages: HostMessage[] = [];
  const invalid: string[] = [];
  child.on('message', (data) => {
    try {
      messages.push(hostMessageOf(data));
    } catch (error) {
      invalid.push(`${(error as Error).message}: ${JSON.stringify(data)}`);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    messages,
    async waitFor(type, where = () => true) {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        assert.deepEqual(invalid, [], 'the host sent a message outside the protocol');
        const found = messages.find((m): m is Message<typeof type> => m.type === type && where(m as Message<typeof type>));
        if (found) return found;
        const ended = child.exitCode !== null || child.signalCode !== null;
        assert.ok(
          !ended && Date.now() < deadline,
          `no ${type} message came (${ended ? `the host exited with ${child.exitCode}` : 'timed out'}); got ${JSON.stringify(messages)}; stderr: ${stderr}`,
        );
        await sleep(POLL_MS);
      }
    },
    exited,
    stderr: () => stderr,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fork told to start on `dataDir` (free ports unless told), waited for until ready. */
async function startHost(dataDir: string, options: { sealingKey?: Buffer; env?: NodeJS.ProcessEnv } = {}): Promise<Host & { ready: Message<'ready'> }> {
  const host = forkHost(options.env);
  host.child.send({
    type: 'start',
    dataDir,
    ports: { api: 0, dashboard: 0 },
    ...(options.sealingKey ? { sealingKey: options.sealingKey.toString('base64') } : {}),
  });
  const ready = await host.waitFor('ready');
  return { ...host, ready };
}

/** Waits for the exit, bounded. */
async function exitOf(host: Host): Promise<number | null> {
  const timeout = sleep(WAIT_MS).then(() => 'timed out' as const);
  const code = await Promise.race([host.exited, timeout]);
  assert.notEqual(code, 'timed out', `the host did not exit; stderr: ${host.stderr()}`);
  return code as number | null;
}

/** A read & write client of the host's personal workspace, with a key made on the data folder. */
async function writeClient(dataDir: string, apiUrl: string): Promise<{ client: StatusdeskClient; workspace: { id: string; name: string; slug: string } }> {
  const { secret, workspace } = await withLocalOwner(dataDir, async (services, owner) => {
    const ws = await services.workspaces.getBySlug(owner, 'personal');
    const { secret } = await services.keys.create(owner, { workspaceId: Number(ws.id), name: 'desktop test', scope: 'write' });
    return { secret, workspace: { id: ws.id, name: ws.name, slug: ws.slug } };
  });
  return { client: createClient({ baseUrl: `${apiUrl}/rpc`, apiKey: secret, env: {} }), workspace };
}

/** A TCP listener on loopback that accepts and hangs up: a monitor of it is up until it closes. */
async function tcpTarget(): Promise<{ server: Server; uri: string; close(): Promise<void> }> {
  const server = createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, uri: `127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A TCP monitor that fails at once when its target is gone. */
async function createTcpMonitor(client: StatusdeskClient, name: string, uri: string): Promise<string> {
  const created = await client.monitors.createTCPMonitor({
    monitor: { name, uri, periodicity: Periodicity.PERIODICITY_1M, retry: 0, timeout: { seconds: 2n } },
  });
  return created.monitor!.id;
}

/** The rows once there are some: the host writes them a moment after it tells the app. */
function waitForRows<T>(dataDir: string, sql: string, ...params: unknown[]): Promise<T[]> {
  return eventually(
    () => readRows<T>(dataDir, sql, ...params),
    (rows) => rows.length > 0,
    `rows for ${sql}`,
    WAIT_MS,
  );
}

/** Opens an authorization of a new loopback client in a browser, up to the waiting page: the consent request's id. */
async function askConsent(apiUrl: string, dashboardUrl: string, clientName: string): Promise<{ requestId: string; browser: TestBrowser }> {
  const receiver = await startReceiver();
  try {
    const client = await registerClient(apiUrl, [receiver.redirectUri()], clientName);
    const browser = new TestBrowser();
    const hops = await browser.open(
      authorizeUrl(apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: receiver.redirectUri(),
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        scope: 'read',
        state: 'desk',
      }),
    );
    const waiting = new URL(hops.at(-1)!.url);
    assert.equal(`${waiting.origin}${waiting.pathname}`, `${dashboardUrl}/oauth/consent`);
    return { requestId: waiting.searchParams.get('request')!, browser };
  } finally {
    await receiver.close();
  }
}

describe('the messages between the app and the host', { skip: sqliteOnly }, () => {
  test('a start needs an absolute data folder, ports from 0 to 65535, and a sealing key of 32 bytes in base64', () => {
    const key = randomBytes(32).toString('base64');
    assert.deepEqual(appMessageOf({ type: 'start', dataDir: '/data', ports: { api: 0, dashboard: 3001 }, sealingKey: key }), {
      type: 'start',
      dataDir: '/data',
      ports: { api: 0, dashboard: 3001 },
      sealingKey: key,
    });
    const refused = (message: unknown, reason: RegExp) =>
      assert.throws(
        () => appMessageOf(message),
        (error: unknown) => error instanceof ProtocolError && reason.test(error.message),
      );
    refused({ type: 'start', dataDir: 'data', ports: { api: 0, dashboard: 0 } }, /dataDir: must be an absolute path/);
    refused({ type: 'start', dataDir: '/data', ports: { api: 70000, dashboard: 0 } }, /ports\.api/);
    refused(
      { type: 'start', dataDir: '/data', ports: { api: 0, dashboard: 0 }, sealingKey: randomBytes(16).toString('base64') },
      /sealingKey: must be 32 bytes in base64/,
    );
    refused({ type: 'start', dataDir: '/data', ports: { api: 0, dashboard: 0 }, sealingKey: `${key.slice(0, -2)}!=` }, /sealingKey/);
    refused({ type: 'restart' }, /not a message of the desktop app/);
    refused('stop', /not a message of the desktop app/);
    assert.deepEqual(appMessageOf({ type: 'sign-in' }), { type: 'sign-in' });
    assert.deepEqual(appMessageOf({ type: 'stop' }), { type: 'stop' });
  });

  test('the app checks the host’s messages the same way', () => {
    assert.deepEqual(hostMessageOf({ type: 'failed', message: 'the API port 3000 is already in use' }), {
      type: 'failed',
      message: 'the API port 3000 is already in use',
    });
    assert.throws(
      () => hostMessageOf({ type: 'health', overall: 'fine', down: [], counts: { up: 0, degraded: 0, down: 0, pending: 0, paused: 0 } }),
      ProtocolError,
    );
    assert.throws(
      () => hostMessageOf({ type: 'consent', request: { id: 'x', matchCode: 'ABCD-EFGH', clientName: 'x', access: 'admin', expiresAt: 'x' } }),
      ProtocolError,
    );
  });

  test('health is worked out once for a burst of changes, and once more for changes during a run', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_800_000_000_000 });
    let runs = 0;
    let release: () => void = () => {};
    const health = coalesce(async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    }, 10);
    for (let i = 0; i < 1000; i++) health.poke();
    t.mock.timers.tick(0);
    assert.equal(runs, 1, 'one run for the burst');
    for (let i = 0; i < 1000; i++) health.poke();
    release();
    await turn();
    assert.equal(runs, 1, 'the run for the changes made during the first waits for the interval');
    t.mock.timers.tick(10);
    assert.equal(runs, 2, 'the run for the changes made during the first never came');
    release();
    await turn();
    t.mock.timers.tick(50);
    assert.equal(runs, 2);
    await health.stop();
    health.poke();
    t.mock.timers.tick(50);
    assert.equal(runs, 2, 'a stopped health check ran again');
  });
});

describe('the service host', { skip: sqliteOnly }, () => {
  test('ready with working addresses on the ports it took: the API refuses a call without a key, the dashboard serves the UI', async () => {
    const host = await startHost(await cleanup.folder());
    const { apiUrl, dashboardUrl, ports } = host.ready;
    assert.ok(ports.api > 0 && ports.dashboard > 0 && ports.api !== ports.dashboard, JSON.stringify(ports));
    assert.equal(new URL(apiUrl).port, String(ports.api));
    assert.equal(new URL(dashboardUrl).port, String(ports.dashboard));
    const whoami = await fetch(`${apiUrl}/v1/whoami`, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(whoami.status, 401);
    const ui = await fetch(`${dashboardUrl}/`, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /<div id="root"><\/div>/);
    // The host answers on loopback only.
    const beyond = await fetch(`http://127.0.0.1:${ports.api}/v1/whoami`, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(beyond.status, 401);
    const health = await host.waitFor('health');
    assert.deepEqual(health, { type: 'health', overall: 'unknown', down: [], counts: { up: 0, degraded: 0, down: 0, pending: 0, paused: 0 } });
  });

  test('a sign-in link on request: a loopback address on the dashboard port that signs a browser in, once', async () => {
    const host = await startHost(await cleanup.folder());
    host.child.send({ type: 'sign-in' });
    const { url } = await host.waitFor('sign-in');
    const link = new URL(url);
    assert.ok(['localhost', '127.0.0.1'].includes(link.hostname), url);
    assert.equal(link.port, String(host.ready.ports.dashboard));
    assert.equal(link.pathname, '/signin');
    const first = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(first.status, 200);
    assert.match(first.headers.getSetCookie().join('\n'), /^statusdesk_session=[^;]+;.*HttpOnly/im);
    assert.ok(sessionTokenOf(await first.text()));
    const again = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(again.status, 401);
    assert.deepEqual(again.headers.getSetCookie(), []);
    // Each request makes a new link.
    host.child.send({ type: 'sign-in' });
    const second = await host.waitFor('sign-in', (m) => m.url !== url);
    assert.equal((await fetch(second.url, { redirect: 'manual', signal: AbortSignal.timeout(WAIT_MS) })).status, 200);
  });

  test('a port already in use: failed, naming the port, and a non-zero exit', async () => {
    const taken = await tcpTarget();
    try {
      const port = Number(taken.uri.split(':')[1]);
      for (const [which, ports] of [
        ['API', { api: port, dashboard: 0 }],
        ['dashboard', { api: 0, dashboard: port }],
      ] as const) {
        const host = forkHost();
        host.child.send({ type: 'start', dataDir: await cleanup.folder(), ports });
        const failed = await host.waitFor('failed');
        assert.match(failed.message, new RegExp(`^the ${which} port ${port} is already in use`));
        assert.equal(await exitOf(host), 1);
        assert.ok(!host.messages.some((m) => m.type === 'ready'));
      }
    } finally {
      await taken.close();
    }
  });

  test('a data folder that cannot be used: failed with the reason, and a non-zero exit', async () => {
    const host = forkHost();
    host.child.send({ type: 'start', dataDir: join(HOST, 'data'), ports: { api: 0, dashboard: 0 } });
    const failed = await host.waitFor('failed');
    assert.match(failed.message, /desktop-host\.js\/data/);
    assert.equal(await exitOf(host), 1);
  });

  test('a desktop channel’s alert reaches the app when its monitor goes down; its test send is delivered while the app is there', async () => {
    const dataDir = await cleanup.folder();
    const host = await startHost(dataDir);
    const target = await tcpTarget();
    try {
      const { client, workspace } = await writeClient(dataDir, host.ready.apiUrl);
      const monitorId = await createTcpMonitor(client, 'desk db', target.uri);
      const channel = (
        await client.notifications.createNotificationChannel({ name: 'This computer', monitorIds: [monitorId], config: { case: 'desktop', value: {} } })
      ).channel!;
      assert.equal((await client.monitors.triggerMonitor({ id: monitorId })).results[0]!.result, 'up');
      await target.close();
      assert.equal((await client.monitors.triggerMonitor({ id: monitorId })).results[0]!.result, 'down');

      const { alert } = await host.waitFor('alert', (m) => m.alert.monitorId === monitorId);
      assert.deepEqual(
        { ...alert, message: '', at: '' },
        {
          kind: 'down',
          monitorId,
          monitorName: 'desk db',
          workspaceName: workspace.name,
          workspaceSlug: workspace.slug,
          message: '',
          at: '',
          test: false,
          headline: 'desk db is down',
        },
      );
      assert.match(alert.message, /refused|ECONNREFUSED/i);
      assert.ok(Date.parse(alert.at) <= Date.now());
      const recorded = await waitForRows<{ deliveries: string }>(dataDir, 'select deliveries from alerts where monitor_id = ?', Number(monitorId));
      assert.deepEqual(JSON.parse(recorded[0]!.deliveries), [{ channelId: channel.id, ok: true, error: null }]);

      const sent = await client.notifications.sendTestNotification({ id: channel.id });
      assert.deepEqual([sent.delivered, sent.error], [true, '']);
      const shown = await host.waitFor('alert', (m) => m.alert.test);
      assert.equal(shown.alert.workspaceName, workspace.name);
      assert.match(shown.alert.message, /test alert for the channel "This computer"/);
    } finally {
      await target.close().catch(() => {});
    }
  });

  test('without a desktop app, a desktop channel’s test send and alerts fail with the reason', async () => {
    const svc = await startTestService();
    try {
      const owner = { type: 'user' as const, userId: svc.ownerId, surface: 'cli' as const };
      const ws = Number((await svc.services.workspaces.getBySlug(owner, 'personal')).id);
      const monitor = await svc.services.monitors.create(owner, ws, 'tcp', { name: 'unwatched', uri: 'db.internal:5432', periodicity: '1m' });
      const channel = await svc.services.channels.create(owner, ws, { name: 'This computer', kind: 'desktop', monitorIds: [monitor.id] });
      assert.deepEqual(await svc.services.channels.test(owner, ws, channel.id), { delivered: false, error: NO_DESKTOP_APP });
      const alert = await svc.services.alerts.stateChanged({
        monitorId: monitor.id,
        workspaceId: String(ws),
        from: 'up',
        to: 'down',
        kind: 'down',
        at: new Date().toISOString(),
        message: 'connection refused',
      });
      assert.deepEqual(alert?.deliveries, [{ channelId: channel.id, ok: false, error: NO_DESKTOP_APP }]);
      // An app that listens gets it, and the send is delivered.
      const shown: string[] = [];
      const stop = svc.services.onDesktopAlert((event) => void shown.push(event.monitor.name));
      try {
        assert.deepEqual(await svc.services.channels.test(owner, ws, channel.id), { delivered: true, error: null });
        assert.deepEqual(shown, ['Test monitor']);
      } finally {
        stop();
      }
      assert.equal((await svc.services.channels.test(owner, ws, channel.id)).delivered, false);
    } finally {
      await svc.stop();
    }
  });

  test('a pending consent request reaches the app with the matching code its waiting page shows', async () => {
    const host = await startHost(await cleanup.folder());
    const { apiUrl, dashboardUrl } = host.ready;
    const { requestId, browser } = await askConsent(apiUrl, dashboardUrl, 'Desk editor');
    const page = await browser.fetch(`${dashboardUrl}/oauth/consent/requests/${requestId}`);
    assert.equal(page.status, 200);
    const shown = (await page.json()) as { matchCode: string; expiresAt: string };

    const { request } = await host.waitFor('consent', (m) => m.request.id === requestId);
    assert.deepEqual(request, { id: requestId, matchCode: shown.matchCode, clientName: 'Desk editor', access: 'read', expiresAt: shown.expiresAt });
    assert.match(request.matchCode, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  });

  test('consent requests still pending from before the host started reach the app at start', async () => {
    const dataDir = await cleanup.folder();
    const svc = await startTestService({}, dataDir);
    let requestId: string;
    try {
      ({ requestId } = await askConsent(svc.apiUrl, svc.dashboardUrl, 'Early editor'));
    } finally {
      await svc.close();
    }
    const host = await startHost(dataDir);
    const { request } = await host.waitFor('consent', (m) => m.request.id === requestId);
    assert.equal(request.clientName, 'Early editor');
  });

  test('health: up, then down listing the monitor, then paused, then nothing once it is deleted', async () => {
    const dataDir = await cleanup.folder();
    const host = await startHost(dataDir);
    const target = await tcpTarget();
    try {
      const { client, workspace } = await writeClient(dataDir, host.ready.apiUrl);
      const monitorId = await createTcpMonitor(client, 'tray db', target.uri);
      const counts = (changes: Partial<Message<'health'>['counts']>) => ({ up: 0, degraded: 0, down: 0, pending: 0, paused: 0, ...changes });
      await host.waitFor('health', (m) => m.counts.pending === 1);

      await client.monitors.triggerMonitor({ id: monitorId });
      const up = await host.waitFor('health', (m) => m.overall === 'up');
      assert.deepEqual([up.down, up.counts], [[], counts({ up: 1 })]);

      await target.close();
      await client.monitors.triggerMonitor({ id: monitorId });
      const down = await host.waitFor('health', (m) => m.overall === 'down');
      assert.deepEqual([down.down, down.counts], [[{ monitorId, name: 'tray db', workspaceId: workspace.id }], counts({ down: 1 })]);

      await client.monitors.updateTCPMonitor({ id: monitorId, monitor: { active: false } });
      const paused = await host.waitFor('health', (m) => m.counts.paused === 1);
      assert.deepEqual([paused.overall, paused.down, paused.counts], ['unknown', [], counts({ paused: 1 })]);

      await client.monitors.deleteMonitor({ id: monitorId });
      const gone = host.messages.length;
      await host.waitFor('health', (m) => host.messages.indexOf(m) >= gone);
      assert.deepEqual(host.messages.at(-1), { type: 'health', overall: 'unknown', down: [], counts: counts({}) });
    } finally {
      await target.close().catch(() => {});
    }
  });

  test('stop: writes acknowledged before it are in the database, stopped comes, and the exit code is 0', async () => {
    const dataDir = await cleanup.folder();
    const host = await startHost(dataDir);
    const { client } = await writeClient(dataDir, host.ready.apiUrl);
    // Writes in flight when the app says stop: each that was answered is kept.
    const writes = Array.from({ length: 20 }, (_, i) => createTcpMonitor(client, `kept ${i}`, `db${i}.internal:5432`));
    const first = await Promise.race(writes);
    host.child.send({ type: 'stop' });
    const settled = await Promise.allSettled(writes);
    await host.waitFor('stopped');
    assert.equal(await exitOf(host), 0);
    // A clean close checkpoints the write-ahead log into the database and removes it.
    assert.equal(existsSync(join(dataDir, `${DATABASE_FILE}-wal`)), false, 'the database was not closed');
    const acknowledged = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    assert.ok(acknowledged.includes(first));
    const stored = readRows<{ id: number }>(dataDir, 'select id from monitors').map((r) => String(r.id));
    for (const id of acknowledged) assert.ok(stored.includes(id), `monitor ${id} was acknowledged but is not in the database`);
    assert.match(host.stderr(), /"reason":"the app asked"/);
  });

  test('the app going away (its channel closing) makes the host close the service and exit', async () => {
    const dataDir = await cleanup.folder();
    const host = await startHost(dataDir);
    host.child.disconnect();
    assert.equal(await exitOf(host), 0);
    assert.match(host.stderr(), /"reason":"the app went away"/);
    await assert.rejects(fetch(`${host.ready.apiUrl}/v1/whoami`, { signal: AbortSignal.timeout(WAIT_MS) }), 'the API port still answers');
    assert.equal(existsSync(join(dataDir, `${DATABASE_FILE}-wal`)), false, 'the database was not closed');
  });

  test('a termination signal (how the app ends a utility process) closes the service: stopped, and exit code 0', async () => {
    const dataDir = await cleanup.folder();
    const host = await startHost(dataDir);
    host.child.kill('SIGTERM');
    await host.waitFor('stopped');
    assert.equal(await exitOf(host), 0);
    assert.equal(existsSync(join(dataDir, `${DATABASE_FILE}-wal`)), false, 'the database was not closed');
  });

  test('a host given a sealing key seals with it, and makes no key file in the data folder', async () => {
    const dataDir = await cleanup.folder();
    const key = randomBytes(32);
    const host = await startHost(dataDir, { sealingKey: key });
    const { client } = await writeClient(dataDir, host.ready.apiUrl);
    const secret = `whsec-${randomBytes(8).toString('hex')}`;
    const channel = (
      await client.notifications.createNotificationChannel({ name: 'Sealed', config: { case: 'webhook', value: { url: 'http://127.0.0.1:9/hook', secret } } })
    ).channel!;
    host.child.send({ type: 'stop' });
    assert.equal(await exitOf(host), 0);

    const [row] = readRows<{ credentials: string }>(dataDir, 'select credentials from notification_channels where id = ?', Number(channel.id));
    assert.ok(row && !row.credentials.includes(secret), 'the credential is stored in the clear');
    assert.equal(createSealer(key).open<{ secret: string }>(row.credentials).secret, secret);
    assert.throws(() => createSealer(randomBytes(32)).open(row.credentials), 'another key opens it');
    assert.equal(existsSync(join(dataDir, KEY_FILE)), false, `${KEY_FILE} was made although the app holds the key`);
    assert.ok(existsSync(join(dataDir, KEY_HELD_FILE)), 'nothing in the folder says where its key is');
  });

  test('commands on a folder whose key the app holds do what needs no key, refuse what does, and make no key file', async () => {
    const dataDir = await cleanup.folder();
    const svc = await startTestService({}, dataDir, { sealingKey: randomBytes(32) });
    await svc.close();
    await withLocalOwner(dataDir, async (services, owner) => {
      const ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
      await services.keys.create(owner, { workspaceId: ws, name: 'made on the folder', scope: 'read' });
      const refused = await rejectsWith(
        services.channels.create(owner, ws, {
          name: 'Hook',
          kind: 'webhook',
          config: { url: 'http://127.0.0.1:9/hook', secret: 'a-secret-of-sixteen-or-more' },
        }),
        'PRECONDITION_FAILED',
      );
      assert.match(refused.message, /sealed with a key the Statusdesk desktop app keeps/);
    });
    assert.equal(existsSync(join(dataDir, KEY_FILE)), false, `a command made ${KEY_FILE}`);
  });

  test('a data folder with its own key file: the app’s key must be that key', async () => {
    const dataDir = await cleanup.folder();
    // A folder first used by `statusdesk serve` (which makes the key file).
    const svc = await startTestService({}, dataDir);
    await svc.close();
    const own = Buffer.from(readFileSync(join(dataDir, KEY_FILE), 'utf8').trim(), 'base64');

    const other = forkHost();
    other.child.send({ type: 'start', dataDir, ports: { api: 0, dashboard: 0 }, sealingKey: randomBytes(32).toString('base64') });
    const failed = await other.waitFor('failed');
    assert.match(failed.message, new RegExp(`has its own key file ${KEY_FILE.replace('.', '\\.')}, which holds another key`));
    assert.equal(await exitOf(other), 1);

    const host = await startHost(dataDir, { sealingKey: own });
    host.child.send({ type: 'stop' });
    assert.equal(await exitOf(host), 0);
  });
});
