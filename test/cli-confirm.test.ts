import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Periodicity } from '../client/index.ts';
import { CLI, type CliResult, useClientCommandService } from './support/harness.ts';

/**
 * Deleting a monitor, a status page or a channel asks first on a terminal, and needs --yes
 * elsewhere: without it the command is a usage error (exit 2) and nothing is deleted. The terminal
 * cases run the command under script(1), which gives it a pseudo-terminal, and answer on its input.
 */

const T = { timeout: 60_000 };
const SCRIPT = '/usr/bin/script';

const svc = useClientCommandService();

const cli = (args: string[]) => svc.cli(args);

/** The command on a pseudo-terminal (stdin and stderr are TTYs), with `answer` typed at it. */
function onTerminal(args: string[], answer: string): Promise<CliResult> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = execFile(SCRIPT, ['-qec', quoted, '/dev/null'], { env: { ...process.env, ...svc.env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin!.end(`${answer}\n`);
  });
}

async function monitorFixture(name: string) {
  return (await svc.api.monitors.createTCPMonitor({ monitor: { name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } })).monitor!;
}

const monitorExists = async (id: string) =>
  await svc.api.monitors.getMonitor({ id }).then(
    () => true,
    () => false,
  );

function assertRefused(result: CliResult, command: string): void {
  assert.equal(result.code, 2, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.split('\n')[0], `statusdesk ${command}: refusing to delete without --yes when not on a terminal`);
}

describe('off a terminal', () => {
  test('monitors, pages and channels delete without --yes exit 2 and delete nothing', T, async () => {
    const monitor = await monitorFixture('kept');
    const page = (await svc.api.pages.createStatusPage({ slug: 'kept-page', title: 'Kept' })).statusPage!;
    const { channel } = await svc.api.notifications.createNotificationChannel({ name: 'Kept', config: { case: 'desktop', value: {} } });
    const [m, p, c] = await Promise.all([
      cli(['monitors', 'delete', monitor.id]),
      cli(['pages', 'delete', page.slug]),
      cli(['channels', 'delete', channel!.id]),
    ]);
    assertRefused(m, 'monitors delete');
    assertRefused(p, 'pages delete');
    assertRefused(c, 'channels delete');
    assert.ok(await monitorExists(monitor.id));
    assert.equal((await svc.api.pages.getStatusPage({ page: page.id })).statusPage?.id, page.id);
    assert.equal((await svc.api.notifications.getNotificationChannel({ id: channel!.id })).channel?.id, channel!.id);
  });

  test('with --yes each is deleted, with a note on stderr and nothing on stdout', T, async () => {
    const monitor = await monitorFixture('gone');
    const page = (await svc.api.pages.createStatusPage({ slug: 'gone-page', title: 'Gone' })).statusPage!;
    const { channel } = await svc.api.notifications.createNotificationChannel({ name: 'Gone', config: { case: 'desktop', value: {} } });
    const [m, p, c] = await Promise.all([
      cli(['monitors', 'delete', monitor.id, '--yes']),
      cli(['pages', 'delete', page.slug, '--yes']),
      cli(['channels', 'delete', channel!.id, '--yes']),
    ]);
    assert.deepEqual([m.code, m.stdout, m.stderr], [0, '', `Deleted monitor ${monitor.id}.\n`]);
    assert.deepEqual([p.code, p.stdout], [0, '']);
    assert.match(p.stderr, /^Deleted status page gone-page with its components, subscribers, reports and maintenance windows\.\n$/);
    assert.deepEqual([c.code, c.stdout, c.stderr], [0, '', `Deleted channel ${channel!.id}.\n`]);
    assert.equal(await monitorExists(monitor.id), false);
  });
});

describe('on a terminal', { skip: existsSync(SCRIPT) ? false : `${SCRIPT} (util-linux) is not installed: no pseudo-terminal to run the command on` }, () => {
  test('monitors delete asks with its id and name: n keeps it, y deletes it', T, async () => {
    const monitor = await monitorFixture('API');
    const no = await onTerminal(['monitors', 'delete', monitor.id], 'n');
    assert.equal(no.code, 1, no.stdout);
    assert.match(no.stdout, new RegExp(`Delete monitor ${monitor.id} "API"\\? \\[y/N\\]`));
    assert.match(no.stdout, /Nothing was deleted\./);
    assert.ok(await monitorExists(monitor.id));

    const yes = await onTerminal(['monitors', 'delete', monitor.id], 'y');
    assert.equal(yes.code, 0, yes.stdout);
    assert.match(yes.stdout, new RegExp(`Deleted monitor ${monitor.id}\\.`));
    assert.equal(await monitorExists(monitor.id), false);
  });

  test('pages delete names what goes with the page: its reports and maintenance windows, counted', T, async () => {
    const page = (await svc.api.pages.createStatusPage({ slug: 'asked-page', title: 'Asked' })).statusPage!;
    await svc.api.reports.createStatusReport({ pageId: page.id, title: 'Slow', message: 'Looking', notify: false });
    await svc.api.reports.createStatusReport({ pageId: page.id, title: 'Down', message: 'Looking', notify: false });
    const no = await onTerminal(['pages', 'delete', page.slug], 'no');
    assert.equal(no.code, 1, no.stdout);
    assert.match(no.stdout, new RegExp(`Delete status page ${page.id} "Asked" with its 2 status reports and 0 maintenance windows\\? \\[y/N\\]`));
    assert.equal((await svc.api.pages.getStatusPage({ page: page.id })).statusPage?.id, page.id);

    const yes = await onTerminal(['pages', 'delete', page.slug], 'yes');
    assert.equal(yes.code, 0, yes.stdout);
    await assert.rejects(svc.api.pages.getStatusPage({ page: page.id }));
  });

  test('channels delete asks; --yes on a terminal does not', T, async () => {
    const { channel } = await svc.api.notifications.createNotificationChannel({ name: 'Pager', config: { case: 'desktop', value: {} } });
    const no = await onTerminal(['channels', 'delete', channel!.id], '');
    assert.equal(no.code, 1, no.stdout);
    assert.match(no.stdout, new RegExp(`Delete channel ${channel!.id} "Pager"\\? \\[y/N\\]`));

    const yes = await onTerminal(['channels', 'delete', channel!.id, '--yes'], '');
    assert.equal(yes.code, 0, yes.stdout);
    assert.doesNotMatch(yes.stdout, /\[y\/N\]/);
    await assert.rejects(svc.api.notifications.getNotificationChannel({ id: channel!.id }));
  });
});
