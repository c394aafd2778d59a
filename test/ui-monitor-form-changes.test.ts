// What an edit of a monitor saves, in Chromium against the real service: only the fields the
// person changed, each named in the update mask; a change undone before saving is no change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NumberComparator, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openPage, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

describe('editing a monitor in Chromium', () => {
  test(
    'saves only what changed: a region ticked off and on, a header added and removed, a value typed back are no change; a removed tag, an edited or removed assertion are',
    { timeout: 120_000 },
    () =>
      withBrowser(async (browser) => {
        const ws = await newWorkspace(service, 'mfc');
        const rpc = monitorRpc(service, (await service.createKey('write', ws.slug)).secret);
        const { monitor } = await rpc.createHTTPMonitor({
          monitor: {
            name: 'Web',
            url: 'http://127.0.0.1:9/',
            periodicity: Periodicity.PERIODICITY_10M,
            regions: ['iad', 'fra'],
            tags: ['a', 'b'],
            headers: { Authorization: 'Bearer x', 'X-A': '1' },
            statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
          },
        });
        const id = monitor!.id;
        const { page } = await openPage(browser, service);
        await chooseWorkspace(page, { label: ws.slug });
        const sent: unknown[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith('/monitor.v1.MonitorService/UpdateHTTPMonitor')) sent.push(request.postDataJSON());
        });
        const field = (label: string) => page.getByLabel(label, { exact: true });
        const regions = page.getByRole('group', { name: 'Regions' });

        /** Edits the monitor with `act`, saves, and gives what the save sent. */
        const saved = async (act: () => Promise<void>) => {
          await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
          await page.getByRole('group', { name: 'Private locations' }).waitFor();
          await act();
          await page.getByRole('button', { name: 'Save changes' }).click();
          await page.waitForURL(new RegExp(`/monitors/${id}$`));
          await page.getByRole('heading', { level: 1, name: 'Web' }).waitFor();
          return sent.splice(0);
        };

        assert.deepEqual(await saved(async () => {}), [], 'nothing changed: nothing is sent');
        assert.deepEqual(
          await saved(async () => {
            await regions.getByRole('checkbox', { name: 'iad' }).uncheck();
            await regions.getByRole('checkbox', { name: 'iad' }).check();
            await page.getByRole('button', { name: 'Add header', exact: true }).click();
            await page.getByRole('button', { name: 'Remove header 3' }).click();
            await field('Header 2 value').fill('2');
            await field('Header 2 value').fill('1');
          }),
          [],
          'changes undone are no change',
        );
        assert.deepEqual(
          await saved(async () => {
            await page.getByRole('button', { name: 'Remove tag b' }).click();
            await field('Status code assertion 1 target').fill('204');
          }),
          [
            {
              id,
              monitor: { tags: ['a'], statusCodeAssertions: [{ comparator: 'NUMBER_COMPARATOR_EQUAL', target: 204 }] },
              updateMask: 'tags,statusCodeAssertions',
            },
          ],
        );
        assert.deepEqual(
          await saved(async () => {
            await page.getByRole('button', { name: 'Remove status code assertion 1' }).click();
            await regions.getByRole('checkbox', { name: 'fra' }).uncheck();
          }),
          [{ id, monitor: { regions: ['iad'] }, updateMask: 'statusCodeAssertions,regions' }],
          'an emptied list is named in the mask and left out of the message',
        );
        const stored = (await rpc.getMonitor({ id })).monitor.value as {
          regions: string[];
          tags: string[];
          headers: Record<string, string>;
          statusCodeAssertions: unknown[];
        };
        assert.deepEqual(
          [stored.regions, stored.tags, stored.headers, stored.statusCodeAssertions],
          [['iad'], ['a'], { Authorization: '[redacted]', 'X-A': '1' }, []],
        );
      }),
  );
});
