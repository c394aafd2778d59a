import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { nextOccurrences, occurrencesBetween, type RepeatRule } from '../server/domain/maintenance/occurrences.ts';
import { createClient } from '../client/index.ts';
import { queryRows } from './support/database.ts';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { jsonOf, rejectsWith, runCli, startTestService, type TestService } from './support/harness.ts';
import { type HttpReceiver, startHttpReceiver } from './support/receivers.ts';
import { eventually } from './support/wait.ts';

/**
 * Repeating maintenance windows: weekly, monthly and cron rules read in a time zone, each
 * occurrence behaving as a one-off window (alerts held, the page shows it), an end date, refusals
 * naming the field with nothing stored, and the CLI round trip.
 */

const system: Actor = { type: 'system', surface: 'cli' };
const T = { timeout: 60_000 };
const at = (iso: string) => Date.parse(iso);
const starts = (rule: RepeatRule, from: string, count: number) => nextOccurrences(rule, from, at(from), count).map((o) => o.from);

describe('occurrences', () => {
  test('weekly at 02:30 Europe/Paris across both changes of clocks', () => {
    const rule: RepeatRule = { kind: 'weekly', days: ['sun'], time: '02:30', durationMinutes: 60, timeZone: 'Europe/Paris' };
    // Clocks go forward on 28 March 2027 at 02:00: 02:30 does not exist, the window starts at 03:00 CEST.
    assert.deepEqual(starts(rule, '2027-03-20T00:00:00Z', 3), ['2027-03-21T01:30:00.000Z', '2027-03-28T01:00:00.000Z', '2027-04-04T00:30:00.000Z']);
    // Clocks go back on 25 October 2026: 02:30 happens twice, the window starts at the first.
    assert.deepEqual(starts(rule, '2026-10-20T00:00:00Z', 2), ['2026-10-25T00:30:00.000Z', '2026-11-01T01:30:00.000Z']);
    // The duration is elapsed time.
    const [first] = nextOccurrences(rule, '2026-10-20T00:00:00Z', at('2026-10-20T00:00:00Z'), 1);
    assert.equal(at(first!.to) - at(first!.from), 60 * 60_000);
  });

  test('monthly by day (a month without it has none) and by weekday of the month', () => {
    const day31: RepeatRule = { kind: 'monthly', dayOfMonth: 31, time: '09:00', durationMinutes: 30, timeZone: 'UTC' };
    assert.deepEqual(starts(day31, '2027-01-01T00:00:00Z', 3), ['2027-01-31T09:00:00.000Z', '2027-03-31T09:00:00.000Z', '2027-05-31T09:00:00.000Z']);
    const firstMonday: RepeatRule = { kind: 'monthly', week: 'first', weekday: 'mon', time: '22:00', durationMinutes: 120, timeZone: 'America/New_York' };
    assert.deepEqual(starts(firstMonday, '2026-12-01T00:00:00Z', 2), ['2026-12-08T03:00:00.000Z', '2027-01-05T03:00:00.000Z']);
    const lastFriday: RepeatRule = { kind: 'monthly', week: 'last', weekday: 'fri', time: '18:00', durationMinutes: 60, timeZone: 'UTC' };
    assert.deepEqual(starts(lastFriday, '2026-12-01T00:00:00Z', 2), ['2026-12-25T18:00:00.000Z', '2027-01-29T18:00:00.000Z']);
  });

  test('a cron rule in its time zone, an end date, and a bounded walk', () => {
    const rule: RepeatRule = { kind: 'cron', cron: '0 2 * * 6', durationMinutes: 90, timeZone: 'Asia/Tokyo', until: '2026-12-13T00:00:00.000Z' };
    // 02:00 in Tokyo is 17:00 UTC the day before; nothing after the end date.
    assert.deepEqual(starts(rule, '2026-11-30T00:00:00Z', 10), ['2026-12-04T17:00:00.000Z', '2026-12-11T17:00:00.000Z']);
    const everyMinute: RepeatRule = { kind: 'cron', cron: '* * * * *', durationMinutes: 1, timeZone: 'UTC' };
    assert.equal(occurrencesBetween(everyMinute, '2026-01-01T00:00:00Z', at('2026-01-01T00:00:00Z'), at('2026-03-01T00:00:00Z')).length, 1_000);
  });
});

describe('repeating windows through the service', () => {
  let svc: TestService;
  let hook: HttpReceiver;
  let listener: TcpListener | undefined;
  /** The check engine's clock: where each check runs, as far as maintenance is concerned. */
  let clock = at('2030-01-05T01:40:00Z');
  let ws: number;

  before(async () => {
    hook = await startHttpReceiver();
    svc = await startTestService({ STATUSDESK_CHECKS: 'on' }, undefined, { now: () => clock });
    ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
  });
  after(async () => {
    await listener?.close();
    await svc?.stop();
    await hook?.close();
  });

  const rows = () => queryRows<{ id: number; repeat_rule: string | null }>(svc.dataDir, 'select id, repeat_rule from maintenances order by id');
  const audits = () => queryRows(svc.dataDir, "select id from audit_log where entity_type = 'maintenance'");
  let pageCount = 0;
  const newPage = async () => svc.services.pages.create(system, ws, { slug: `repeating-${++pageCount}`, title: 'Repeating' });

  test('a weekly window: its rule, its next occurrences, its status; the end date ends it', T, async () => {
    const page = await newPage();
    const now = Date.now();
    const today = new Date(now);
    const weekday = (['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const)[today.getUTCDay()]!;
    // Every day at a time that started a minute ago (UTC), for 30 minutes: active now.
    const startedAt = new Date(now - 60_000);
    const time = `${String(startedAt.getUTCHours()).padStart(2, '0')}:${String(startedAt.getUTCMinutes()).padStart(2, '0')}`;
    const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
    const { maintenance } = await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Nightly backup',
      from: new Date(now - 3 * 86_400_000).toISOString(),
      repeat: { kind: 'weekly', days: [...days], time, durationMinutes: 30, timeZone: 'UTC' },
      notify: false,
    });
    assert.equal(maintenance.status, 'active', JSON.stringify(maintenance));
    assert.deepEqual(maintenance.repeat?.days, [...days]);
    assert.equal(maintenance.nextOccurrences!.length, 5);
    assert.ok(at(maintenance.from) <= now && now < at(maintenance.to), 'from/to are the occurrence under way');
    assert.equal(at(maintenance.nextOccurrences![1]!.from) - at(maintenance.nextOccurrences![0]!.from), 86_400_000);
    assert.ok(days.includes(weekday));

    // The public page shows it as under way.
    const view = await svc.services.publicPages.view(page.slug);
    assert.deepEqual(
      view.activeMaintenances.map((m: { title: string }) => m.title),
      ['Nightly backup'],
    );

    // An end date: no occurrence starts after it, and once it passed the window is completed.
    const ended = await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Ended',
      from: '2026-01-01T00:00:00Z',
      repeat: { kind: 'weekly', days: ['mon'], time: '03:00', durationMinutes: 60, timeZone: 'UTC', until: '2026-01-20T00:00:00Z' },
      notify: false,
    });
    assert.deepEqual([ended.maintenance.status, ended.maintenance.nextOccurrences], ['completed', []]);
    const ending = await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Ending',
      repeat: { kind: 'weekly', days: ['mon'], time: '03:00', durationMinutes: 60, timeZone: 'UTC', until: new Date(now + 15 * 86_400_000).toISOString() },
      notify: false,
    });
    assert.ok([2, 3].includes(ending.maintenance.nextOccurrences!.length), JSON.stringify(ending.maintenance.nextOccurrences));
  });

  test('a bad cron, time zone, day or end date is refused naming the field, and nothing is stored', T, async () => {
    const page = await newPage();
    const [before, auditsBefore] = [(await rows()).length, (await audits()).length];
    const base = { pageId: page.id, title: 'Refused', notify: false };
    const weekly = { kind: 'weekly', days: ['sat'], time: '02:30', durationMinutes: 60, timeZone: 'Europe/Paris' };
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, repeat: { kind: 'cron', cron: '0 0 30 2 *', durationMinutes: 60, timeZone: 'UTC' } }),
      'VALIDATION',
      'repeat.cron',
    );
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, repeat: { kind: 'cron', cron: 'every night', durationMinutes: 60, timeZone: 'UTC' } }),
      'VALIDATION',
      'repeat.cron',
    );
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, repeat: { ...weekly, timeZone: 'Europe/Atlantis' } }),
      'VALIDATION',
      'repeat.timeZone',
    );
    await rejectsWith(svc.services.maintenances.create(system, ws, { ...base, repeat: { ...weekly, days: [] } }), 'VALIDATION', 'repeat.days');
    await rejectsWith(svc.services.maintenances.create(system, ws, { ...base, repeat: { ...weekly, time: '25:00' } }), 'VALIDATION', 'repeat.time');
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, repeat: { ...weekly, durationMinutes: 0 } }),
      'VALIDATION',
      'repeat.durationMinutes',
    );
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, from: '2027-01-01T00:00:00Z', repeat: { ...weekly, until: '2026-01-01T00:00:00Z' } }),
      'VALIDATION',
      'repeat.until',
    );
    await rejectsWith(svc.services.maintenances.create(system, ws, { ...base, to: '2030-01-01T00:00:00Z', repeat: weekly }), 'VALIDATION', 'to');
    await rejectsWith(
      svc.services.maintenances.create(system, ws, { ...base, repeat: { kind: 'monthly', time: '02:00', durationMinutes: 60, timeZone: 'UTC' } }),
      'VALIDATION',
      'repeat.dayOfMonth',
    );
    // An update is refused the same way, and leaves the window as it was.
    const { maintenance } = await svc.services.maintenances.create(system, ws, { ...base, title: 'Kept', repeat: weekly });
    await rejectsWith(
      svc.services.maintenances.update(system, ws, maintenance.id, {
        repeat: { ...weekly, kind: 'cron', days: undefined, time: undefined, cron: '0 0 31 2 *' },
      }),
      'VALIDATION',
      'repeat.cron',
    );
    assert.deepEqual(await svc.services.maintenances.get(system, ws, maintenance.id), maintenance);
    assert.deepEqual([(await rows()).length, (await audits()).length], [before + 1, auditsBefore + 1]);
  });

  test('a month of occurrences for the calendar: one-off and repeating windows, a bounded span', T, async () => {
    const page = await newPage();
    await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Weekly',
      from: '2031-03-01T00:00:00Z',
      repeat: { kind: 'weekly', days: ['sun'], time: '02:30', durationMinutes: 60, timeZone: 'Europe/Paris' },
      notify: false,
    });
    await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Once',
      from: '2031-03-10T10:00:00Z',
      to: '2031-03-10T11:00:00Z',
      notify: false,
    });
    const { occurrences, truncated } = await svc.services.maintenances.occurrences(system, ws, {
      pageId: page.id,
      from: '2031-03-01T00:00:00Z',
      to: '2031-04-01T00:00:00Z',
    });
    assert.equal(truncated, false);
    assert.deepEqual(
      occurrences.map((o) => [o.title, o.from, o.repeating]),
      [
        ['Weekly', '2031-03-02T01:30:00.000Z', true],
        ['Weekly', '2031-03-09T01:30:00.000Z', true],
        ['Once', '2031-03-10T10:00:00.000Z', false],
        ['Weekly', '2031-03-16T01:30:00.000Z', true],
        ['Weekly', '2031-03-23T01:30:00.000Z', true],
        // Clocks go forward on 30 March 2031: 02:30 does not exist, 03:00 CEST is 01:00 UTC.
        ['Weekly', '2031-03-30T01:00:00.000Z', true],
      ],
    );
    await rejectsWith(
      svc.services.maintenances.occurrences(system, ws, { pageId: page.id, from: '2031-01-01T00:00:00Z', to: '2031-06-01T00:00:00Z' }),
      'VALIDATION',
      'to',
    );
  });

  test("an occurrence under way holds its monitors' alerts, by the check engine's clock", T, async () => {
    const page = await newPage();
    listener = await startTcpListener();
    const monitor = await svc.services.monitors.create(system, ws, 'tcp', {
      name: 'held db',
      uri: listener.uri,
      periodicity: '1h',
      regions: ['iad'],
      timeout: 1_000,
      retry: 0,
    });
    await svc.services.channels.create(system, ws, {
      name: 'hook',
      kind: 'webhook',
      monitorIds: [monitor.id],
      config: { url: `${hook.url}/alerts`, secret: 'repeating-signing-secret-0123456789' },
    });
    const component = await svc.services.pages.addComponent(system, ws, page.id, { name: 'Database', monitorId: monitor.id });
    // Saturdays at 02:30 in Paris for an hour: 01:30 to 02:30 UTC in winter.
    const { maintenance } = await svc.services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Weekly upgrade',
      from: '2030-01-01T00:00:00Z',
      repeat: { kind: 'weekly', days: ['sat'], time: '02:30', durationMinutes: 60, timeZone: 'Europe/Paris' },
      pageComponentIds: [component.id],
      notify: false,
    });
    const alerts = () =>
      queryRows<{ kind: string; suppressed_by: number | null }>(
        svc.dataDir,
        'select kind, suppressed_by from alerts where monitor_id = ? order by id',
        Number(monitor.id),
      );
    const trigger = async (expected: string) => assert.equal((await svc.services.monitors.trigger(system, ws, monitor.id))[0]!.result, expected);

    await trigger('up');
    // Saturday 5 January 2030, 02:40 in Paris: in the occurrence. The failure is held.
    clock = at('2030-01-05T01:40:00Z');
    const port = listener.port;
    await listener.close();
    listener = undefined;
    await trigger('down');
    await eventually(alerts, (r) => r.length === 1, 'the held alert');
    assert.deepEqual(
      (await alerts()).map((r) => [r.kind, r.suppressed_by]),
      [['down', Number(maintenance.id)]],
    );
    // The same Saturday at 03:40 in Paris: the occurrence is over. Down again is told.
    clock = at('2030-01-05T02:40:00Z');
    listener = await startTcpListener('127.0.0.1', port);
    await trigger('up');
    await eventually(alerts, (r) => r.length === 2, 'the recovery');
    await listener.close();
    listener = undefined;
    await trigger('down');
    await eventually(alerts, (r) => r.length === 3, 'the second failure');
    assert.deepEqual((await alerts())[2], { kind: 'down', suppressed_by: null });
    await hook.waitFor(1);
    assert.ok(hook.requests.some((r) => JSON.parse(r.body).event === 'monitor.down'));
  });
});

describe('the CLI', () => {
  let svc: TestService;
  let write: string;
  before(async () => {
    svc = await startTestService();
    write = (await svc.createKey('write')).secret;
  });
  after(async () => svc?.stop());

  test('maintenance create --repeat weekly, then get, round trip; a bad time zone names --time-zone', T, async () => {
    const env = { SERVICE_API_KEY: write, SERVICE_API_URL: `${svc.apiUrl}/rpc`, STATUSDESK_DATA_DIR: undefined };
    const api = createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: write, env: {} });
    const { statusPage } = await api.pages.createStatusPage({ slug: 'cli-repeating', title: 'CLI repeating' });
    const base = ['maintenance', 'create', '--page', statusPage!.slug, '--title', 'Backups', '--no-notify', '--json'];
    const created = jsonOf(
      await runCli(
        [
          ...base,
          '--repeat',
          'weekly',
          '--days',
          'sat,sun',
          '--time',
          '02:30',
          '--duration',
          '1h30m',
          '--time-zone',
          'Europe/Paris',
          '--until',
          '2031-01-01T00:00:00Z',
        ],
        env,
      ),
    ).maintenance;
    assert.deepEqual(created.repeat, {
      kind: 'weekly',
      days: ['sat', 'sun'],
      time: '02:30',
      durationMinutes: 90,
      timeZone: 'Europe/Paris',
      until: '2031-01-01T00:00:00.000Z',
    });
    assert.equal(created.nextOccurrences.length, 5);
    const got = jsonOf(await runCli(['maintenance', 'get', created.id, '--json'], env));
    assert.deepEqual([got.repeat, got.nextOccurrences], [created.repeat, created.nextOccurrences]);
    // Over RPC: the rule changes with update_mask naming repeat; naming it unset makes a one-off window.
    const changed = await api.maintenances.updateMaintenance({
      id: created.id,
      repeat: { kind: 'monthly', week: 'first', weekday: 'mon', time: '22:00', durationMinutes: 60, timeZone: 'UTC' },
      updateMask: { paths: ['repeat'] },
    });
    assert.deepEqual(
      [changed.maintenance!.repeat?.kind, changed.maintenance!.repeat?.week, new Date(changed.maintenance!.nextOccurrences[0]!.from).getUTCDay()],
      ['monthly', 'first', 1],
    );
    const oneOff = await api.maintenances.updateMaintenance({
      id: created.id,
      from: '2032-01-01T00:00:00Z',
      to: '2032-01-01T01:00:00Z',
      updateMask: { paths: ['repeat', 'from', 'to'] },
    });
    assert.deepEqual([oneOff.maintenance!.repeat, oneOff.maintenance!.nextOccurrences, oneOff.maintenance!.from], [undefined, [], '2032-01-01T00:00:00.000Z']);
    await api.maintenances.updateMaintenance({
      id: created.id,
      repeat: { kind: 'weekly', days: ['sat', 'sun'], time: '02:30', durationMinutes: 90, timeZone: 'Europe/Paris', until: '2031-01-01T00:00:00Z' },
      updateMask: { paths: ['repeat', 'from'] },
      from: created.from,
    });
    const shown = await runCli(['maintenance', 'get', created.id], env);
    assert.match(shown.stdout, /repeats\s+weekly sat,sun 02:30 for 90 min \(Europe\/Paris\) until 2031-01-01T00:00:00.000Z/);

    const cron = jsonOf(await runCli([...base, '--repeat', 'cron', '--cron', '0 3 1 * *', '--duration', '2h'], env)).maintenance;
    assert.deepEqual([cron.repeat.cron, cron.repeat.timeZone, new Date(cron.nextOccurrences[0].from).getUTCDate()], ['0 3 1 * *', 'UTC', 1]);

    // A refusal names the flag, on one line, with the exit code of a usage error; nothing is stored.
    const refused = async (args: string[], pattern: RegExp) => {
      const result = await runCli([...base, ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^statusdesk: [^\n]+\n$/);
      assert.match(result.stderr, pattern);
    };
    const before = (await api.maintenances.listMaintenances({ pageId: statusPage!.id })).maintenances.length;
    await refused(
      ['--repeat', 'weekly', '--days', 'sat', '--time', '02:30', '--duration', '1h', '--time-zone', 'Mars/Olympus'],
      /^statusdesk: --time-zone: must be an IANA time zone/,
    );
    await refused(['--repeat', 'cron', '--cron', '0 0 30 2 *', '--duration', '1h'], /^statusdesk: --cron: "0 0 30 2 \*" never fires/);
    const stray = await runCli([...base, '--days', 'sat'], env);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /^statusdesk maintenance create: --days needs --repeat weekly, monthly or cron\nUsage:/);
    assert.equal((await api.maintenances.listMaintenances({ pageId: statusPage!.id })).maintenances.length, before);
  });
});
