import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { restBase } from '../server/cli/commands.ts';
import { DATABASE_FILE, openDatabase } from '../server/db/open.ts';
import { createServices } from '../server/services.ts';
import { databaseEnv, openTestDatabase, sqliteOnly } from './support/database.ts';
import { closedPort } from './support/grpc-peers.ts';
import { assertOneLineError, CLI, type CliResult, json, perTestCleanup, runCli, type ServeProcess, spawnServe, tempDir } from './support/harness.ts';

const SECRET_LINE = /^svc_[A-Za-z0-9_-]{43,}\n$/;
const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const T = { timeout: 60_000 };

/** No setting from the surrounding shell leaks in: no stray key, address or data folder. */
const clean: NodeJS.ProcessEnv = {
  SERVICE_API_KEY: undefined,
  SERVICE_API_URL: undefined,
  STATUSDESK_LOG_LEVEL: undefined,
  OAUTH_ISSUER: undefined,
  DASHBOARD_URL: undefined,
  STATUSDESK_DOCS_URL: undefined,
};

let scratch: { path: string; remove(): Promise<void> };
before(async () => {
  scratch = await tempDir();
  // Anything that ignored --data-dir would land here, never in the user's own folder.
  clean.STATUSDESK_DATA_DIR = join(scratch.path, 'stray');
});
after(async () => {
  assert.ok(!existsSync(join(scratch.path, 'stray')), 'a command wrote outside its --data-dir');
  await scratch.remove();
});

const { folder, children } = perTestCleanup();

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(args, { ...clean, ...env });
}

/** A data folder for the tests of one describe block, removed after them. */
function useDataDir(ready: (path: string) => void): void {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  before(async () => {
    dir = await tempDir();
    ready(dir.path);
  });
  after(() => dir?.remove());
}

async function serve(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const proc = await spawnServe(['--data-dir', dataDir], { ...clean, ...env });
  children.push(proc.child);
  return proc;
}

function within<V>(promise: Promise<V>, ms: number, what: string): Promise<V> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function stop(proc: ServeProcess, signal: NodeJS.Signals): Promise<number | null> {
  return within(proc.stop(signal), 15_000, `shutdown on ${signal}`);
}

/** A usage error: exit 2, the reason and the usage on stderr, nothing on stdout. */
function assertUsageError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^statusdesk[^:\n]*: [^\n]+\n/);
  assert.match(result.stderr, pattern);
  assert.match(result.stderr, /\nRun statusdesk [^\n]*--help/);
}

async function createKey(dataDir: string, scope: string, name = `${scope} key`, workspace = 'personal'): Promise<string> {
  const result = await cli(['keys', 'create', '--workspace', workspace, '--scope', scope, '--name', name, '--data-dir', dataDir]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, SECRET_LINE);
  return result.stdout.trim();
}

async function listKeys(dataDir: string, ...extra: string[]): Promise<Record<string, unknown>[]> {
  const result = await cli(['keys', 'list', '--json', '--data-dir', dataDir, ...extra]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

/** What the data folder itself says about a secret: the scopes it authenticates with, or undefined. */
async function scopesOf(dataDir: string, secret: string): Promise<string[] | undefined> {
  const db = await openTestDatabase(dataDir);
  try {
    return (await createServices(db).keys.authenticate(secret, 'cli'))?.scopes;
  } finally {
    await db.destroy();
  }
}

describe('keys', () => {
  let dataDir: string;
  useDataDir((path) => (dataDir = path));

  test('create prints only the secret, one line on stdout', T, async () => {
    const result = await cli(['keys', 'create', '--workspace', 'personal', '--scope', 'read', '--name', 'grafana', '--data-dir', dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, SECRET_LINE);
    assert.ok(!result.stdout.trim().startsWith('svc_oat_'));
    assert.ok(!result.stderr.includes(result.stdout.trim()), 'the secret is on stdout only');
    assert.deepEqual(await scopesOf(dataDir, result.stdout.trim()), ['read']);
    const write = await createKey(dataDir, 'write');
    assert.deepEqual(await scopesOf(dataDir, write), ['write']);
  });

  test('list --json has every field of each key and never the secret or its hash', T, async () => {
    const secret = await createKey(dataDir, 'read', 'listed');
    const keys = await listKeys(dataDir);
    const key = keys.find((k) => k.name === 'listed');
    assert.ok(key, 'the new key is listed');
    for (const field of ['id', 'name', 'prefix', 'scopes', 'createdAt', 'lastUsedAt', 'revokedAt', 'legacy', 'workspace']) {
      assert.ok(field in key, `missing ${field}`);
    }
    assert.equal(key.prefix, secret.slice(0, 12));
    assert.deepEqual(key.scopes, ['read']);
    assert.equal(key.workspace, 'personal');
    assert.equal(key.revokedAt, null);
    assert.equal(key.lastUsedAt, null);
    assert.ok(!Number.isNaN(Date.parse(String(key.createdAt))));
    const raw = JSON.stringify(keys);
    assert.ok(!raw.includes(secret.slice(12)), 'the list shows the secret');
    assert.ok(!raw.includes(sha256(secret)), 'the list shows the hash');
    assert.ok(!/secret|hash/i.test(raw));
  });

  test('list prints a table with the prefix and marks legacy keys, without secrets', T, async () => {
    const secret = await createKey(dataDir, 'write', 'tabled');
    const legacySecret = `svc_${'L'.repeat(43)}`;
    const db = await openTestDatabase(dataDir);
    await db
      .insertInto('api_keys')
      .values({
        workspace_id: 1,
        name: 'old-one',
        prefix: legacySecret.slice(0, 12),
        secret_hash: sha256(legacySecret),
        scopes: null,
        created_by_user_id: null,
        created_at: '2024-01-01T00:00:00.000Z',
      })
      .execute();
    await db.destroy();
    const result = await cli(['keys', 'list', '--data-dir', dataDir]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+WORKSPACE\s+NAME\s+PREFIX\s+SCOPES\s+CREATED\s+LAST USED\s+REVOKED$/);
    const row = lines.find((l) => l.includes('tabled'));
    assert.ok(row?.includes(`${secret.slice(0, 12)}…`));
    assert.ok(!result.stdout.includes(secret.slice(12)));
    assert.match(lines.find((l) => l.includes('old-one')) ?? '', /\bwrite \(legacy\)/);
    assert.equal((await listKeys(dataDir)).find((k) => k.name === 'old-one')?.legacy, true);
  });

  test('revoke ID revokes the key; revoking it again is harmless', T, async () => {
    const secret = await createKey(dataDir, 'write', 'doomed');
    const id = String((await listKeys(dataDir)).find((k) => k.name === 'doomed')?.id);
    const result = await cli(['keys', 'revoke', id, '--data-dir', dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`^Revoked key ${id} \\(doomed\\) at \\S+\\.\\n$`));
    assert.equal(await scopesOf(dataDir, secret), undefined);
    const revokedAt = (await listKeys(dataDir)).find((k) => k.id === id)?.revokedAt;
    assert.ok(typeof revokedAt === 'string' && !Number.isNaN(Date.parse(revokedAt)));
    const again = await cli(['keys', 'revoke', id, '--data-dir', dataDir]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await listKeys(dataDir)).find((k) => k.id === id)?.revokedAt, revokedAt);
  });

  test('revoke of an unknown id is one line, exit 1', T, async () => {
    assertOneLineError(await cli(['keys', 'revoke', '987654', '--data-dir', dataDir]), /API key 987654 does not exist/);
  });

  test('create refuses a bad scope or an unknown workspace with one line', T, async () => {
    const scope = await cli(['keys', 'create', '--workspace', 'personal', '--scope', 'admin', '--name', 'x', '--data-dir', dataDir]);
    assert.deepEqual(scope, { code: 2, stdout: '', stderr: 'statusdesk: --scope: must be read or write\n' });
    const name = await cli(['keys', 'create', '--workspace', 'personal', '--scope', 'read', '--name', '   ', '--data-dir', dataDir]);
    assert.equal(name.code, 2);
    assert.match(name.stderr, /^statusdesk: --name: [^\n]+\n$/);
    const ws = await cli(['keys', 'create', '--workspace', 'nowhere', '--scope', 'read', '--name', 'x', '--data-dir', dataDir]);
    assertOneLineError(ws, /workspace nowhere does not exist/);
  });

  test('create with a missing flag is a usage error', T, async () => {
    const base = ['--workspace', 'personal', '--scope', 'read', '--name', 'x'];
    for (const missing of ['workspace', 'scope', 'name']) {
      const i = base.indexOf(`--${missing}`);
      const args = [...base.slice(0, i), ...base.slice(i + 2)];
      assertUsageError(await cli(['keys', 'create', ...args, '--data-dir', dataDir]), new RegExp(`--${missing} is required`));
    }
    assertUsageError(await cli(['keys', 'create', '--workspace', 'personal', '--scope', '--name', 'x', '--data-dir', dataDir]), /--scope/);
  });

  test('revoke without an id, or with two, is a usage error', T, async () => {
    assertUsageError(await cli(['keys', 'revoke', '--data-dir', dataDir]), /takes 1 argument, got 0/);
    assertUsageError(await cli(['keys', 'revoke', '1', '2', '--data-dir', dataDir]), /takes 1 argument, got 2/);
  });
});

describe('workspaces', () => {
  let dataDir: string;
  useDataDir((path) => (dataDir = path));

  test('create prints the slug; list shows it with its plan', T, async () => {
    const created = await cli(['workspaces', 'create', '--name', 'Team', '--slug', 'team', '--plan', 'starter', '--data-dir', dataDir]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'team\n');
    const asJson = await cli(['workspaces', 'create', '--name', 'Ops', '--slug', 'ops', '--plan', 'hobby', '--json', '--data-dir', dataDir]);
    assert.equal(asJson.code, 0, asJson.stderr);
    const ops = JSON.parse(asJson.stdout);
    assert.deepEqual({ name: ops.name, slug: ops.slug, plan: ops.plan }, { name: 'Ops', slug: 'ops', plan: 'hobby' });

    const list = await cli(['workspaces', 'list', '--json', '--data-dir', dataDir]);
    assert.equal(list.code, 0, list.stderr);
    const rows = (JSON.parse(list.stdout) as { slug: string; plan: string }[]).map((w) => [w.slug, w.plan]);
    assert.deepEqual(rows, [
      ['personal', 'scale'],
      ['team', 'starter'],
      ['ops', 'hobby'],
    ]);

    const table = await cli(['workspaces', 'list', '--data-dir', dataDir]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+SLUG\s+NAME\s+PLAN\s+CREATED$/);
    assert.equal(lines.length, 4);
    assert.match(lines.find((l) => /\steam\s/.test(l)) ?? '', /\bTeam\s+starter\b/);

    const key = await createKey(dataDir, 'read', 'team key', 'team');
    assert.deepEqual(
      (await listKeys(dataDir, '--workspace', 'team')).map((k) => k.prefix),
      [key.slice(0, 12)],
    );
  });

  test('an invalid slug is one line naming --slug, exit 2, and nothing is created', T, async () => {
    for (const slug of ['Bad Slug', 'x', '-x-']) {
      const refused = await cli(['workspaces', 'create', '--name', 'N', `--slug=${slug}`, '--plan', 'pro', '--data-dir', dataDir]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /^statusdesk: --slug: [^\n]+\n$/);
    }
    const list = JSON.parse((await cli(['workspaces', 'list', '--json', '--data-dir', dataDir])).stdout) as { slug: string }[];
    assert.ok(!list.some((w) => w.slug === 'x' || w.slug === 'Bad Slug'));
  });

  test('an unknown plan (exit 2, naming --plan) or a taken slug (exit 1) is one line', T, async () => {
    assert.deepEqual(await cli(['workspaces', 'create', '--name', 'N', '--slug', 'fine', '--plan', 'gold', '--data-dir', dataDir]), {
      code: 2,
      stdout: '',
      stderr: 'statusdesk: --plan: must be one of hobby, starter, pro, scale\n',
    });
    assertOneLineError(
      await cli(['workspaces', 'create', '--name', 'N', '--slug', 'personal', '--plan', 'pro', '--data-dir', dataDir]),
      /\bslug: .*personal.*already exists/,
    );
  });

  test('create without --plan is a usage error', T, async () => {
    assertUsageError(await cli(['workspaces', 'create', '--name', 'N', '--slug', 'noplan', '--data-dir', dataDir]), /--plan is required/);
  });
});

describe('usage', () => {
  test('an unknown command: usage on stderr, exit 2', T, async () => {
    assertUsageError(await cli(['frobnicate']), /unknown command "frobnicate"/);
    assertUsageError(await cli(['keys', 'rotate']), /unknown command "keys rotate"/);
    assertUsageError(await cli(['keys']), /keys needs one of its commands/);
  });

  test('an unknown flag: usage on stderr, exit 2', T, async () => {
    const dataDir = await folder();
    assertUsageError(await cli(['keys', 'list', '--bogus', '--data-dir', dataDir]), /--bogus/);
    assertUsageError(await cli(['workspaces', 'list', '-z', '--data-dir', dataDir]), /-z/);
    assertUsageError(await cli(['whoami', '--data-dir', dataDir]), /--data-dir/);
    assertUsageError(await cli(['serve', '--prot', '0', '--data-dir', dataDir]), /--prot/);
    assert.ok(!existsSync(join(dataDir, DATABASE_FILE)), 'a refused command touched the data folder');
  });

  test('--version prints the version; no command prints the usage', T, async () => {
    assert.deepEqual(await cli(['--version']), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const help = await cli([]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: statusdesk <command>/);
  });
});

describe('the Node.js gate', () => {
  const systemNode = '/usr/bin/node';
  const version = existsSync(systemNode) ? execFileSync(systemNode, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim() : undefined;
  const [major = 0, minor = 0] = (version ?? '0.0').split('.').map(Number);
  const tooOld = major < 22 || (major === 22 && minor < 18);

  test(`an older Node.js (${systemNode} ${version ?? 'absent'}) is refused with one line`, { ...T, skip: !version || !tooOld }, async () => {
    const result = await new Promise<CliResult>((resolve) => {
      execFile(systemNode, [CLI, '--version'], { env: { ...process.env, ...clean }, timeout: 15_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^statusdesk: [^\n]+\n$/, `not one line: ${JSON.stringify(result.stderr)}`);
    assert.ok(result.stderr.includes(`Node.js ${version} is too old`), result.stderr);
    assert.match(result.stderr, /22\.18/);
  });
});

describe('serve', () => {
  test('prints exactly one JSON ready line, logs to stderr, and exits 0 on SIGTERM', T, async () => {
    const dataDir = await folder();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--dashboard-port', '0', '--data-dir', dataDir], {
      env: { ...process.env, ...clean, ...(await databaseEnv(dataDir)) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await within(
      new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => stdout.includes('\n') && resolve());
        child.once('exit', () => reject(new Error(`exited before ready: ${stderr}`)));
      }),
      20_000,
      'ready line',
    );
    const ready = JSON.parse(stdout.slice(0, stdout.indexOf('\n')));
    assert.deepEqual(Object.keys(ready).sort(), ['apiUrl', 'dashboardUrl', 'event', 'signInUrl']);
    assert.equal(ready.event, 'ready');
    assert.match(ready.apiUrl, /^http:\/\/localhost:\d+$/);
    assert.match(ready.dashboardUrl, /^http:\/\/localhost:\d+$/);
    assert.notEqual(ready.apiUrl, ready.dashboardUrl);
    assert.ok(String(ready.signInUrl).startsWith(`${ready.dashboardUrl}/signin?token=`), ready.signInUrl);
    const unauthenticated = await fetch(`${ready.apiUrl}/v1/whoami`);
    assert.equal(unauthenticated.status, 401);
    await unauthenticated.body?.cancel();

    child.kill('SIGTERM');
    assert.equal(await within(exited, 15_000, 'shutdown on SIGTERM'), 0, stderr);
    assert.equal(stdout.split('\n').length, 2, `stdout holds more than the ready line: ${JSON.stringify(stdout)}`);
    assert.ok(stdout.endsWith('\n'));
    const logs = stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg?: string });
    assert.ok(
      logs.some((l) => l.msg === 'ready'),
      'the ready event is logged on stderr',
    );
    assert.ok(logs.some((l) => l.msg === 'shutting down'));
  });

  describe('with a running service', () => {
    let dataDir: string;
    let service: ServeProcess;
    /** A read key of the running service, made by the CLI once, for the tests that only use one. */
    let made: Promise<{ readSecret: string; readId: string }> | undefined;
    const readKey = () =>
      (made ??= (async () => {
        const readSecret = await createKey(dataDir, 'read', 'reader');
        return { readSecret, readId: String((await listKeys(dataDir)).find((k) => k.name === 'reader')?.id) };
      })());
    let dir: { path: string; remove(): Promise<void> };
    before(async () => {
      dir = await tempDir();
      dataDir = dir.path;
      service = await spawnServe(['--data-dir', dataDir], clean);
    });
    after(async () => {
      if (service?.child.exitCode === null) assert.equal(await stop(service, 'SIGTERM'), 0);
      await dir?.remove();
    });

    test('a key created by the CLI while it runs is usable at once', T, async () => {
      const readSecret = await createKey(dataDir, 'read', 'live');
      const readId = String((await listKeys(dataDir)).find((k) => k.name === 'live')?.id);
      const response = await fetch(`${service.ready.apiUrl}/v1/whoami`, { headers: { 'x-service-key': readSecret } });
      assert.equal(response.status, 200);
      const body = await json(response);
      assert.deepEqual(body.actor, { type: 'apiKey', keyId: readId, scopes: ['read'] });
    });

    test('whoami reads the key from SERVICE_API_KEY and the address from SERVICE_API_URL', T, async () => {
      const { readSecret, readId } = await readKey();
      const result = await cli(['whoami', '--json'], { SERVICE_API_KEY: readSecret, SERVICE_API_URL: `${service.ready.apiUrl}/rpc` });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, '');
      const body = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(body).sort(), ['actor', 'name', 'plan', 'slug']);
      assert.equal(body.slug, 'personal');
      assert.equal(body.plan, 'scale');
      assert.deepEqual(body.actor, { type: 'apiKey', keyId: readId, scopes: ['read'] });

      const table = await cli(['whoami'], { SERVICE_API_KEY: readSecret, SERVICE_API_URL: `${service.ready.apiUrl}/rpc/` });
      assert.equal(table.code, 0, table.stderr);
      const [header, row] = table.stdout.trimEnd().split('\n');
      assert.match(header ?? '', /^WORKSPACE\s+SLUG\s+PLAN\s+KEY\s+SCOPES$/);
      assert.match(row ?? '', new RegExp(`\\bpersonal\\s+scale\\s+${readId}\\s+read$`));
    });

    test('--url wins over a wrong SERVICE_API_URL', T, async () => {
      const { readSecret, readId } = await readKey();
      const wrong = `http://127.0.0.1:${await closedPort()}/rpc`;
      const failing = await cli(['whoami', '--json'], { SERVICE_API_KEY: readSecret, SERVICE_API_URL: wrong });
      assertOneLineError(failing, /Statusdesk is not running at http:\/\/127\.0\.0\.1:\d+/);
      const result = await cli(['whoami', '--json', '--url', `${service.ready.apiUrl}/rpc`], { SERVICE_API_KEY: readSecret, SERVICE_API_URL: wrong });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).actor.keyId, readId);
    });

    test('whoami without SERVICE_API_KEY is one line, exit 1', T, async () => {
      assertOneLineError(await cli(['whoami', '--api-url', service.ready.apiUrl]), /SERVICE_API_KEY is not set/);
      assertOneLineError(await cli(['whoami', '--api-url', service.ready.apiUrl], { SERVICE_API_KEY: '' }), /SERVICE_API_KEY is not set/);
    });

    test('whoami with a wrong or revoked key is one line, exit 1', T, async () => {
      const url = `${service.ready.apiUrl}/rpc`;
      assertOneLineError(await cli(['whoami'], { SERVICE_API_KEY: `svc_${'x'.repeat(43)}`, SERVICE_API_URL: url }), /refused the credential/);
      const doomed = await createKey(dataDir, 'write', 'revoked while serving');
      assert.equal((await cli(['whoami'], { SERVICE_API_KEY: doomed, SERVICE_API_URL: url })).code, 0);
      const id = String((await listKeys(dataDir)).find((k) => k.name === 'revoked while serving')?.id);
      assert.equal((await cli(['keys', 'revoke', id, '--data-dir', dataDir])).code, 0);
      assertOneLineError(await cli(['whoami'], { SERVICE_API_KEY: doomed, SERVICE_API_URL: url }), /refused the credential/);
    });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} shuts down with exit 0 and loses nothing`, T, async () => {
      const dataDir = await folder();
      const first = await serve(dataDir);
      const secret = await createKey(dataDir, 'write', `before ${signal}`);
      const used = await fetch(`${first.ready.apiUrl}/v1/whoami`, { headers: { 'x-service-key': secret } });
      assert.equal(used.status, 200);
      await used.body?.cancel();
      assert.equal(await stop(first, signal), 0, first.stderr());

      const key = (await listKeys(dataDir)).find((k) => k.name === `before ${signal}`);
      assert.ok(key, 'the key is still listed');
      assert.ok(key.lastUsedAt, 'the last use the service recorded survived the shutdown');

      const second = await serve(dataDir);
      const response = await fetch(`${second.ready.apiUrl}/v1/whoami`, { headers: { 'x-service-key': secret } });
      assert.equal(response.status, 200);
      assert.deepEqual((await json(response)).actor.scopes, ['write']);
      assert.equal(await stop(second, signal), 0, second.stderr());
    });
  }

  describe('refuses to start with one line and exit 1', () => {
    let busy: Server;
    let busyPort: number;
    before(async () => {
      busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      busyPort = (busy.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => busy.close(() => resolve())));

    test('when the API port is taken', T, async () => {
      const result = await cli(['serve', '--port', String(busyPort), '--dashboard-port', '0', '--data-dir', await folder()]);
      assertOneLineError(result, new RegExp(`\\b${busyPort}\\b.*already in use`));
    });

    test('when the dashboard port is taken', T, async () => {
      const result = await cli(['serve', '--port', '0', '--dashboard-port', String(busyPort), '--data-dir', await folder()]);
      assertOneLineError(result, new RegExp(`\\b${busyPort}\\b.*already in use`));
    });

    test('when the data was written by a newer Statusdesk', { ...T, skip: sqliteOnly }, async () => {
      const dataDir = await folder();
      const db = await openDatabase(dataDir);
      await db.destroy();
      const raw = new SQLite(join(dataDir, DATABASE_FILE));
      raw.pragma('user_version = 999');
      raw.close();
      const result = await cli(['serve', '--port', '0', '--dashboard-port', '0', '--data-dir', dataDir]);
      assertOneLineError(result, /written by a newer Statusdesk/);
    });
  });
});

describe('restBase', () => {
  test('REST paths hang off the API address without /rpc', () => {
    assert.equal(restBase('http://localhost:3000/rpc'), 'http://localhost:3000');
    assert.equal(restBase('http://localhost:3000/rpc/'), 'http://localhost:3000');
    assert.equal(restBase('http://localhost:3000'), 'http://localhost:3000');
    assert.equal(restBase('http://localhost:3000/'), 'http://localhost:3000');
    assert.equal(restBase('https://status.example/base/rpc'), 'https://status.example/base');
  });
});
