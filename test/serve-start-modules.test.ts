/**
 * What `statusdesk serve` loads by the time it is ready on a new data folder: none of the parts
 * other commands or later requests need (the file format of apply and export, the pretty log
 * printer, the OpenTelemetry SDK, the mail code, the MCP SDK, ConnectRPC and the services'
 * descriptors, the protobuf runtime and the gRPC health messages of the gRPC probe, the client
 * commands with the client library and the login code), and not undici, node:tls or node:http2.
 * Runs the bundle, and looks up the packages and sources of each bundled file it loaded in the
 * list the build writes (dist/sources.json).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pino from 'pino';
import { serviceConfig } from '../server/config.ts';
import { startService } from '../server/main.ts';
import { databaseEnv, withLocalOwner } from './support/database.ts';
import { spawnServe, tempDir } from './support/harness.ts';

/** Records every module file the process loads, and whether Node loaded undici, node:tls and node:http2, when it is told to stop. */
const RECORDER = `
const { registerHooks } = require('node:module');
const { writeFileSync } = require('node:fs');
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const builtin = (name) => process.moduleLoadList.includes('NativeModule ' + name);
process.once('SIGTERM', () => writeFileSync(process.env.LOADED_FILE, JSON.stringify({ loaded, undici: process.moduleLoadList.some((m) => m.includes('undici')), tls: builtin('tls'), http2: builtin('http2') })));
`;

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

const NOT_AT_START = [
  'node_modules/yaml/',
  'node_modules/pino-pretty/',
  'node_modules/@opentelemetry/sdk-metrics/',
  'node_modules/nodemailer/',
  'node_modules/@modelcontextprotocol/server/',
  // The WebSocket probe's client, loaded with the first WebSocket check.
  'node_modules/ws/',
  'node_modules/@connectrpc/connect/',
  'node_modules/@connectrpc/connect-node/',
  'node_modules/oauth4webapi/',
  'node_modules/@bufbuild/protobuf/',
  'proto/gen/grpc/',
  'proto/gen/monitor/',
  'proto/gen/status_page/',
  'server/rpc/routes.ts',
  'server/cli/service-client.ts',
  'server/cli/account-commands.ts',
  'server/cli/monitor-commands.ts',
];

test('serve is ready without loading what only other commands or later requests need', async () => {
  const dir = await tempDir();
  try {
    const recorder = join(dir.path, 'recorder.cjs');
    const record = join(dir.path, 'loaded.json');
    writeFileSync(recorder, RECORDER);
    const serve = await spawnServe(['--data-dir', join(dir.path, 'data')], { NODE_OPTIONS: `--require ${recorder}`, LOADED_FILE: record });
    assert.equal(await serve.stop(), 0, serve.stderr());
    const { loaded, undici, tls, http2 } = JSON.parse(readFileSync(record, 'utf8')) as { loaded: string[]; undici: boolean; tls: boolean; http2: boolean };
    const sources = JSON.parse(readFileSync(join(DIST, 'sources.json'), 'utf8')) as Record<string, string[]>;
    const files = loaded.filter((url) => url.startsWith('file:') && url.includes('/dist/')).map((url) => relative(DIST, fileURLToPath(url)));
    const bundled = files.flatMap((file) => sources[file] ?? assert.fail(`${file} is not in dist/sources.json`));
    assert.ok(
      bundled.some((source) => source.startsWith('server/main.ts')),
      'the bundle was loaded',
    );
    for (const name of NOT_AT_START) {
      assert.ok(!bundled.some((source) => source.startsWith(name)), `${name} is not loaded at start`);
    }
    assert.equal(undici, false, 'undici is not loaded at start');
    // Both load with the first HTTP/2 connection or the first check that needs TLS.
    assert.equal(http2, false, 'node:http2 is not loaded at start');
    assert.equal(tls, false, 'node:tls is not loaded at start');
  } finally {
    await dir.remove();
  }
});

test('the service answers before its check engine has read the monitors, and schedules them right after', async () => {
  const dir = await tempDir();
  try {
    const id = await withLocalOwner(dir.path, async (services, owner) => {
      const workspace = await services.workspaces.getBySlug(owner, 'personal');
      const monitor = await services.monitors.create(owner, Number(workspace.id), 'tcp', { name: 'db', periodicity: '1h', uri: '127.0.0.1:1' });
      return Number(monitor.id);
    });
    const config = serviceConfig({ dataDir: dir.path, port: '0', dashboardPort: '0' }, { STATUSDESK_CHECKS: 'on', ...(await databaseEnv(dir.path)) });
    const service = await startService(config, pino({ level: 'silent' }));
    try {
      assert.equal(service.engine.scheduler.has(id), false, 'not read yet when the service is ready');
      assert.equal((await fetch(`${service.apiUrl}/healthz`)).status, 200);
      await service.checking;
      assert.equal(service.engine.scheduler.has(id), true, 'scheduled once the engine has started');
    } finally {
      await service.close();
    }
  } finally {
    await dir.remove();
  }
});
