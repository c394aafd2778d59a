// The settings area in Chromium against the real service: one Settings entry in the sidebar, its
// own navigation by section (General: API Keys; Integrations: Connected apps), each screen at an
// address of its own that loads directly, and the addresses the screens had before redirecting
// to the new ones. docs/guides/dashboard.md describes it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertSameDocument, markDocument, openPage, watchCsp, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 60_000 };
const API_KEYS = '/settings/general/api-keys';
const CONNECTED_APPS = '/settings/integrations/connected-apps';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const settingsNav = (page: Page) => page.getByRole('navigation', { name: 'Settings' });
const pathOf = (page: Page) => new URL(page.url()).pathname;
const focusedTag = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.tagName.toLowerCase() : ""');

describe('the settings area', () => {
  test('Settings → General → API Keys and Settings → Integrations → Connected apps, by their names, each at its own address', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      const violations = watchCsp(page);
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await markDocument(page);

      // The sidebar has one Settings entry; the two screens are no longer entries of their own.
      assert.equal(await mainNav(page).getByRole('link', { name: 'API Keys' }).count(), 0);
      assert.equal(await mainNav(page).getByRole('link', { name: 'Connected apps' }).count(), 0);
      await mainNav(page).getByRole('link', { name: 'Settings', exact: true }).click();
      // Settings opens its first screen, General's API Keys.
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      assert.equal(pathOf(page), API_KEYS);
      assert.equal(await mainNav(page).getByRole('link', { name: 'Settings', exact: true }).getAttribute('aria-current'), 'page');

      const apiKeys = settingsNav(page).getByRole('list', { name: 'General' }).getByRole('link', { name: 'API Keys', exact: true });
      const connectedApps = settingsNav(page).getByRole('list', { name: 'Integrations' }).getByRole('link', { name: 'Connected apps', exact: true });
      assert.equal(await apiKeys.getAttribute('aria-current'), 'page');
      assert.equal(await apiKeys.getAttribute('href'), API_KEYS);
      assert.equal(await connectedApps.getAttribute('aria-current'), null);

      await connectedApps.click();
      await page.getByRole('heading', { name: 'Connected apps', level: 1 }).waitFor();
      assert.equal(pathOf(page), CONNECTED_APPS);
      assert.equal(await connectedApps.getAttribute('aria-current'), 'page');
      assert.equal(await apiKeys.getAttribute('aria-current'), null);
      assert.equal(await mainNav(page).getByRole('link', { name: 'Settings', exact: true }).getAttribute('aria-current'), 'page');
      assert.equal(await focusedTag(page), 'h1', 'the new screen takes the focus');

      await apiKeys.click();
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      assert.equal(pathOf(page), API_KEYS);
      await assertSameDocument(page);

      // Back goes through the screens shown; /settings itself was replaced, not kept in history.
      await page.goBack();
      await page.getByRole('heading', { name: 'Connected apps', level: 1 }).waitFor();
      await page.goBack();
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      assert.equal(pathOf(page), API_KEYS);
      await page.goBack();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      assert.equal(pathOf(page), '/');
      assert.deepEqual(violations, []);
    }),
  );

  test('each screen loads at its own address; the old addresses and the sections redirect to it, keeping the query', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      const cases: [string, string, string][] = [
        [API_KEYS, API_KEYS, 'API Keys'],
        [CONNECTED_APPS, CONNECTED_APPS, 'Connected apps'],
        ['/keys', API_KEYS, 'API Keys'],
        ['/connections', CONNECTED_APPS, 'Connected apps'],
        ['/settings', API_KEYS, 'API Keys'],
        ['/settings/general', API_KEYS, 'API Keys'],
        ['/settings/integrations', CONNECTED_APPS, 'Connected apps'],
      ];
      for (const [path, shown, heading] of cases) {
        // From the overview, so that Back shows where the address was typed.
        await page.goto(`${service.dashboardUrl}/`);
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        const response = await page.goto(`${service.dashboardUrl}${path}?workspace=personal`);
        assert.equal(response?.status(), 200, `${path} is served`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        const url = new URL(page.url());
        assert.equal(url.pathname, shown, path);
        assert.equal(url.search, '?workspace=personal', `${path} keeps its query`);
        assert.equal(await settingsNav(page).getByRole('link', { name: heading, exact: true }).getAttribute('aria-current'), 'page', path);
        // A redirect at load is not a move of the user's: the focus stays where a load leaves it.
        assert.notEqual(await focusedTag(page), 'h1', path);
        // The old address was replaced: Back leaves the screen instead of redirecting again.
        await page.goBack();
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        assert.equal(pathOf(page), '/', path);
      }
    }),
  );

  test('at 390 px wide the settings navigation sits above the screen and nothing scrolls sideways, in both themes', T, () =>
    withBrowser(async (browser) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await openPage(browser, service, { viewport: { width: 390, height: 844 }, colorScheme });
        for (const [path, heading] of [
          [API_KEYS, 'API Keys'],
          [CONNECTED_APPS, 'Connected apps'],
        ] as const) {
          await page.goto(`${service.dashboardUrl}${path}`);
          const title = page.getByRole('heading', { name: heading, level: 1 });
          await title.waitFor();
          const titleBox = (await title.boundingBox())!;
          for (const name of ['API Keys', 'Connected apps']) {
            const box = (await settingsNav(page).getByRole('link', { name, exact: true }).boundingBox())!;
            assert.ok(box.x >= 0 && box.x + box.width <= 390, `${name} is within the window at ${path} (${colorScheme})`);
            assert.ok(box.y + box.height <= titleBox.y, `${name} is above the screen's title at ${path} (${colorScheme})`);
          }
          const width = await page.evaluate<number>('document.documentElement.scrollWidth');
          assert.ok(width <= 390, `${path} is ${width} px wide (${colorScheme})`);
        }
        await context.close();
      }
    }),
  );
});
