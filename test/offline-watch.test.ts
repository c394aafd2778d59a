/**
 * The offline watch (server/checks/offline.ts): when this machine's own network is gone, its
 * checks' failures are its own, not their targets'. Driven by the checks and times given, and by
 * a network reading the test sets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOfflineWatch, hasNetwork } from '../server/checks/offline.ts';
import { isOnThisMachine } from '../server/domain/monitors/monitor-types.ts';

const T0 = 1_800_000_000_000;
const down = (monitorId: number, at: number, message = 'network unreachable', local = false) => ({ monitorId, result: 'down' as const, message, at, local });
const up = (monitorId: number, at: number, local = false) => ({ monitorId, result: 'up' as const, message: 'connected', at, local });

test('no network at all: the first failing check says so, and the network coming back ends it', () => {
  let online = false;
  const watch = createOfflineWatch({ network: () => online });
  const changes: string[] = [];
  watch.onChange((change) =>
    changes.push('offline' in change ? `offline since ${change.offline.since}` : `online ${change.online.since}..${change.online.until}`),
  );
  assert.equal(watch.noteCheck(up(1, T0)), undefined, 'a check that went through says nothing');
  const state = watch.noteCheck(down(1, T0 + 1_000, 'connection refused'));
  assert.equal(state?.since, T0 + 1_000);
  assert.match(state!.reason, /no network/);
  watch.noteCheck(down(2, T0 + 2_000));
  watch.recheck(T0 + 5_000);
  assert.ok(watch.state, 'still offline while the reading says so');
  online = true;
  watch.recheck(T0 + 9_000);
  assert.equal(watch.state, undefined);
  assert.deepEqual(changes, [`offline since ${T0 + 1_000}`, `online ${T0 + 1_000}..${T0 + 9_000}`]);
});

test('with a network: three monitors failing the same way within a minute, and nothing going through, is offline', () => {
  const watch = createOfflineWatch({ network: () => true });
  assert.equal(watch.noteCheck(down(1, T0)), undefined);
  assert.equal(watch.noteCheck(down(2, T0 + 10_000, 'DNS lookup failed: the resolver did not answer')), undefined);
  const state = watch.noteCheck(down(3, T0 + 20_000));
  assert.equal(state?.since, T0);
  assert.match(state!.reason, /the checks of 3 monitors failed the same way/);
  assert.equal(watch.noteCheck(up(4, T0 + 30_000, true))?.since, T0, 'a target on this machine says nothing of the network');
  assert.equal(watch.noteCheck(up(1, T0 + 40_000)), undefined, 'a check beyond this machine going through ends it');
});

test('failures a target explains, or spread over more than a minute, or beside a check that went through, are not offline', () => {
  const refused = createOfflineWatch({ network: () => true });
  for (let id = 1; id <= 5; id++) assert.equal(refused.noteCheck(down(id, T0 + id, 'connection refused')), undefined, 'a refusal is the target’s');
  const local = createOfflineWatch({ network: () => true });
  for (let id = 1; id <= 5; id++) assert.equal(local.noteCheck(down(id, T0 + id, 'network unreachable', true)), undefined, 'loopback targets');
  const unplugged = createOfflineWatch({ network: () => false });
  assert.equal(
    unplugged.noteCheck(down(1, T0, 'connection refused', true)),
    undefined,
    'without a network, a loopback target failing is still its own failure',
  );
  const spread = createOfflineWatch({ network: () => true });
  for (let id = 1; id <= 3; id++) assert.equal(spread.noteCheck(down(id, T0 + id * 61_000)), undefined, 'over more than a minute');
  const through = createOfflineWatch({ network: () => true });
  through.noteCheck(up(9, T0));
  for (let id = 1; id <= 3; id++) assert.equal(through.noteCheck(down(id, T0 + id * 1_000)), undefined, 'something went through within the minute');
});

test('this machine has a network reading', () => {
  assert.equal(typeof hasNetwork(), 'boolean');
});

test('targets on this machine say nothing of its network', () => {
  for (const target of [
    '127.0.0.1:5432',
    '[::1]:8080',
    'localhost:3000',
    'http://127.0.0.2/health',
    'ws://localhost:9000/socket',
    'app.localhost:80',
    'npx -y some-server',
  ])
    assert.equal(isOnThisMachine(target), true, target);
  for (const target of ['db.internal:5432', '10.0.0.5:22', 'https://example.com/', '[2001:db8::1]:443', 'example.com'])
    assert.equal(isOnThisMachine(target), false, target);
});
