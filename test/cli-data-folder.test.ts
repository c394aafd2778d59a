// The data folder the local commands work on: the running service's, found through its record,
// never a second, empty database made by mistake.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DATABASE_FILE } from '../server/db/open.ts';
import { sqliteOnly } from './support/database.ts';
import { assertOneLineError, perTestCleanup, runCli, spawnServe, type ServeProcess } from './support/harness.ts';

/** Finding the data folder and its SQLite file is what these tests are about. */
const T = { timeout: 60_000, skip: sqliteOnly };
const SECRET_LINE = /^svc_[A-Za-z0-9_-]{43,}\n$/;

const { folder, children } = perTestCleanup();

/**
 * The surroundings of one test: its own state folder (the records of running services) and its
 * own platform data folder (XDG_DATA_HOME), with no address, key or data folder from the shell.
 */
async function machine() {
  const state = await folder();
  const xdg = await folder();
  const env: NodeJS.ProcessEnv = {
    STATUSDESK_STATE_DIR: state,
    XDG_DATA_HOME: xdg,
    STATUSDESK_DATA_DIR: undefined,
    SERVICE_API_URL: undefined,
    SERVICE_API_KEY: undefined,
    STATUSDESK_LOG_LEVEL: undefined,
    DASHBOARD_URL: undefined,
    OAUTH_ISSUER: undefined,
  };
  return {
    env,
    state,
    /** Where a database lands when no folder is given and no service runs. */
    platformDir: join(xdg, 'statusdesk'),
    cli: (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra }),
    async serve(dataDir: string): Promise<ServeProcess> {
      const proc = await spawnServe(['--data-dir', dataDir], env);
      children.push(proc.child);
      return proc;
    },
  };
}

const keysCreate = ['keys', 'create', '--workspace', 'personal', '--scope', 'read', '--name', 'found'];

test("keys create without --data-dir works on the running service's folder, and the key works against it", T, async () => {
  const m = await machine();
  const dataDir = await folder();
  const service = await m.serve(dataDir);
  const { apiUrl, dashboardUrl } = service.ready;

  const created = await m.cli(keysCreate);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, SECRET_LINE);
  assert.match(created.stderr, new RegExp(`^data folder: ${dataDir} \\(of the service at ${apiUrl}\\)\\n`));
  assert.ok(!existsSync(m.platformDir), 'no second database in the platform folder');
  const secret = created.stdout.trim();
  const whoami = await fetch(`${apiUrl}/v1/whoami`, { headers: { 'x-service-key': secret } });
  assert.equal(whoami.status, 200);

  // A client command without SERVICE_API_URL or --api-url reaches the recorded service.
  const listed = await m.cli(['monitors', 'list', '--json'], { SERVICE_API_KEY: secret });
  assert.equal(listed.code, 0, listed.stderr);

  // The dashboard's link points at the running service's dashboard.
  const link = await m.cli(['dashboard', '--no-browser']);
  assert.equal(link.code, 0, link.stderr);
  assert.ok(link.stdout.startsWith(`${dashboardUrl}/signin?token=`), link.stdout);

  // A clean stop removes the record: the commands no longer find the folder.
  assert.equal(await service.stop('SIGTERM'), 0);
  assert.deepEqual(readdirSync(m.state), []);
  assertOneLineError(await m.cli(keysCreate), new RegExp(`no Statusdesk database in ${m.platformDir}`));
});

test('with no service and no database, keys create refuses and creates nothing; a folder given gets a new database', T, async () => {
  const m = await machine();
  const refused = await m.cli(keysCreate);
  assertOneLineError(
    refused,
    new RegExp(`^statusdesk: no Statusdesk database in ${m.platformDir}, and no service is running: start one with statusdesk serve .*pass --data-dir FOLDER`),
  );
  assert.ok(!existsSync(m.platformDir), 'the refusal created no folder');

  const fresh = join(await folder(), 'new');
  const created = await m.cli([...keysCreate, '--data-dir', fresh]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, SECRET_LINE);
  assert.doesNotMatch(created.stderr, /data folder:/, 'a folder given is not named back');
  assert.ok(existsSync(join(fresh, DATABASE_FILE)));
});

test('a record whose process is gone is ignored', T, async () => {
  const m = await machine();
  const dataDir = await folder();
  // A service of that folder that is no longer running: its process has exited.
  const gone = spawn(process.execPath, ['-e', '']);
  await once(gone, 'exit');
  const record = { dataDir, apiUrl: 'http://localhost:1', dashboardUrl: 'http://localhost:2', pid: gone.pid, version: '0.1.0' };
  writeFileSync(join(m.state, 'crashed.json'), JSON.stringify(record));
  assertOneLineError(await m.cli(keysCreate), new RegExp(`no Statusdesk database in ${m.platformDir}`));
  assert.deepEqual(readdirSync(dataDir), [], 'nothing was written to the folder of the dead record');
});

test('with several services running, a command without --data-dir names them and refuses', T, async () => {
  const m = await machine();
  const [a, b] = [await folder(), await folder()];
  const [first, second] = await Promise.all([m.serve(a), m.serve(b)]);
  const result = await m.cli(keysCreate);
  assertOneLineError(result, /several Statusdesk services are running: .*say which with --data-dir/);
  assert.ok(
    result.stderr.includes(`${first.ready.apiUrl} (data folder ${a})`) && result.stderr.includes(`${second.ready.apiUrl} (data folder ${b})`),
    result.stderr,
  );
  const chosen = await m.cli([...keysCreate, '--data-dir', b]);
  assert.equal(chosen.code, 0, chosen.stderr);
});
