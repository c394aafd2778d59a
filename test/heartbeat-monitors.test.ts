/**
 * Heartbeat monitors through the whole service: deadlines evaluated by the engine on its own clock
 * (moved by the test, never waited for), period and cron schedules in a time zone across a change
 * of clocks, a run that does not finish, the rules of every field, and the surfaces: RPC, the
 * command (create, get, rotate-token, pings, apply -f, export), MCP, and where the ping token never
 * shows (answers, the data folder, the audit log, the log).
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { HeartbeatMonitorSchema, ListMonitorsResponseSchema } from '../proto/gen/monitor/v1/monitor_pb.js';
import { toJson } from '@bufbuild/protobuf';
import { serviceConfig } from '../server/config.ts';
import type { MonitorStateChange } from '../server/domain/monitors/check-results.ts';
import { startService } from '../server/main.ts';
import { monitorTools } from '../server/mcp/monitor-tools.ts';
import { databaseEnv, withLocalOwner } from './support/database.ts';
import { assertViolation, jsonOf, monitorRpc, newWorkspace, perTestCleanup, runCli, startTestService, type TestService, tempDir } from './support/harness.ts';
import { createHeartbeat, curl, heartbeatOf, movableClock, resultAfter, resultsOf } from './support/heartbeats.ts';
import { eventually } from './support/wait.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

/** A service of its own that schedules its monitors on a clock the test moves, its state changes recorded. */
async function scheduling(t: { after(fn: () => Promise<void>): void }) {
  const clock = movableClock();
  const service = await startTestService({ STATUSDESK_CHECKS: 'on' }, undefined, { now: clock.now });
  t.after(() => service.stop());
  const changes: MonitorStateChange[] = [];
  service.engine.onStateChange((change) => changes.push(change));
  const workspace = await newWorkspace(service, 'hb-clock');
  const rpc = monitorRpc(service, (await service.createKey('write', workspace.slug)).secret);
  return { clock, service, changes, rpc };
}

/** Waits for the monitor's state to change to `to`, and gives the change. */
function changeTo(changes: MonitorStateChange[], monitorId: string, to: string, after = 0): Promise<MonitorStateChange> {
  return eventually(
    () => changes.filter((c) => c.monitorId === monitorId).slice(after),
    (list) => list.some((c) => c.to === to),
    `monitor ${monitorId} goes ${to}`,
    8_000,
  ).then((list) => list.find((c) => c.to === to)!);
}

describe('heartbeat deadlines, on the engine clock', () => {
  test('a period: pending until the first deadline, never pinged after it; up on a success, down when the next is missed by the grace time', async (t) => {
    const { clock, service, changes, rpc } = await scheduling(t);
    const { monitor, pingUrl } = await createHeartbeat(rpc, { name: 'nightly', schedule: '1h', grace: { seconds: 300n } });
    const created = Date.parse(iso(Number(monitor.createdAt!.seconds) * 1000 + monitor.createdAt!.nanos / 1e6));

    // Before its first deadline a monitor never pinged records nothing: it is pending.
    assert.deepEqual((await rpc.triggerMonitor({ id: monitor.id })).results, []);
    clock.setTo(created + HOUR + 5 * MINUTE - 30_000);
    assert.deepEqual((await rpc.triggerMonitor({ id: monitor.id })).results, [], 'still within the grace time');
    assert.equal((await rpc.getMonitorStatus({ id: monitor.id })).overall, 0, 'no state yet');

    // Past it, the engine's watch sees the deadline within a second of its clock.
    clock.setTo(created + HOUR + 5 * MINUTE + 1_000);
    const never = await changeTo(changes, monitor.id, 'down');
    assert.equal(never.message, `never pinged; expected by ${iso(created + HOUR)}`);
    const [stored] = await resultsOf(service.db, monitor.id);
    assert.deepEqual([heartbeatOf(stored!)?.status, heartbeatOf(stored!)?.lastPingAt], ['NEVER_PINGED', null]);

    const pinged = clock.now();
    assert.equal((await curl(pingUrl)).status, 200);
    const up = await changeTo(changes, monitor.id, 'up');
    assert.equal(up.kind, 'recovered');

    // Just within the grace time after the next expected ping, it is still up; past it, down.
    clock.setTo(pinged + HOUR + 5 * MINUTE - 5_000);
    const waiting = (await rpc.triggerMonitor({ id: monitor.id })).results[0]!;
    assert.equal(waiting.result, 'up');
    assert.equal(waiting.heartbeat?.status, 'OK');
    clock.setTo(pinged + HOUR + 5 * MINUTE + 1_000);
    const missed = await changeTo(changes, monitor.id, 'down', 2);
    assert.match(missed.message, /^no ping since (\S+); expected by (\S+)$/);
    const [, since, expected] = /^no ping since (\S+); expected by (\S+)$/.exec(missed.message)!;
    assert.ok(Math.abs(Date.parse(since!) - pinged) < 2_000, `since ${since}`);
    assert.equal(Date.parse(expected!) - Date.parse(since!), HOUR, 'a period counts from the last success');
  });

  test('a cron expression in a time zone, across the spring change of clocks: the deadline follows the local time', async (t) => {
    const { clock, service, changes, rpc } = await scheduling(t);
    const { monitor, pingUrl } = await createHeartbeat(rpc, {
      name: 'backup at 02:30 Paris time',
      schedule: '30 2 * * *',
      timezone: 'Europe/Paris',
      grace: { seconds: 900n },
    });
    // Saturday before the change (Sunday 28 March 2027, 02:00 CET becomes 03:00 CEST): 02:30 does not
    // exist that night, so the run is expected at the first time after the gap, 03:00 CEST (01:00 UTC).
    clock.setTo(Date.parse('2027-03-27T12:00:00Z'));
    const before = (await resultsOf(service.db, monitor.id)).length;
    await curl(pingUrl);
    const saturday = await resultAfter(service.db, monitor.id, before, (r) => heartbeatOf(r)?.status === 'OK', 'the success is recorded');
    assert.equal(heartbeatOf(saturday)?.expectedBy, '2027-03-28T01:00:00.000Z');
    assert.equal(heartbeatOf(saturday)?.downAt, '2027-03-28T01:15:00.000Z');

    const downs = changes.filter((c) => c.monitorId === monitor.id).length;
    clock.setTo(Date.parse('2027-03-28T01:15:01Z'));
    const missed = await changeTo(changes, monitor.id, 'down', downs);
    assert.match(missed.message, /; expected by 2027-03-28T01:00:00.000Z$/);

    // The job runs late; from then on the night's run is at 02:30 CEST, 00:30 UTC.
    const count = (await resultsOf(service.db, monitor.id)).length;
    await curl(pingUrl);
    const sunday = await resultAfter(service.db, monitor.id, count, (r) => heartbeatOf(r)?.status === 'OK', 'the late success is recorded');
    assert.equal(heartbeatOf(sunday)?.expectedBy, '2027-03-29T00:30:00.000Z');
  });

  test('a run that starts and does not finish within the grace time is down; the start of a run that finishes measures it', async (t) => {
    const { clock, service, changes, rpc } = await scheduling(t);
    const { monitor, pingUrl } = await createHeartbeat(rpc, { name: 'export', schedule: '1d', grace: { seconds: 600n } });
    await curl(`${pingUrl}/start`);
    const started = clock.now();
    const running = await resultAfter(service.db, monitor.id, 0, (r) => heartbeatOf(r)?.status === 'RUNNING', 'the start is recorded');
    assert.equal(running.result, 'up');

    clock.setTo(started + 10 * MINUTE + 1_000);
    const stuck = await changeTo(changes, monitor.id, 'down');
    assert.match(stuck.message, /^started at \S+ and did not finish$/);
    assert.ok(Math.abs(Date.parse(/^started at (\S+)/.exec(stuck.message)![1]!) - started) < 2_000);

    // It finishes at last: up, with the whole run's time.
    const count = (await resultsOf(service.db, monitor.id)).length;
    await curl(pingUrl);
    assert.equal((await changeTo(changes, monitor.id, 'up', 1)).kind, 'recovered');
    const finished = await resultAfter(service.db, monitor.id, count, (r) => r.result === 'up', 'the end of the run is recorded');
    assert.ok(finished.latency_ms > 10 * MINUTE, `run time ${finished.latency_ms}`);
  });
});

describe('heartbeat monitors', () => {
  let service: TestService;
  const cleanup = perTestCleanup();

  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  async function setUp(prefix: string) {
    const workspace = await newWorkspace(service, prefix);
    const key = (await service.createKey('write', workspace.slug)).secret;
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl, STATUSDESK_DATA_DIR: undefined };
    return { workspace, key, env, rpc: monitorRpc(service, key) };
  }

  const countRows = async (table: 'monitors' | 'heartbeats' | 'audit_log') =>
    Number(
      (
        await service.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('every field is checked, the refusal names it and its rule, and nothing is stored', async () => {
    const { rpc } = await setUp('hb-rules');
    const before = await Promise.all([countRows('monitors'), countRows('heartbeats')]);
    const input = { name: 'rules', schedule: '1d', periodicity: 6, regions: ['iad'] };
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ schedule: '' }, 'monitor.schedule', /is required: a period like 1d/],
      [{ schedule: 'daily' }, 'monitor.schedule', /must be a period like 30m.*or a cron expression/],
      [{ schedule: '30s' }, 'monitor.schedule', /must be a period like 30m, 12h, 1d or 1h30m \(units m, h, d, w\)/],
      [{ schedule: '0m' }, 'monitor.schedule', /a period must be 1 m to 365 d, got 0m/],
      [{ schedule: '400d' }, 'monitor.schedule', /a period must be 1 m to 365 d, got 400d/],
      [{ schedule: '0 3 * *' }, 'monitor.schedule', /a cron expression must have five fields/],
      [{ schedule: '61 3 * * *' }, 'monitor.schedule', /is not a cron expression croner accepts: Invalid value for minute: 61/],
      [{ schedule: '0 0 31 2 *' }, 'monitor.schedule', /never fires/],
      [
        { schedule: '0 3 * * *', timezone: 'Mars/Olympus_Mons' },
        'monitor.timezone',
        /must be an IANA time zone like Europe\/Paris or UTC, got "Mars\/Olympus_Mons"/,
      ],
      [{ timezone: 'Europe/Paris' }, 'monitor.timezone', /is for a cron schedule only/],
      [{ grace: { seconds: 30n } }, 'monitor.grace', /must be at least 1 min/],
      [{ grace: { seconds: 31n * 86_400n } }, 'monitor.grace', /must be at most 30 d/],
      [{ privateLocations: ['1'] }, 'monitor.privateLocations', /must be empty: heartbeats are not checked by private locations/],
      [{ timeout: { seconds: 10n } }, 'monitor.timeout', /a heartbeat monitor runs no check: leave it out/],
      [{ retry: 1 }, 'monitor.retry', /runs no check/],
      [{ degraded: { seconds: 1n } }, 'monitor.degraded', /runs no check/],
      [{ periodicity: 0 }, 'monitor.periodicity', /is required/],
      [{ regions: ['nowhere'] }, 'monitor.regions.0', /must be a region of the catalogue/],
    ];
    for (const [change, field, rule] of refusals) {
      await assertViolation(rpc.createHeartbeatMonitor({ monitor: { ...input, ...change } as never }), field, rule);
    }
    assert.deepEqual(await Promise.all([countRows('monitors'), countRows('heartbeats')]), before, 'no refused monitor was stored, nor a token');

    // An update is held to the same rules, and a refused one changes nothing.
    const { monitor } = await createHeartbeat(rpc, { name: 'kept', schedule: '0 3 * * *', timezone: 'Europe/Paris' });
    await assertViolation(rpc.updateHeartbeatMonitor({ id: monitor.id, monitor: { schedule: '1d' } }), 'monitor.timezone', /is for a cron schedule only/);
    await assertViolation(rpc.updateHeartbeatMonitor({ id: monitor.id, monitor: { schedule: '* * *' } }), 'monitor.schedule', /five fields/);
    const stored = (await rpc.getMonitor({ id: monitor.id })).monitor;
    assert.equal(stored.case, 'heartbeatMonitor');
    assert.deepEqual([stored.value!.schedule, (stored.value as { timezone: string }).timezone], ['0 3 * * *', 'Europe/Paris']);
    const updated = (
      await rpc.updateHeartbeatMonitor({ id: monitor.id, monitor: { schedule: '1d', timezone: '' }, updateMask: { paths: ['schedule', 'timezone'] } })
    ).monitor!;
    assert.deepEqual([updated.schedule, updated.timezone, updated.grace?.seconds], ['1d', 'UTC', 3600n]);
    // Rotation and pings are a heartbeat's own: another type's monitor has neither.
    const tcp = (await rpc.createTCPMonitor({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: 6, regions: ['iad'] } })).monitor!;
    await assertViolation(rpc.rotateHeartbeatToken({ id: tcp.id }), 'id', /is a tcp monitor: only heartbeat monitors have a ping URL/);
  });

  test('the token shows in the answers to create and rotate only: not in get, list, MCP, export, the audit log, the data folder or the log', async () => {
    // A service of its own, whose log is kept to be read.
    const dir = await tempDir();
    let log = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        log += chunk;
        done();
      },
    });
    const config = serviceConfig({ dataDir: dir.path, port: '0', dashboardPort: '0' }, { STATUSDESK_CHECKS: 'off', ...(await databaseEnv(dir.path)) });
    const own = await startService(config, pino({ level: 'debug' }, sink));
    try {
      const { secret, workspaceId } = await withLocalOwner(dir.path, async (services, owner) => {
        const workspace = await services.workspaces.getBySlug(owner, 'personal');
        const made = await services.keys.create(owner, { workspaceId: Number(workspace.id), name: 'hb', scope: 'write' });
        return { secret: made.secret, workspaceId: Number(workspace.id) };
      });
      const rpc = monitorRpc(own as unknown as TestService, secret);
      const { monitor, pingUrl, token } = await createHeartbeat(rpc, { name: 'secret keeper', schedule: '1d' });
      assert.equal((await curl(pingUrl)).status, 200);
      assert.equal((await curl(`${pingUrl}/start`, ['-X', 'POST', '--data', 'x'])).status, 200);
      const { pingUrl: next } = await rpc.rotateHeartbeatToken({ id: monitor.id });
      const nextToken = next.slice(next.lastIndexOf('/') + 1);
      assert.equal((await fetch(pingUrl)).status, 404, 'the old token is refused at once');
      assert.equal((await fetch(next)).status, 200);

      const answers = [
        JSON.stringify(toJson(HeartbeatMonitorSchema, (await rpc.getMonitor({ id: monitor.id })).monitor.value as never)),
        JSON.stringify(toJson(ListMonitorsResponseSchema, await rpc.listMonitors({}))),
      ];
      const context = { actor: { type: 'system', surface: 'mcp' } as const, workspaceId, services: own.services, content: undefined as never };
      for (const name of ['get_monitor', 'list_monitors']) {
        const tool = monitorTools.find((t) => t.name === name)!;
        answers.push(JSON.stringify(await tool.run(context as never, name === 'get_monitor' ? { monitorId: Number(monitor.id) } : { page: 1, perPage: 50 })));
      }
      const exported = await runCli(['export', '--api-url', own.apiUrl], {
        SERVICE_API_KEY: secret,
        SERVICE_API_URL: undefined,
        STATUSDESK_DATA_DIR: undefined,
      });
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /type: heartbeat/);
      answers.push(exported.stdout);
      const audit = await own.db
        .selectFrom('audit_log')
        .select(['action', 'before', 'after'])
        .where('entity_type', '=', 'monitor')
        .where('entity_id', '=', monitor.id)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['monitor.create', 'monitor.rotate_ping_token'],
      );
      answers.push(JSON.stringify(audit));
      for (const [i, answer] of answers.entries()) {
        assert.ok(answer.includes('secret keeper') || answer.includes('rotate'), `answer ${i} is about the monitor`);
        for (const t of [token, nextToken]) assert.ok(!answer.includes(t) && !answer.includes(t.slice(3)), `answer ${i} does not show a token`);
      }
      await own.close();
      for (const file of await readdir(dir.path, { recursive: true })) {
        const bytes = await readFile(join(dir.path, file)).catch(() => Buffer.alloc(0));
        for (const t of [token, nextToken]) assert.equal(bytes.indexOf(t.slice(3)), -1, `${file} does not hold a token in the clear`);
      }
      assert.match(log, /"path":"\/ping\/…"/, 'the pings are in the log, without their path');
      for (const t of [token, nextToken]) assert.ok(!log.includes(t.slice(3)), 'the log does not show a token');
    } finally {
      await own.close().catch(() => {});
      await dir.remove();
    }
  });

  test('the command: create prints the ping URL once, get shows the schedule, rotate-token and pings; apply -f creates one and prints its URL', async () => {
    const { env, rpc } = await setUp('hb-cli');
    const created = await runCli(
      [
        'monitors',
        'create',
        'heartbeat',
        '--name',
        'db dump',
        '--target',
        '15 4 * * *',
        '--timezone',
        'America/New_York',
        '--grace',
        '45m',
        '--frequency',
        '10m',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const [id, url] = created.stdout.trim().split('\n');
    assert.match(url!, new RegExp(`^${service.apiUrl}/ping/hb_[A-Za-z0-9_-]{43}$`));
    assert.match(created.stderr, /shown this once/);

    const shown = jsonOf(await runCli(['monitors', 'get', id!, '--json'], env));
    assert.deepEqual(
      [shown.type, shown.target, shown.timezone, shown.grace, shown.frequency],
      ['heartbeat', '15 4 * * *', 'America/New_York', 2_700_000, '10m'],
    );
    assert.ok(!JSON.stringify(shown).includes(url!.slice(url!.lastIndexOf('/') + 4)));
    const table = await runCli(['monitors', 'get', id!], env);
    assert.match(table.stdout, /target\s+15 4 \* \* \*/);
    assert.match(table.stdout, /grace\s+2700000 ms/);

    const refused = await runCli(['monitors', 'create', 'heartbeat', '--name', 'x', '--target', '1d', '--grace', 'soon', '--frequency', '10m'], env);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--grace must be a duration like 500ms, 45s, 15m, 2h or 1d, got "soon"/);

    assert.equal((await curl(url!, ['--data-binary', 'dumped 42 tables'])).status, 200);
    const pings = jsonOf(await runCli(['monitors', 'pings', id!, '--json'], env)).pings;
    assert.deepEqual(
      pings.map((p: { kind: string; body: string; method: string }) => [p.kind, p.body, p.method]),
      [['success', 'dumped 42 tables', 'POST']],
    );
    assert.match((await runCli(['monitors', 'pings', id!], env)).stdout, /success\s+-\s+-\s+\S+\s+dumped 42 tables/);

    const rotated = await runCli(['monitors', 'rotate-token', id!, '--yes'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const next = rotated.stdout.trim();
    assert.notEqual(next, url);
    assert.equal((await fetch(url!)).status, 404);
    assert.equal((await fetch(next)).status, 200);

    const file = join(await cleanup.folder(), 'monitors.yaml');
    await writeFile(
      file,
      'version: 1\nmonitors:\n  - name: weekly report\n    type: heartbeat\n    target: "@weekly"\n    grace: 7200000\n    frequency: 1h\n    regions: [fra]\n',
    );
    const applied = await runCli(['apply', '-f', file], env);
    assert.equal(applied.code, 0, applied.stderr);
    const applyUrl = /heartbeat monitor weekly report: its ping URL, shown this once: (\S+)/.exec(applied.stderr)?.[1];
    assert.ok(applyUrl, applied.stderr);
    assert.equal((await fetch(applyUrl)).status, 200);
    const again = await runCli(['apply', '-f', file], env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /ping URL/, 'an unchanged monitor is not made again, nor its URL shown');
    const exported = await runCli(['export'], env);
    assert.match(exported.stdout, /- name: weekly report\n\s+type: heartbeat\n\s+target: "@weekly"/);
    const list = await rpc.listMonitors({});
    assert.equal(list.heartbeatMonitors.length, 2);
  });
});
