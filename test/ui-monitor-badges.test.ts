// A monitor's public status badges on its screen, in Chromium against the real service: off by
// default; turned on with the toggle, each badge's preview loads (the SVG the public address
// answers) and its Markdown, pointing at that address, is shown to copy; turned off, the address
// answers 404. Checked with axe in both themes and at 390 px, and photographed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HTTPMethod, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { axeViolations, openPage, screenshot, watchCsp, withBrowser } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const T = { timeout: 240_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

describe('status badges on the monitor screen', () => {
  test('the toggle turns them on: previews load, the Markdown names the public address; off again answers 404', T, async () => {
    const ws = await newWorkspace(service, 'badges-ui');
    const rpc = monitorRpc(service, (await service.createKey('write', ws.slug)).secret);
    const { monitor } = await rpc.createHTTPMonitor({
      monitor: { name: 'Docs <site>', url: 'https://docs.example.test/health', method: HTTPMethod.HTTP_METHOD_GET, periodicity: Periodicity.PERIODICITY_10M },
    });
    const id = monitor!.id;
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await page.getByLabel('Current workspace').selectOption({ label: ws.slug });
      await page.goto(`${service.dashboardUrl}/monitors/${id}`);
      const section = page.getByRole('region', { name: 'Badges', exact: true });
      const toggle = section.getByRole('checkbox', { name: 'Public badges', exact: true });
      await toggle.waitFor();
      assert.equal(await toggle.isChecked(), false, 'off by default');
      assert.equal(await section.getByRole('img').count(), 0);

      // The box shows the stored setting: checked once the service has turned them on.
      await toggle.click();
      await eventually(
        () => toggle.isChecked(),
        (checked) => checked,
        'the box shows badges on',
      );
      const preview = section.getByRole('img', { name: 'Status badge', exact: true });
      await preview.waitFor();
      // The image decoded: a well-formed SVG of its size.
      await page.waitForFunction(`(() => {
        const img = document.querySelector('img[alt="Status badge"]');
        return img !== null && img.complete && img.naturalWidth > 0;
      })()`);
      assert.equal(await section.getByRole('img').count(), 5);
      const markdown = await section.getByLabel('Markdown of the status badge', { exact: true }).inputValue();
      const { badges } = await rpc.getMonitorBadges({ id });
      assert.equal(badges!.enabled, true);
      assert.equal(markdown, `![Docs <site> status](${badges!.statusUrl})`);
      assert.equal((await fetch(badges!.statusUrl)).status, 200);
      await section.getByRole('button', { name: 'Copy the Markdown of the status badge' }).waitFor();

      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          // The results tables' narrow-window scrolling is the screen's own, not this section's.
          const found = (await axeViolations(page)).filter((v) => v !== 'scrollable-region-focusable: .table-wrap');
          assert.deepEqual(found, [], `axe, ${scheme}, ${width} px`);
          await screenshot(page, `monitor-badges-${scheme}-${width}`, section);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });

      await toggle.click();
      await section.getByText('Off: the badges').waitFor();
      assert.equal(await section.getByRole('img').count(), 0);
      assert.equal((await fetch(badges!.statusUrl)).status, 404);
      assert.deepEqual(csp, [], 'no content security policy violation');
    });
  });
});
