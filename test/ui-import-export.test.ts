// Settings, General, Import and export in Chromium against the real service: the download is the
// workspace's file as `statusdesk export` writes it; an uploaded file's plan is shown and changes
// nothing until Apply; Apply makes the changes through the RPC services, recorded in the audit log
// as the signed-in person's; a broken file and a file over the limit change nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { CONFIG_FILE_LIMITS } from '../contract/limits.ts';
import { renderFile } from '../server/cli/config-as-code/file-format.ts';
import { readWorkspace, workspaceFile } from '../server/cli/config-as-code/plan.ts';
import { chooseWorkspace, openPage, signInLink, watchCsp, withBrowser, axeInBothThemes, screenshotsInBothThemes } from './support/browser.ts';
import { withLocalOwner } from './support/database.ts';
import { newWorkspace, sessionTokenOf, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 180_000 };
/** Where screenshots of the screen go, to look at them (nothing compares them). */

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** The workspace's monitors by name: type and interval, as the RPC services answer them. */
async function monitorsOf(client: StatusdeskClient): Promise<Map<string, { id: string; periodicity: Periodicity }>> {
  const answer = await client.monitors.listMonitors({ limit: 100 });
  return new Map(answer.tcpMonitors.map((m) => [m.name, { id: m.id, periodicity: m.periodicity }]));
}

/** The workspace's audit entries of monitors, newest first, as the dashboard's audit log lists them. */
async function monitorAudit(workspaceId: string) {
  const { entries } = await withLocalOwner(service.dataDir, (services, owner) =>
    services.auditLog.entries(owner, Number(workspaceId), { entityType: 'monitor', limit: '100' }),
  );
  return entries.map((e) => ({
    action: e.action,
    name: e.record.name,
    actor: e.actor.kind,
    ...(e.action === 'monitor.update' ? { fields: e.changedFields } : {}),
  }));
}

/** Chooses a file for the upload field, as a person picking it from disk does. */
async function choose(page: Page, name: string, text: string | Buffer): Promise<void> {
  await page.getByLabel('File to apply', { exact: true }).setInputFiles({ name, mimeType: 'application/yaml', buffer: Buffer.from(text) });
}

describe('import and export in Chromium', () => {
  test('download, plan, apply, a broken file and a file over the limit', T, () =>
    withBrowser(async (browser) => {
      const ws = await newWorkspace(service, 'files');
      const client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write', ws.slug)).secret, env: {} });
      await client.monitors.createTCPMonitor({ monitor: { name: 'Database', uri: '127.0.0.1:9', periodicity: Periodicity.PERIODICITY_1H } });

      const { page } = await openPage(browser, service, { acceptDownloads: true });
      const csp = watchCsp(page);
      // Every call of the plan and apply, to tell that a refused file was never sent.
      const sent: string[] = [];
      page.on('request', (request) => {
        if (/\/config\/(plan|apply)$/.test(new URL(request.url()).pathname)) sent.push(new URL(request.url()).pathname.split('/').pop()!);
      });
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await chooseWorkspace(page, { label: ws.slug });

      // Reached from Settings, under General.
      await page.goto(`${service.dashboardUrl}/settings`);
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Import and export' }).click();
      await page.getByRole('heading', { name: 'Import and export', level: 1 }).waitFor();

      // The download is the file `statusdesk export` writes: the same code, read through the API port.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the workspace file' }).click()]);
      await page.getByRole('status').filter({ hasText: 'downloaded: 1 monitor, 0 status pages.' }).waitFor();
      const downloaded = readFileSync((await download.path())!, 'utf8');
      const { monitors, pages } = workspaceFile(await readWorkspace(client));
      assert.equal(downloaded, renderFile(monitors, pages));
      assert.match(downloaded, /name: Database/);
      assert.equal(download.suggestedFilename(), `statusdesk-workspace-${ws.id}.yaml`);

      // A file that changes Database's interval and adds a monitor.
      const file = parse(downloaded) as { monitors: Record<string, unknown>[] };
      file.monitors[0]!.frequency = '5m';
      file.monitors.push({ type: 'tcp', name: 'Cache', target: '127.0.0.1:11', frequency: '10m' });
      await choose(page, 'workspace.yaml', stringify(file));
      await page.getByRole('button', { name: 'Check the file' }).click();
      await page.getByRole('heading', { name: 'The plan of workspace.yaml' }).waitFor();
      await page.getByText('1 to add, 1 to change, 0 unchanged. Nothing has changed yet.').waitFor();
      const changes = page
        .getByRole('list', { name: 'Changes' })
        .getByRole('listitem')
        .filter({ has: page.locator('.config-action') });
      assert.deepEqual(
        (await changes.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()),
        ['Change monitor Database frequency: 1h → 5m', 'Add monitor Cache (tcp)'],
      );
      // Nothing changed yet.
      const before = await monitorsOf(client);
      assert.deepEqual([...before.keys()], ['Database']);
      assert.equal(before.get('Database')!.periodicity, Periodicity.PERIODICITY_1H);
      const auditBefore = await monitorAudit(ws.id);
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'plan');

      await page.getByRole('button', { name: 'Apply 2 changes' }).click();
      await page.getByRole('heading', { name: 'workspace.yaml applied' }).waitFor();
      await page.getByText('2 changes made.', { exact: true }).waitFor();
      const afterApply = await monitorsOf(client);
      assert.deepEqual([...afterApply.keys()].sort(), ['Cache', 'Database']);
      assert.equal(afterApply.get('Database')!.periodicity, Periodicity.PERIODICITY_5M);
      assert.equal(afterApply.get('Cache')!.periodicity, Periodicity.PERIODICITY_10M);
      // Recorded as every change is, naming the signed-in person (a dashboard session), not a key.
      const auditAfterApply = await monitorAudit(ws.id);
      const added = auditAfterApply.slice(0, auditAfterApply.length - auditBefore.length);
      assert.deepEqual(
        added.sort((a, b) => a.name.localeCompare(b.name)),
        [
          { action: 'monitor.create', name: 'Cache', actor: 'dashboard' },
          { action: 'monitor.update', name: 'Database', actor: 'dashboard', fields: ['periodicity'] },
        ],
      );
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'applied');

      // A broken file: each problem at its place, and nothing changes.
      await page.getByRole('button', { name: 'Apply another file' }).click();
      const broken = stringify({ version: 1, monitors: [{ type: 'tcp', name: 'Database', target: '127.0.0.1:9', frequency: '7m' }] });
      await choose(page, 'broken.yaml', broken);
      await page.getByRole('button', { name: 'Check the file' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'The file has 1 problem, nothing was changed' });
      await refusal.waitFor();
      assert.match(await refusal.innerText(), /monitors\[0\]\.frequency: must be one of/);
      await choose(page, 'not-yaml.yaml', 'monitors:\n  - name: [unclosed\n');
      await page.getByRole('button', { name: 'Check the file' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /line \d+, column \d+/ })
        .waitFor();
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'broken');

      // A file over the limit is refused in the page, unsent.
      const sentBefore = sent.length;
      await choose(page, 'huge.yaml', Buffer.alloc(CONFIG_FILE_LIMITS.uploadBytes + 1, 'a'));
      await page.getByRole('button', { name: 'Check the file' }).click();
      await page.getByRole('alert').filter({ hasText: `huge.yaml is 513 KiB, over the 512 KiB a file may hold here` }).waitFor();
      assert.equal(sent.length, sentBefore, 'the file was not sent');
      assert.deepEqual(sent, ['plan', 'apply', 'plan', 'plan']);
      await screenshotsInBothThemes(page, 'too-big');

      const afterAll = await monitorsOf(client);
      assert.deepEqual([...afterAll.keys()].sort(), ['Cache', 'Database']);
      assert.equal(afterAll.get('Database')!.periodicity, Periodicity.PERIODICITY_5M, 'the broken file changed nothing');
      assert.deepEqual(await monitorAudit(ws.id), auditAfterApply, 'no entry after the refused files');
      assert.deepEqual(csp, []);
    }),
  );

  test('the service refuses a file over the limit, sent past the page, naming the field', T, async () => {
    const ws = await newWorkspace(service, 'files-big');
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${ws.id}/config/plan`, {
      method: 'POST',
      headers: { ...(await freshSession()), 'content-type': 'application/json' },
      body: JSON.stringify({ file: 'a'.repeat(CONFIG_FILE_LIMITS.uploadBytes + 1) }),
    });
    const answer = (await response.json()) as { message: string; violations: unknown[] };
    assert.equal(response.status, 400, JSON.stringify(answer));
    assert.match(answer.message, /^file: is 524289 bytes; must be at most 512 KiB/);
    assert.deepEqual(answer.violations, [{ field: 'file', rule: 'must be at most 512 KiB in the dashboard (statusdesk apply -f takes bigger files)' }]);
  });
});

/** A dashboard session through a fresh one-time link. */
async function freshSession(): Promise<Record<string, string>> {
  const signIn = await fetch(await signInLink(service), { redirect: 'manual' });
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, 'x-statusdesk-session': sessionTokenOf(await signIn.text()), origin: service.dashboardUrl };
}
