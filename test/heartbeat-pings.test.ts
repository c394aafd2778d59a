/**
 * The ping URLs of heartbeat monitors (/ping/<token> on the API port) against a real service, by
 * curl and by fetch: what each signal records, the run time from a start, bodies up to 10 KiB,
 * the same 404 for every token that names nothing, the per-token rate limit, and the pings kept.
 * The engine's clock is moved where time is the behaviour (a run's length, a minute of pings).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code } from '@connectrpc/connect';
import { HEARTBEAT_LIMITS } from '../contract/limits.ts';
import { assertCode, monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { type Clock, createHeartbeat, curl, heartbeatOf, movableClock, resultAfter, resultsOf } from './support/heartbeats.ts';

describe('heartbeat pings', () => {
  let service: TestService;
  let clock: Clock;

  before(async () => {
    clock = movableClock();
    service = await startTestService({}, undefined, { now: clock.now });
  });
  after(() => service.stop());

  async function setUp(prefix: string, schedule = '1d') {
    const workspace = await newWorkspace(service, prefix);
    const rpc = monitorRpc(service, (await service.createKey('write', workspace.slug)).secret);
    return { rpc, ...(await createHeartbeat(rpc, { name: `${prefix} job`, schedule })) };
  }

  test('by curl: a success, a run from its start to its success, and a failure with its exit status and body, each recorded at once', async () => {
    const { rpc, monitor, pingUrl } = await setUp('hb-curl');
    assert.ok(pingUrl.startsWith(`${service.apiUrl}/ping/hb_`), pingUrl);

    const ok = await curl(pingUrl);
    assert.deepEqual([ok.status, ok.body], [200, 'OK']);
    assert.match(ok.headers, /content-type: text\/plain/);
    assert.doesNotMatch(ok.headers, /set-cookie|access-control-/);
    const first = await resultAfter(service.db, monitor.id, 0, (r) => r.result === 'up', 'the success is recorded');
    assert.match(first.message, /^pinged at .*; next expected by /);
    assert.equal(first.latency_ms, 0, 'no run was measured');
    assert.equal(heartbeatOf(first)?.status, 'OK');

    const start = await curl(`${pingUrl}/start`, ['-A', 'backup.sh']);
    assert.equal(start.status, 200);
    const running = await resultAfter(service.db, monitor.id, 1, (r) => heartbeatOf(r)?.status === 'RUNNING', 'the start is recorded');
    assert.equal(running.result, 'up');
    // The run takes 90 s on the engine's clock.
    clock.shift(90_000);
    await curl(pingUrl);
    const ended = await resultAfter(service.db, monitor.id, 2, (r) => heartbeatOf(r)?.status === 'OK', 'the end of the run is recorded');
    assert.ok(ended.latency_ms >= 90_000 && ended.latency_ms < 95_000, `the run time is the result's latency: ${ended.latency_ms}`);
    assert.equal(heartbeatOf(ended)?.runTimeMs, ended.latency_ms);

    const failed = await curl(`${pingUrl}/3`, ['--data-binary', 'rsync: write failed on "/backup": No space left on device (28)\nmore lines\n']);
    assert.equal(failed.status, 200);
    const down = await resultAfter(service.db, monitor.id, 3, (r) => r.result === 'down', 'the failure is recorded');
    assert.equal(down.message, 'failed with exit status 3: rsync: write failed on "/backup": No space left on device (28) more lines');
    assert.deepEqual([heartbeatOf(down)?.status, heartbeatOf(down)?.exitStatus, heartbeatOf(down)?.pingKind], ['FAILED', 3, 'fail']);

    const { pings } = await rpc.listHeartbeatPings({ id: monitor.id });
    assert.deepEqual(
      pings.map((p) => [p.kind, p.exitStatus ?? null, p.method]),
      [
        ['fail', 3, 'POST'],
        ['success', null, 'GET'],
        ['start', null, 'GET'],
        ['success', null, 'GET'],
      ],
    );
    assert.match(pings[0]!.body, /^rsync: write failed/);
    assert.ok(pings[1]!.runTimeMs! >= 90_000, 'the run time is kept with the ping that ended the run');
    assert.equal(pings[2]!.userAgent, 'backup.sh');
    assert.match(pings[3]!.userAgent, /^curl\//);
    assert.ok(['127.0.0.1', '::ffff:127.0.0.1', '::1'].includes(pings[0]!.address), pings[0]!.address);

    // The next success ends the failure.
    await curl(`${pingUrl}/0`);
    const back = await resultAfter(service.db, monitor.id, 4, (r) => r.result === 'up', 'a success after the failure is up');
    assert.equal(heartbeatOf(back)?.exitStatus, 0);
  });

  test('by fetch: GET, HEAD and POST each ping; /fail without a status is a failure; the answer sets no cookie and no CORS header', async () => {
    const { rpc, monitor, pingUrl } = await setUp('hb-fetch');
    for (const method of ['GET', 'HEAD', 'POST']) {
      const answer = await fetch(pingUrl, { method, headers: { cookie: 'session=anything' } });
      assert.equal(answer.status, 200, method);
      assert.equal(await answer.text(), method === 'HEAD' ? '' : 'OK');
      assert.equal(answer.headers.get('set-cookie'), null);
      assert.equal(answer.headers.get('access-control-allow-origin'), null);
    }
    const fail = await fetch(`${pingUrl}/fail`, { method: 'POST', body: 'the job said no' });
    assert.equal(fail.status, 200);
    const down = await resultAfter(service.db, monitor.id, 0, (r) => r.result === 'down', 'the failure is recorded');
    assert.equal(down.message, 'reported a failure: the job said no');
    const { pings } = await rpc.listHeartbeatPings({ id: monitor.id, limit: 10 });
    assert.deepEqual(
      pings.map((p) => [p.method, p.kind]),
      [
        ['POST', 'fail'],
        ['POST', 'success'],
        ['HEAD', 'success'],
        ['GET', 'success'],
      ],
    );
  });

  test('a body of 10 KiB is kept whole; one byte more is refused with 413 and nothing is kept, whether its length is declared or not', async () => {
    const { rpc, monitor, pingUrl } = await setUp('hb-body');
    const whole = 'x'.repeat(HEARTBEAT_LIMITS.bodyBytes - 3) + 'end';
    const kept = await fetch(pingUrl, { method: 'POST', body: whole });
    assert.equal(kept.status, 200);
    assert.equal((await rpc.listHeartbeatPings({ id: monitor.id })).pings[0]!.body, whole);

    const over = `${whole}!`;
    const declared = await fetch(pingUrl, { method: 'POST', body: over });
    assert.equal(declared.status, 413);
    assert.match(await declared.text(), /over 10240 bytes: nothing was kept/);
    const chunked = await curl(pingUrl, ['-H', 'Transfer-Encoding: chunked', '--data-binary', over]);
    assert.equal(chunked.status, 413);
    const { pings } = await rpc.listHeartbeatPings({ id: monitor.id });
    assert.equal(pings.length, 1, 'the refused pings were not kept');
    assert.equal((await resultsOf(service.db, monitor.id)).length <= 1, true, 'and recorded nothing');
  });

  test('a wrong token, a malformed one, a rotated one and an unknown signal all get the same 404, which tells nothing', async () => {
    const { rpc, monitor, pingUrl, token } = await setUp('hb-404');
    const answers = [];
    const urls = [
      `${service.apiUrl}/ping/hb_${'A'.repeat(43)}`,
      `${service.apiUrl}/ping/not-a-token`,
      `${service.apiUrl}/ping/`,
      `${pingUrl}/later`,
      `${pingUrl}/256`,
    ];
    for (const url of urls) answers.push(await fetch(url));
    const { pingUrl: rotated } = await rpc.rotateHeartbeatToken({ id: monitor.id });
    assert.notEqual(rotated, pingUrl);
    assert.ok(!rotated.includes(token));
    answers.push(await fetch(pingUrl), await fetch(pingUrl, { method: 'POST', body: 'x' }));
    const shapes = await Promise.all(
      answers.map(async (a) => ({ status: a.status, body: await a.text(), type: a.headers.get('content-type'), length: a.headers.get('content-length') })),
    );
    for (const [i, shape] of shapes.entries()) assert.deepEqual(shape, shapes[0], `answer ${i} is the same as the first`);
    assert.deepEqual([shapes[0]!.status, shapes[0]!.body], [404, 'not found']);
    // The new URL pings; nothing of the refused ones was kept.
    assert.equal((await fetch(rotated)).status, 200);
    assert.equal((await rpc.listHeartbeatPings({ id: monitor.id })).pings.length, 1);
  });

  test('each token may ping 60 times a minute: the 61st is 429 with Retry-After; a minute later it passes; the newest 100 pings are kept', async () => {
    const { rpc, monitor, pingUrl } = await setUp('hb-rate');
    const other = await setUp('hb-rate-other');
    // A burst of 60, then one a second: the pings of these few seconds refill a few more.
    const started = performance.now();
    let refused: Response | undefined;
    let sent = 0;
    while (!refused && sent < 70) {
      const answer = await fetch(pingUrl, { method: 'POST', body: `ping ${sent}` });
      if (answer.status === 429) refused = answer;
      else assert.equal(answer.status, 200, `ping ${sent++}`);
    }
    const refills = Math.ceil((performance.now() - started) / 1_000);
    assert.ok(refused, 'a ping was refused');
    assert.ok(sent >= HEARTBEAT_LIMITS.pingsPerMinute && sent <= HEARTBEAT_LIMITS.pingsPerMinute + refills, `${sent} pings passed in ${refills} s`);
    assert.ok(Number(refused!.headers.get('retry-after')) >= 1, `Retry-After: ${refused!.headers.get('retry-after')}`);
    assert.match(await refused!.text(), /at most 60 pings a minute/);
    assert.equal((await fetch(other.pingUrl)).status, 200, "another monitor's token has its own budget");

    clock.shift(60_000);
    const total = HEARTBEAT_LIMITS.pingsKept + 5;
    for (let i = sent; i < total; i++) assert.equal((await fetch(pingUrl, { method: 'POST', body: `ping ${i}` })).status, 200, `ping ${i}`);
    const { pings } = await rpc.listHeartbeatPings({ id: monitor.id, limit: 100 });
    assert.equal(pings.length, HEARTBEAT_LIMITS.pingsKept);
    assert.deepEqual([pings[0]!.body, pings.at(-1)!.body], [`ping ${total - 1}`, 'ping 5'], 'the oldest five were dropped');
    const stored = await service.db
      .selectFrom('heartbeat_pings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('monitor_id', '=', Number(monitor.id))
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), HEARTBEAT_LIMITS.pingsKept);
    await assertCode(rpc.listHeartbeatPings({ id: monitor.id, limit: 101 }), Code.InvalidArgument, /limit: must be 1 to 100/);
  });
});
