// Actions on many monitors from the overview, in Chromium against the real service: two rows
// chosen and paused in one go, with the toast saying so; every monitor a filter matches chosen
// and tagged, then wired to a channel; a deletion confirmed by a dialog that names how many. Checked with axe in both
// themes at 1280 and 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../client/index.ts';
import { axeViolations, chooseWorkspace, openPage, screenshot, withBrowser } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 180_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

describe('bulk actions on the overview', () => {
  test('choose two rows and pause them; choose all that match a filter and tag them; delete with a confirmation naming the count', T, async () => {
    const ws = await newWorkspace(service, 'bulk-ui');
    const key = (await service.createKey('write', ws.slug)).secret;
    const { monitors } = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
    const ids: Record<string, string> = {};
    for (const [name, tags] of [
      ['alpha api', ['api']],
      ['beta api', ['api']],
      ['gamma api', ['api']],
      ['delta db', ['db']],
    ] as const) {
      const { monitor } = await monitors.createTCPMonitor({ monitor: { name, uri: '127.0.0.1:9', periodicity: 3, regions: ['iad'], tags: [...tags] } });
      ids[name] = monitor!.id;
    }
    const channel = await service.services.channels.create({ type: 'system', surface: 'cli' }, Number(ws.id), {
      name: 'Ops hook',
      kind: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook', secret: 'a-signing-secret-of-some-length' },
    });
    const active = async (name: string) => ((await monitors.getMonitor({ id: ids[name]! })).monitor.value as { active?: boolean }).active;
    const tagsOf = async (name: string) => (await monitors.getMonitor({ id: ids[name]! })).monitor.value?.tags;

    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.slug });
      const list = page.getByRole('list', { name: 'Monitors' });
      await list.getByRole('link', { name: 'alpha api' }).waitFor();

      // Two rows chosen, paused by one request; the toast says how many.
      await page.getByRole('checkbox', { name: 'Choose alpha api', exact: true }).check();
      await page.getByRole('checkbox', { name: 'Choose beta api', exact: true }).check();
      const bar = page.getByRole('region', { name: 'Chosen monitors' });
      await bar.getByText('2 monitors chosen').waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}, ${width} px`);
          await screenshot(page, `bulk-overview-chosen-${scheme}-${width}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });
      await bar.getByRole('button', { name: 'Pause', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Paused 2 of 2 monitors.' }).first().waitFor();
      assert.deepEqual([await active('alpha api'), await active('beta api'), await active('gamma api')], [false, false, true]);

      // Every monitor the filter matches, beyond the rows chosen: tagged by one request.
      await page.getByRole('button', { name: 'Clear', exact: true }).click();
      await page.getByLabel('Tag', { exact: true }).first().selectOption('api');
      await page.getByRole('button', { name: 'Choose all 3 that match' }).click();
      await bar.getByText('All 3 monitors that match chosen').waitFor();
      assert.equal(await page.getByRole('checkbox', { name: 'Choose gamma api', exact: true }).isChecked(), true);
      await bar.getByLabel('Tag', { exact: true }).fill('team-web');
      await bar.getByRole('button', { name: 'Add tag' }).click();
      await page.getByRole('status').filter({ hasText: 'Tagged 3 of 3 monitors.' }).first().waitFor();
      assert.deepEqual(await tagsOf('gamma api'), ['api', 'team-web']);
      assert.deepEqual(await tagsOf('delta db'), ['db']);
      await screenshot(page, 'bulk-overview-tagged-light-1280');

      // The same choice, wired to a channel.
      await bar.getByLabel('Channel', { exact: true }).selectOption({ label: 'Ops hook' });
      await bar.getByRole('button', { name: 'Wire to channel' }).click();
      await page.getByRole('status').filter({ hasText: 'Wired 3 of 3 monitors.' }).first().waitFor();
      const wired = (await service.services.channels.get({ type: 'system', surface: 'cli' }, Number(ws.id), channel.id)).monitorIds;
      assert.deepEqual([...wired].sort(), [ids['alpha api']!, ids['beta api']!, ids['gamma api']!].sort());

      // A deletion asks first, naming how many.
      await bar.getByRole('button', { name: 'Delete', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete 3 monitors?' });
      await dialog.waitFor();
      assert.deepEqual(await axeViolations(page), [], 'axe, the confirmation');
      await screenshot(page, 'bulk-overview-delete-light-1280');
      await dialog.getByRole('button', { name: 'Delete 3 monitors' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted 3 of 3 monitors.' }).first().waitFor();
      assert.equal((await monitors.listMonitors({})).totalSize, 1);
    });
  });
});
