import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, Periodicity, privateLocationV1, type StatusdeskClient } from '../client/index.ts';
import { openTestDatabase, queryRows } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createLocationService } from '../server/domain/locations/locations.ts';
import { hashSecret, RUNNER_TOKEN_LOOKUP_LENGTH } from '../server/domain/secrets.ts';
import { createWorkspaceService } from '../server/domain/workspaces/workspaces.ts';
import { connectMcp, connectMcpV1, ok } from './support/mcp-client.ts';
import {
  assertCode,
  assertOneLineError,
  assertViolation,
  jsonOf,
  newWorkspace,
  rejectsWith,
  runCli,
  startTestService,
  tableOf,
  tempDir,
  type TestService,
} from './support/harness.ts';

/**
 * Private locations on every surface: the RPC service over the client library, the domain's rules
 * and audit entries, `statusdesk locations` from the bundle, and the MCP tool, against the real
 * service on loopback ports.
 */

const { PrivateLocationStatus } = privateLocationV1;
const T = { timeout: 60_000 };
const TOKEN = /^svc_run_[A-Za-z0-9_-]{43}$/;

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(() => svc?.stop());

/** A workspace of its own with a write and a read client of it, and both keys. */
async function workspace(prefix: string) {
  const { id, slug } = await newWorkspace(svc, prefix);
  const writeKey = (await svc.createKey('write', slug)).secret;
  const readKey = (await svc.createKey('read', slug)).secret;
  const clientOf = (apiKey: string): StatusdeskClient => createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey, env: {} });
  return {
    id,
    slug,
    writeKey,
    readKey,
    write: clientOf(writeKey).privateLocations,
    read: clientOf(readKey).privateLocations,
    monitors: clientOf(writeKey).monitors,
  };
}

/** A name no other test uses: locations' names are unique in the whole instance. */
const uniqueName = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** Any response as JSON text (int64 fields are bigints). */
const stringify = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** The audit rows of a location, oldest first, with their snapshots parsed. */
function auditOf(id: string) {
  return queryRows<{ action: string; before: string | null; after: string | null; workspace_id: number }>(
    svc.dataDir,
    "select action, before, after, workspace_id from audit_log where entity_type = 'private_location' and entity_id = ? order by id",
    id,
  );
}

describe('private locations over RPC', () => {
  test('create, list, get, update, rotate and delete; the embedded runner leads every list', T, async () => {
    const ws = await workspace('loc-crud');
    const name = uniqueName('office');
    const created = await ws.write.createPrivateLocation({ name, metadata: { network: 'office' } });
    const location = created.privateLocation!;
    assert.match(created.token, TOKEN);
    assert.deepEqual([location.name, location.embedded, { ...location.metadata }], [name, false, { network: 'office' }]);
    assert.equal(location.status, PrivateLocationStatus.ERROR, 'never heard from: in error');
    assert.equal(location.lastSeenAt, undefined);
    assert.deepEqual([location.runnerVersion, location.runnerHostname, location.droppedResults], ['', '', 0n]);
    assert.ok(location.createdAt);

    const second = (await ws.write.createPrivateLocation({ name: uniqueName('lab') })).privateLocation!;
    const listed = await ws.read.listPrivateLocations({});
    assert.deepEqual(
      listed.privateLocations.map((l) => [l.name, l.embedded]),
      [
        ['local', true],
        [name, false],
        [second.name, false],
      ],
    );
    assert.equal(listed.totalSize, 3);
    const paged = await ws.read.listPrivateLocations({ page: 2, perPage: 1 });
    assert.deepEqual([paged.privateLocations.map((l) => l.name), paged.totalSize], [[name], 3]);
    await assertViolation(ws.read.listPrivateLocations({ perPage: 101 }), 'perPage', /1 to 100/);

    assert.equal((await ws.read.getPrivateLocation({ id: location.id })).privateLocation!.name, name);

    const renamed = uniqueName('branch');
    const updated = (await ws.write.updatePrivateLocation({ id: location.id, name: renamed })).privateLocation!;
    assert.deepEqual([updated.name, { ...updated.metadata }], [renamed, { network: 'office' }], 'metadata is kept unless replaced');
    const relabelled = (await ws.write.updatePrivateLocation({ id: location.id, metadata: { rack: 'b2' }, replaceMetadata: true })).privateLocation!;
    assert.deepEqual([relabelled.name, { ...relabelled.metadata }], [renamed, { rack: 'b2' }]);
    const cleared = (await ws.write.updatePrivateLocation({ id: location.id, replaceMetadata: true })).privateLocation!;
    assert.deepEqual({ ...cleared.metadata }, {});

    const rotated = await ws.write.rotatePrivateLocationToken({ id: location.id });
    assert.match(rotated.token, TOKEN);
    assert.notEqual(rotated.token, created.token);
    assert.equal(rotated.privateLocation!.id, location.id);

    await ws.write.deletePrivateLocation({ id: location.id });
    await assertCode(ws.read.getPrivateLocation({ id: location.id }), Code.NotFound, /does not exist/);
    assert.deepEqual(
      (await ws.read.listPrivateLocations({})).privateLocations.map((l) => l.name),
      ['local', second.name],
    );
  });

  test('a read key cannot change anything; another workspace sees only its own and local; local cannot be changed', T, async () => {
    const ws = await workspace('loc-scope');
    const other = await workspace('loc-other');
    const mine = (await ws.write.createPrivateLocation({ name: uniqueName('mine') })).privateLocation!;

    await assertCode(ws.read.createPrivateLocation({ name: uniqueName('nope') }), Code.PermissionDenied);
    await assertCode(ws.read.updatePrivateLocation({ id: mine.id, name: uniqueName('nope') }), Code.PermissionDenied);
    await assertCode(ws.read.deletePrivateLocation({ id: mine.id }), Code.PermissionDenied);
    await assertCode(ws.read.rotatePrivateLocationToken({ id: mine.id }), Code.PermissionDenied);

    // Another workspace's id is an unknown id, whatever the call.
    for (const call of [
      () => other.read.getPrivateLocation({ id: mine.id }),
      () => other.write.updatePrivateLocation({ id: mine.id, name: uniqueName('stolen') }),
      () => other.write.deletePrivateLocation({ id: mine.id }),
      () => other.write.rotatePrivateLocationToken({ id: mine.id }),
    ]) {
      const error = await assertCode(call(), Code.NotFound);
      assert.equal(error.rawMessage, `private location ${mine.id} does not exist in this workspace`);
    }
    await assertCode(other.read.getPrivateLocation({ id: '999999' }), Code.NotFound);
    await assertViolation(other.read.getPrivateLocation({ id: 'abc' }), 'id');
    assert.deepEqual(
      (await other.read.listPrivateLocations({})).privateLocations.map((l) => l.name),
      ['local'],
    );
    assert.equal((await ws.read.getPrivateLocation({ id: mine.id })).privateLocation!.name, mine.name, 'still there');

    const local = (await other.read.listPrivateLocations({})).privateLocations[0]!;
    assert.equal(local.embedded, true);
    assert.equal((await other.read.getPrivateLocation({ id: local.id })).privateLocation!.name, 'local');
    await assertCode(
      other.write.updatePrivateLocation({ id: local.id, name: uniqueName('x') }),
      Code.FailedPrecondition,
      /embedded runner local cannot be changed/,
    );
    await assertCode(other.write.deletePrivateLocation({ id: local.id }), Code.FailedPrecondition, /embedded runner local cannot be deleted/);
    await assertCode(other.write.rotatePrivateLocationToken({ id: local.id }), Code.FailedPrecondition, /embedded runner local/);
  });

  test('names: lower-case, 2 to 40, from a letter, not a region, not local, unique; metadata bounds', T, async () => {
    const ws = await workspace('loc-rules');
    await assertViolation(ws.write.createPrivateLocation({}), 'name', /is required/);
    await assertViolation(ws.write.createPrivateLocation({ name: 'iad' }), 'name', /region id/);
    await assertViolation(ws.write.createPrivateLocation({ name: 'local' }), 'name', /embedded runner/);
    await assertViolation(ws.write.createPrivateLocation({ name: 'Office' }), 'name', /lower-case/);
    await assertViolation(ws.write.createPrivateLocation({ name: '1office' }), 'name', /starting with a letter/);
    await assertViolation(ws.write.createPrivateLocation({ name: 'office lab' }), 'name', /lower-case letters, digits and hyphens/);
    await assertViolation(ws.write.createPrivateLocation({ name: 'o' }), 'name', /2 to 40/);
    await assertViolation(ws.write.createPrivateLocation({ name: `o${'a'.repeat(40)}` }), 'name', /2 to 40/);
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    await assertViolation(ws.write.createPrivateLocation({ name: uniqueName('meta'), metadata: tooMany }), 'metadata', /at most 20/);
    await assertViolation(
      ws.write.createPrivateLocation({ name: uniqueName('meta'), metadata: { ['k'.repeat(65)]: 'v' } }),
      `metadata.${'k'.repeat(65)}`,
      /1 to 64/,
    );
    await assertViolation(ws.write.createPrivateLocation({ name: uniqueName('meta'), metadata: { k: 'v'.repeat(257) } }), 'metadata.k', /at most 256/);

    // Unique in the whole instance: another workspace's name is taken too.
    const taken = (await ws.write.createPrivateLocation({ name: uniqueName('taken') })).privateLocation!;
    const other = await workspace('loc-rules-other');
    const clash = await assertCode(other.write.createPrivateLocation({ name: taken.name }), Code.AlreadyExists, /name: a private location named/);
    assert.match(clash.rawMessage, new RegExp(taken.name));
    const mine = (await ws.write.createPrivateLocation({ name: uniqueName('second') })).privateLocation!;
    await assertCode(ws.write.updatePrivateLocation({ id: mine.id, name: taken.name }), Code.AlreadyExists, /^name: /);
    await assertViolation(ws.write.updatePrivateLocation({ id: mine.id, name: 'ams' }), 'name', /region id/);
    await assertViolation(ws.write.updatePrivateLocation({ id: mine.id }), 'private location', /names no field/);
    assert.equal((await ws.read.getPrivateLocation({ id: mine.id })).privateLocation!.name, mine.name, 'a refused change loses nothing');
  });

  test('the token is returned once, stored only hashed, and found in no list, get, MCP answer or audit entry', T, async () => {
    const ws = await workspace('loc-token');
    const created = await ws.write.createPrivateLocation({ name: uniqueName('vault') });
    const id = created.privateLocation!.id;
    const rotated = await ws.write.rotatePrivateLocationToken({ id });
    const [row] = await queryRows<{ token_hash: string; token_prefix: string }>(
      svc.dataDir,
      'select token_hash, token_prefix from private_locations where id = ?',
      id,
    );
    assert.deepEqual(row, { token_hash: hashSecret(rotated.token), token_prefix: rotated.token.slice(0, RUNNER_TOKEN_LOOKUP_LENGTH) });

    const mcp = await connectMcp(svc.apiUrl, '2025-11-25', ws.readKey);
    try {
      const seen = [
        stringify(await ws.read.listPrivateLocations({})),
        stringify(await ws.read.getPrivateLocation({ id })),
        stringify((await ws.write.updatePrivateLocation({ id, metadata: { a: 'b' }, replaceMetadata: true })).privateLocation),
        JSON.stringify(ok(await mcp.call('list_private_locations'))),
        JSON.stringify(await auditOf(id)),
      ];
      for (const text of seen) {
        for (const token of [created.token, rotated.token]) {
          assert.ok(!text.includes(token) && !text.includes(hashSecret(token)), `a token or its hash in ${text}`);
        }
      }
    } finally {
      await mcp.close();
    }
  });

  test('each change is audited as private_location, with snapshots that hold no token', T, async () => {
    const ws = await workspace('loc-audit');
    const name = uniqueName('audited');
    const created = await ws.write.createPrivateLocation({ name, metadata: { floor: '2' } });
    const id = created.privateLocation!.id;
    const renamed = uniqueName('renamed');
    await ws.write.updatePrivateLocation({ id, name: renamed });
    const rotated = await ws.write.rotatePrivateLocationToken({ id });
    await ws.write.deletePrivateLocation({ id });

    const entries = await auditOf(id);
    assert.deepEqual(
      entries.map((e) => e.action),
      ['private_location.create', 'private_location.update', 'private_location.rotate_token', 'private_location.delete'],
    );
    assert.ok(entries.every((e) => e.workspace_id === Number(ws.id)));
    const [create, update, rotate, remove] = entries.map((e) => ({ before: e.before && JSON.parse(e.before), after: e.after && JSON.parse(e.after) }));
    assert.equal(create!.before, null);
    assert.deepEqual([create!.after.name, create!.after.metadata], [name, { floor: '2' }]);
    assert.deepEqual([update!.before.name, update!.after.name], [name, renamed]);
    assert.notEqual(rotate!.before.tokenPrefix, rotate!.after.tokenPrefix, 'a rotation shows as a new token prefix');
    assert.equal(rotate!.after.tokenPrefix, rotated.token.slice(0, RUNNER_TOKEN_LOOKUP_LENGTH));
    assert.deepEqual([remove!.before.name, remove!.after], [renamed, null]);
    const text = JSON.stringify(entries);
    assert.ok(!text.includes(created.token) && !text.includes(rotated.token) && !/hash/i.test(text), text);
  });

  test("a rename carries the monitors' current state of its runner along; stored results keep the old name", T, async () => {
    const ws = await workspace('loc-rename');
    const name = uniqueName('before');
    const location = (await ws.write.createPrivateLocation({ name })).privateLocation!;
    const monitor = (
      await ws.monitors.createTCPMonitor({
        monitor: { name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'], privateLocations: [location.id] },
      })
    ).monitor!;
    await queryRows(
      svc.dataDir,
      "insert into check_state (monitor_id, runner, result, regions, checked_at, latency_ms) values (?, ?, 'up', ?, ?, 3)",
      Number(monitor.id),
      name,
      JSON.stringify([name]),
      Date.now(),
    );
    await queryRows(
      svc.dataDir,
      "insert into check_state (monitor_id, runner, result, regions, checked_at, latency_ms) values (?, 'local', 'up', '[\"iad\"]', ?, 3)",
      Number(monitor.id),
      Date.now(),
    );
    const renamed = uniqueName('after');
    await ws.write.updatePrivateLocation({ id: location.id, name: renamed });
    const states = await queryRows<{ runner: string; regions: string }>(
      svc.dataDir,
      'select runner, regions from check_state where monitor_id = ? order by runner',
      Number(monitor.id),
    );
    assert.deepEqual(
      states,
      [
        { runner: renamed, regions: JSON.stringify([renamed]) },
        { runner: 'local', regions: '["iad"]' },
      ].sort((a, b) => a.runner.localeCompare(b.runner)),
    );
  });
});

describe('the location service', () => {
  test('tells its revoked port after a deletion or a rotation commits, never after a refused one', T, async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    try {
      const system: Actor = { type: 'system', surface: 'cli' };
      const ws = Number((await createWorkspaceService(db).create(system, { name: 'Port', slug: 'port', plan: 'scale' })).id);
      const revoked: number[] = [];
      const locations = createLocationService(db, { revoked: (id) => revoked.push(id) });
      const a = (await locations.create(system, ws, { name: 'port-a' })).location;
      const b = (await locations.create(system, ws, { name: 'port-b' })).location;
      await locations.update(system, ws, a.id, { metadata: { x: 'y' } });
      assert.deepEqual(revoked, [], 'an update revokes nothing');
      await locations.rotateToken(system, ws, a.id);
      await locations.delete(system, ws, b.id);
      assert.deepEqual(revoked, [Number(a.id), Number(b.id)]);
      await rejectsWith(locations.delete(system, ws, b.id), 'NOT_FOUND');
      await rejectsWith(locations.rotateToken(system, ws, '1'), 'PRECONDITION_FAILED');
      assert.deepEqual(revoked, [Number(a.id), Number(b.id)]);
    } finally {
      await db.destroy();
      await dir.remove();
    }
  });
});

describe('list_private_locations (MCP)', () => {
  for (const [client, connect] of [
    ['2.x SDK', (key: string) => connectMcp(svc.apiUrl, '2025-11-25', key)],
    ['1.x SDK', (key: string) => connectMcpV1(svc.apiUrl, key)],
  ] as const)
    test(`names each location with id, name, status, metadata, lastSeenAt and embedded; never a token (${client})`, T, async () => {
      const ws = await workspace('loc-mcp');
      const created = await ws.write.createPrivateLocation({ name: uniqueName('mcp'), metadata: { rack: 'a1' } });
      const mcp = await connect(ws.readKey);
      try {
        const listed = ok(await mcp.call('list_private_locations'));
        assert.deepEqual(
          listed.privateLocations.map((l: Record<string, unknown>) => Object.keys(l).sort()),
          [0, 1].map(() => ['embedded', 'id', 'lastSeenAt', 'metadata', 'name', 'status']),
        );
        assert.deepEqual(listed.privateLocations[1], {
          id: created.privateLocation!.id,
          name: created.privateLocation!.name,
          status: 'error',
          metadata: { rack: 'a1' },
          lastSeenAt: null,
          embedded: false,
        });
        assert.deepEqual([listed.privateLocations[0].name, listed.privateLocations[0].embedded], ['local', true]);
        assert.deepEqual(listed.pagination, { page: 1, perPage: 50, totalSize: 2, totalPages: 1 });
      } finally {
        await mcp.close();
      }
    });
});

describe('statusdesk locations', () => {
  test('create prints the token once with the runner command; list, get, update, rotate-token and delete', T, async () => {
    const ws = await workspace('loc-cli');
    const env = { SERVICE_API_KEY: ws.writeKey, SERVICE_API_URL: `${svc.apiUrl}/rpc`, STATUSDESK_DATA_DIR: undefined };
    const cli = (args: string[]) => runCli(['locations', ...args], env);
    const name = uniqueName('cli');

    const created = await cli(['create', '--name', name, '--meta', 'network=office']);
    assert.equal(created.code, 0, created.stderr);
    const token = /token: (svc_run_\S+)/.exec(created.stdout)?.[1];
    assert.ok(token && TOKEN.test(token), created.stdout);
    assert.ok(created.stdout.includes(`statusdesk runner --api-url ${svc.apiUrl} --token ${token}`), created.stdout);
    assert.match(created.stderr, /shown only now/);
    const id = tableOf(created.stdout).find((row) => row[0] === 'id')![1]!;

    const listed = await cli(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = tableOf(listed.stdout);
    assert.deepEqual(rows[0], ['ID', 'NAME', 'STATUS', 'LAST SEEN', 'VERSION', 'HOST', 'METADATA']);
    assert.deepEqual(
      rows.slice(1).map((r) => r[1]),
      ['local (embedded)', name],
    );
    assert.deepEqual(rows[2]!.slice(2, 4), ['error', '-'], 'never heard from: in error, never seen');
    assert.ok(!listed.stdout.includes(token!));

    const json = jsonOf(await cli(['get', id, '--json']));
    assert.deepEqual(
      [json.name, json.status, json.embedded, json.metadata, json.lastSeenAt, json.runnerVersion, json.droppedResults],
      [name, 'error', false, { network: 'office' }, null, null, 0],
    );

    const renamed = uniqueName('cli-renamed');
    const updated = jsonOf(await cli(['update', id, '--name', renamed, '--meta', 'rack=b2', '--json']));
    assert.deepEqual([updated.name, updated.metadata], [renamed, { rack: 'b2' }]);
    assert.deepEqual(jsonOf(await cli(['update', id, '--clear-metadata', '--json'])).metadata, {});
    assert.equal((await cli(['update', id])).code, 2, 'nothing to change is a usage error');
    const refused = await cli(['create', '--name', 'iad']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^statusdesk: --name: must not be a region id/);

    const rotated = jsonOf(await cli(['rotate-token', id, '--json']));
    assert.match(rotated.token, TOKEN);
    assert.notEqual(rotated.token, token);
    assert.equal(rotated.runnerCommand, `statusdesk runner --api-url ${svc.apiUrl} --token ${rotated.token}`);

    assert.equal((await cli(['delete', id])).code, 2, 'off a terminal, delete needs --yes');
    const deleted = await cli(['delete', id, '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stderr, new RegExp(`Deleted private location ${id}`));
    assertOneLineError(await cli(['get', id]), /does not exist/);
  });
});
