/**
 * The check core every runner shares (server/checks/check-runner.ts): the forms of a monitor and a
 * check between the service and a remote runner, what a hostile runner may not report, and the
 * tracked monitors with a real probe against a loopback listener.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import pino from 'pino';
import { type RunnerCheck, RunnerCheckSchema } from '../proto/gen/runner/v1/runner_pb.js';
import { createCheckRunner, decodeDefinition, encodeDefinition, fromRunnerCheck, toRunnerCheck } from '../server/checks/check-runner.ts';
import type { StoredCheck } from '../server/checks/result-store.ts';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { findMonitor } from '../server/domain/monitors/monitors.ts';
import { sealerOf } from '../server/domain/sealing.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { createServices } from '../server/services.ts';
import { startTcpListener } from './support/grpc-peers.ts';
import { storedCheck } from './support/checks.ts';
import { tempDir } from './support/harness.ts';

const T = Date.UTC(2026, 0, 15, 12);
const office = { runner: 'office', regions: ['office'], workspaceId: 3 };

/** An HTTP check with every field filled, as a probe makes one. */
function httpCheck(): StoredCheck {
  return {
    ...storedCheck(42, 3, T, 'degraded', 120.5),
    timing: { dns: 1.5, connect: 2, tls: null, ttfb: 100, transfer: 17, total: 120.5 },
    attempts: 2,
    statusCode: 200,
    url: 'http://127.0.0.1:8080/health',
    responseHeaders: { 'content-type': 'application/json', 'set-cookie': '[redacted]' },
    assertionResults: [{ assertion: 'status code equal 200', passed: true, actual: '200' }],
  };
}

/** A check as a runner sends it: encoded and decoded as on the wire. */
const wire = (sequence: number, check: StoredCheck): RunnerCheck =>
  fromBinary(RunnerCheckSchema, toBinary(RunnerCheckSchema, create(RunnerCheckSchema, toRunnerCheck(sequence, check))));

/** The one-field VALIDATION error `fromRunnerCheck` throws for a check changed by `change`. */
function refusal(change: (message: RunnerCheck) => void): string {
  const message = wire(1, httpCheck());
  change(message);
  try {
    fromRunnerCheck(message, office);
  } catch (error) {
    assert.ok(error instanceof AppError && error.code === 'VALIDATION', String(error));
    return error.message;
  }
  assert.fail('the check was accepted');
}

describe('check core: a check between a runner and the service', () => {
  test('a check survives the wire whole, and is stored as made by the location, for the location alone', () => {
    const mcpCheck: StoredCheck = {
      ...storedCheck(9, 3, T, 'up', 40),
      mcp: {
        status: 'OK',
        protocolVersion: '2025-11-25',
        serverName: 'tools',
        serverVersion: '1.2.0',
        tools: [{ name: 'search', fingerprint: 'a'.repeat(64), text: '{"description":"Searches.","name":"search"}' }],
        prompts: 2,
        resources: null,
        warnings: ['search: U+200B in its description'],
        exitCode: null,
        stderrTail: '',
        signIn: null,
      },
    };
    for (const check of [httpCheck(), storedCheck(9, 3, T, 'down', 1_000), mcpCheck]) {
      const back = fromRunnerCheck(wire(17, check), office);
      assert.deepEqual(back, { ...check, runner: 'office', regions: ['office'] });
    }
    assert.equal(wire(17, httpCheck()).sequence, 17n);
  });

  test('what a hostile runner may not report is refused, naming the field', () => {
    assert.match(
      refusal((m) => (m.result = 'sideways')),
      /^result: must be one of up, degraded, down/,
    );
    assert.match(
      refusal((m) => (m.latencyMs = Number.NaN)),
      /^latencyMs: /,
    );
    assert.match(
      refusal((m) => (m.latencyMs = Number.POSITIVE_INFINITY)),
      /^latencyMs: /,
    );
    assert.match(
      refusal((m) => (m.latencyMs = -1)),
      /^latencyMs: must not be negative/,
    );
    assert.match(
      refusal((m) => (m.timing!.ttfb = -5)),
      /^timing\.ttfb: must not be negative/,
    );
    assert.match(
      refusal((m) => (m.message = 'x'.repeat(1_001))),
      /^message: must be at most 1000 characters/,
    );
    assert.match(
      refusal((m) => (m.monitorId = '../1')),
      /^monitorId: must be a monitor id/,
    );
    assert.match(
      refusal((m) => (m.startedAtMs = -1n)),
      /^startedAtMs: /,
    );
    assert.match(
      refusal((m) => (m.grpcStatus = 'FINE')),
      /^grpcStatus: /,
    );
    assert.match(
      refusal((m) => (m.attempts = -1)),
      /^attempts: /,
    );
    assert.match(
      refusal((m) => (m.statusCode = 70_000)),
      /^statusCode: /,
    );
    assert.match(
      refusal((m) => (m.responseHeaders = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-${i}`, 'v'])))),
      /^responseHeaders: must have at most 50 headers/,
    );
    assert.match(
      refusal((m) => (m.responseHeaders = { 'x-long': 'v'.repeat(1_001) })),
      /^responseHeaders\.x-long: must be at most 1000 characters/,
    );
    assert.match(
      refusal((m) => (m.assertionResults = Array.from({ length: 51 }, () => m.assertionResults[0]!))),
      /^assertionResults: must have at most 50 assertions/,
    );
  });
});

describe('check core: a monitor between the service and a runner', () => {
  test('a definition carries what checks read, credentials opened, and not what only people read', async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    try {
      const userId = await ensureOwner(db);
      const actor: Actor = { type: 'user', userId, surface: 'cli' };
      const services = createServices(db);
      const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
      const created = await services.monitors.create(actor, workspaceId, 'http', {
        name: 'api',
        description: 'the public API',
        url: 'http://127.0.0.1:9/health',
        periodicity: '1m',
        regions: ['iad'],
        headers: { authorization: 'Bearer s3cret' },
        tags: ['prod'],
      });
      const monitor = (await findMonitor(db, workspaceId, Number(created.id), sealerOf(db)))!;
      const decoded = decodeDefinition(encodeDefinition(monitor));
      assert.equal(decoded.id, created.id);
      assert.equal(decoded.type, 'http');
      assert.equal(decoded.periodicity, '1m');
      assert.deepEqual(decoded.type === 'http' && decoded.headers, { authorization: 'Bearer s3cret' });
      for (const field of ['description', 'tags', 'createdAt', 'updatedAt', 'privateLocations']) assert.equal(field in decoded, false, field);
    } finally {
      await db.destroy();
      await dir.remove();
    }
  });

  test('a definition that is not a monitor of this version is refused', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    for (const text of [
      'not json',
      'null',
      '{"id":"1","type":"udp","periodicity":"30s","regions":[]}',
      '{"id":"1","type":"tcp","periodicity":"2s","regions":[]}',
    ]) {
      assert.throws(
        () => decodeDefinition(bytes(text)),
        (error: unknown) => error instanceof AppError && /^definition: /.test(error.message),
        text,
      );
    }
  });
});

describe('check core: the tracked monitors', () => {
  test('a runner checks for its place, and a full round forgets the monitors it did not see', async () => {
    const peer = await startTcpListener('127.0.0.1');
    const checked: StoredCheck[] = [];
    const core = createCheckRunner({
      log: pino({ enabled: false }),
      version: 'test',
      place: { runner: 'office', regions: ['office'] },
      onCheck: (c) => checked.push(c),
      onGap: () => {},
    });
    try {
      const tcp = {
        id: '5',
        workspaceId: '3',
        type: 'tcp',
        active: true,
        periodicity: '30s',
        regions: [],
        uri: peer.uri,
        timeout: 1_000,
        retry: 0,
        degraded: null,
        openTelemetry: null,
      };
      const monitor = decodeDefinition(new TextEncoder().encode(JSON.stringify(tcp)));
      core.track(monitor, 1, 1);
      core.track({ ...monitor, id: '6' }, 1, 1);
      assert.equal(core.mark(5, 2), 1, 'the revision it is scheduled at');
      assert.equal(core.mark(99, 2), undefined);
      core.sweep(2);
      assert.deepEqual([core.scheduler.has(5), core.scheduler.has(6)], [true, false]);
      core.track({ ...monitor, active: false }, 2, 2);
      assert.equal(core.scheduler.has(5), false, 'a paused monitor is forgotten');

      // Monitors listing the same regions share one array, kept while a scheduled monitor holds it.
      core.track({ ...monitor, id: '7', regions: ['iad'] }, 1, 3);
      core.track({ ...monitor, id: '8', regions: ['iad'] }, 1, 3);
      const shared = core.monitor(7)!.regions;
      assert.equal(core.monitor(8)!.regions, shared);
      core.sweep(4);
      const fresh = ['iad'];
      core.track({ ...monitor, id: '9', regions: fresh }, 1, 4);
      assert.equal(core.monitor(9)!.regions, fresh, 'a sweep that forgot every monitor of a list drops the list');

      const result = (await core.check(monitor))!;
      assert.deepEqual([result.result, result.monitorId, result.workspaceId, result.runner, result.regions], ['up', 5, 3, 'office', ['office']]);
      core.moveTo({ runner: 'lab', regions: ['lab'] });
      assert.deepEqual((await core.check(monitor))!.regions, ['lab']);
      assert.equal(checked.length, 0, 'checks run by hand go to their caller alone');
    } finally {
      core.stop();
      await core.close();
      await peer.close();
    }
  });
});
