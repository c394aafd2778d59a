// The dashboard in a phone-sized window (390 px wide), in Chromium against the real service: the
// sidebar is a bar with a menu button that names the current screen and opens the navigation
// (by mouse and by keyboard), no screen scrolls sideways, and the rows of the keys and channels
// tables are cards whose actions sit within the window. docs/guides/dashboard.md describes it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createClient, Periodicity } from '../client/index.ts';
import { openPage, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 120_000 };
const PHONE = { width: 390, height: 844 };

let service: TestService;
const seeded = { monitorId: '', pageId: '' };
before(async () => {
  service = await startTestService();
  const client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
  // Data for each screen's table or list, with long values where a phone has the least room.
  const { monitor } = await client.monitors.createHTTPMonitor({
    monitor: { name: 'storefront', url: 'http://127.0.0.1:9/a/rather/long/path/to/the/health/endpoint', periodicity: Periodicity.PERIODICITY_5M },
  });
  seeded.monitorId = monitor!.id;
  const { statusPage } = await client.pages.createStatusPage({ slug: 'phone-status', title: 'Phone status' });
  seeded.pageId = statusPage!.id;
  await client.pages.addPageComponent({ pageId: seeded.pageId, name: 'Checkout', monitorId: seeded.monitorId });
  await client.notifications.createNotificationChannel({
    name: 'Pager',
    config: { case: 'webhook', value: { url: 'http://127.0.0.1:9/alerts/from/statusdesk/for/the/on-call', secret: 'sixteen-or-more-characters' } },
  });
  await client.privateLocations.createPrivateLocation({ name: 'office', metadata: { floor: '2' } });
  await service.createKey('read');
});
after(() => service?.stop());

const menuButton = (page: Page) => page.getByRole('button', { name: /^Menu/ });
const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });
/** The page's globals the functions run in it use (this file is type-checked without the DOM's types). */
interface PageElement {
  textContent: string | null;
  classList: { contains(name: string): boolean };
  getAttribute(name: string): string | null;
}
interface PageGlobals {
  innerWidth: number;
  document: { scrollingElement: { scrollWidth: number }; activeElement: PageElement | null; querySelector(selector: string): PageElement | null };
}

const focusedName = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.textContent.trim() : ""');

/** Whether `element` lies wholly within the window's width (it may be below the fold). */
async function withinWidth(element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  assert.ok(box, 'the element is drawn');
  return box.x >= 0 && box.x + box.width <= PHONE.width;
}

describe('the dashboard at 390 px wide', () => {
  test('a menu button names the current screen and opens the navigation, by mouse and by keyboard', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { viewport: PHONE });
      await heading(page, 'Overview').waitFor();
      const button = menuButton(page);

      // Closed: the button names the screen, the navigation is not shown, and the bar is no taller than its content.
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.match((await button.textContent()) ?? '', /Overview/);
      assert.equal(await mainNav(page).isVisible(), false);
      const menu = page.locator(`#${await button.getAttribute('aria-controls')}`);
      assert.equal(await menu.count(), 1, 'the button controls the menu');
      assert.ok((await page.locator('.sidebar').boundingBox())!.height < 80, 'the bar holds the brand and the button only');
      assert.ok(await withinWidth(button));

      // Opened by a click: every entry within the window, the current one marked.
      await button.click();
      assert.equal(await button.getAttribute('aria-expanded'), 'true');
      await mainNav(page).waitFor();
      for (const name of ['Overview', 'Status pages', 'Notifications', 'Locations', 'Audit log', 'Connect an editor', 'Settings']) {
        assert.ok(await withinWidth(mainNav(page).getByRole('link', { name, exact: true })), `${name} is within the window`);
      }
      assert.equal(await mainNav(page).getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current'), 'page');
      assert.ok(await withinWidth(page.getByRole('button', { name: 'Sign out' })));

      // Escape closes it and leaves the focus on the button.
      await page.getByRole('link', { name: 'Status pages', exact: true }).focus();
      await page.keyboard.press('Escape');
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.equal(await mainNav(page).isVisible(), false);
      assert.match(await focusedName(page), /Overview/, 'the focus is back on the menu button');

      // By keyboard: Enter opens it, Tab reaches the entries, Enter chooses one; the menu closes and the button names the new screen.
      await page.keyboard.press('Enter');
      assert.equal(await button.getAttribute('aria-expanded'), 'true');
      const notifications = mainNav(page).getByRole('link', { name: 'Notifications', exact: true });
      for (let i = 0; i < 12 && (await focusedName(page)) !== 'Notifications'; i++) await page.keyboard.press('Tab');
      assert.equal(await focusedName(page), 'Notifications', 'Tab reaches the entries');
      await page.keyboard.press('Enter');
      await heading(page, 'Notifications').waitFor();
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.equal(await notifications.isVisible(), false);
      assert.match((await button.textContent()) ?? '', /Notifications/);

      // A monitor's screens are under the overview; the settings screens under Settings.
      await page.goto(`${service.dashboardUrl}/monitors/${seeded.monitorId}`);
      await heading(page, 'storefront').waitFor();
      assert.match((await button.textContent()) ?? '', /Overview/);
      await page.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await heading(page, 'API Keys').waitFor();
      assert.match((await button.textContent()) ?? '', /Settings/);

      // Choosing the screen already shown closes the menu and gives the focus back to the button.
      await button.click();
      await mainNav(page).getByRole('link', { name: 'Settings', exact: true }).click();
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).document.querySelector('.menu-button')?.getAttribute('aria-expanded') === 'false',
      );
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.activeElement?.classList.contains('menu-button') === true);
    }),
  );

  test('no screen scrolls sideways', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { viewport: PHONE });
      await heading(page, 'Overview').waitFor();
      const screens: [string, string][] = [
        ['/', 'Overview'],
        [`/monitors/${seeded.monitorId}`, 'storefront'],
        ['/monitors/new', 'New monitor'],
        [`/monitors/${seeded.monitorId}/edit`, 'Edit storefront'],
        ['/pages', 'Status pages'],
        [`/pages/${seeded.pageId}`, 'Phone status'],
        ['/notifications', 'Notifications'],
        ['/locations', 'Locations'],
        ['/audit', 'Audit log'],
        ['/connect', 'Connect an AI editor'],
        ['/settings/general/api-keys', 'API Keys'],
        ['/settings/integrations/connected-apps', 'Connected apps'],
      ];
      for (const [path, name] of screens) {
        await page.goto(`${service.dashboardUrl}${path}`);
        await heading(page, name).waitFor();
        await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('.loading') === null);
        const { scrollWidth, innerWidth } = await page.evaluate(() => {
          const { document, innerWidth } = globalThis as unknown as PageGlobals;
          return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth };
        });
        assert.ok(scrollWidth <= innerWidth, `${path} is ${scrollWidth} px wide in a ${innerWidth} px window`);
      }
    }),
  );

  test('the keys and channels tables show each row as a card, its actions within the window', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { viewport: PHONE });
      await heading(page, 'Overview').waitFor();

      await page.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      const key = page.getByRole('row', { name: /read key/ });
      await key.waitFor();
      const revoke = key.getByRole('button', { name: 'Revoke' });
      assert.ok(await withinWidth(revoke), 'Revoke is within the window');
      // Each cell after its column's name, written for the eye.
      assert.equal(await key.getByRole('cell').first().getAttribute('data-label'), 'Prefix');

      await page.goto(`${service.dashboardUrl}/notifications`);
      const channel = page.getByRole('row', { name: /Pager/ });
      await channel.waitFor();
      for (const name of ['Send test to Pager', 'Edit Pager', 'Delete Pager']) {
        assert.ok(await withinWidth(channel.getByRole('button', { name })), `${name} is within the window`);
      }
      assert.ok(await withinWidth(channel.locator('code')), 'the address wraps within the card');

      // In a wide window the same rows are a table again: the columns' names on top, the actions at the row's end.
      await page.setViewportSize({ width: 1280, height: 860 });
      const kind = (await page.getByRole('columnheader', { name: 'Kind' }).boundingBox())!;
      const name = (await channel.getByRole('rowheader', { name: 'Pager' }).boundingBox())!;
      const del = (await channel.getByRole('button', { name: 'Delete Pager' }).boundingBox())!;
      assert.ok(kind.height > 10 && kind.x >= name.x + name.width, `the columns are side by side under their names (${JSON.stringify({ kind, name })})`);
      assert.ok(del.x > 900, 'the actions are at the row’s end');
    }),
  );
});
