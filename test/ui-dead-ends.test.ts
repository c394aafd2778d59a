// No dead ends and no silent changes, in Chromium against the real service: the addresses shown are
// the service's own, a change says so in a toast a screen reader announces, an unknown address
// shows the dashboard's not-found screen, a used sign-in link says what to do in a styled page,
// and the monitor detail leads back to the overview as it was left.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { axeViolations, openPage, signInLink, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** The toasts' lifetime (renderer/src/toasts.tsx) and a margin. */
const TOAST_MS = 6000;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

/** A workspace of its own, with a write key's RPC client. */
async function testWorkspace(prefix: string) {
  const ws = await newWorkspace(service, prefix);
  const { secret } = await service.createKey('write', ws.slug);
  return { ...ws, rpc: monitorRpc(service, secret) };
}

async function tcpMonitor(rpc: ReturnType<typeof monitorRpc>, name: string): Promise<string> {
  const { monitor } = await rpc.createTCPMonitor({ monitor: { name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_10M, active: false } });
  return monitor!.id;
}

/** Opens `path` in the workspace `slug`, signed in. */
async function openIn(page: Page, slug: string, path: string): Promise<void> {
  await chooseWorkspace(page, { label: slug });
  await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);
}

const toasts = (page: Page) => page.getByRole('region', { name: 'Notifications' }).getByRole('status');

describe('no dead ends in the dashboard', () => {
  test('Connected apps shows the MCP address the service gives, on its real port', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await testWorkspace('apps');
      const { context, page } = await openPage(browser, service);
      await openIn(page, ws.slug, '/settings/integrations/connected-apps');
      const empty = page.getByText(/^Point your editor at/);
      await empty.waitFor();
      const shown = await empty.locator('code').innerText();
      assert.equal(shown, `${service.apiUrl}/mcp`);
      assert.notEqual(new URL(shown).port, '3000', 'the random port of this service, not a default');
      await context.close();
    }),
  );

  test('saving and deleting say so in a polite live region present from the start; a held message stays', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await testWorkspace('toast');
      const id = await tcpMonitor(ws.rpc, 'billing-db');
      const { context, page } = await openPage(browser, service);
      const violations = watchCsp(page);
      assert.equal(await toasts(page).count(), 1, 'the live region is in the page before any change');
      assert.equal(await toasts(page).getAttribute('aria-live'), 'polite');
      assert.equal((await toasts(page).innerText()).trim(), '');

      await openIn(page, ws.slug, `/monitors/${id}/edit`);
      const name = page.getByLabel('Name', { exact: true });
      await name.waitFor();
      await name.fill('billing-db-eu');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await toasts(page).getByText('Monitor saved.').waitFor();
      assert.match(await toasts(page).innerText(), /Monitor saved\./);

      // Held by the pointer, it outlives its time; let go, it leaves.
      await toasts(page).getByText('Monitor saved.').hover();
      await page.waitForTimeout(TOAST_MS + 1000);
      assert.equal(await toasts(page).getByText('Monitor saved.').count(), 1, 'kept while hovered');
      await page.mouse.move(5, 5);
      await toasts(page)
        .getByText('Monitor saved.')
        .waitFor({ state: 'detached', timeout: TOAST_MS + 5000 });

      await openIn(page, ws.slug, `/monitors/${id}`);
      await page.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /Delete/ })
        .click();
      await toasts(page).getByText('Monitor deleted.').waitFor();
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(violations, []);
      await context.close();
    }),
  );

  test('an unknown dashboard address is 404 with the not-found screen inside the dashboard', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { context, page } = await openPage(browser, service);
      await page.getByLabel('Current workspace').waitFor();
      const response = await page.goto(`${service.dashboardUrl}/no/such/screen`);
      assert.equal(response?.status(), 404);
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      assert.match(await page.locator('main').innerText(), /There is no page at \/no\/such\/screen/);
      await page.getByRole('link', { name: 'Go to the overview' }).click();
      await page.waitForURL(`${service.dashboardUrl}/`);
      // Programs still get the JSON refusal.
      const api = await fetch(`${service.dashboardUrl}/no/such/screen`, { headers: { accept: 'application/json' } });
      assert.equal(api.status, 404);
      assert.match(api.headers.get('content-type') ?? '', /^application\/json/);
      await context.close();
    }),
  );

  test('a used sign-in link explains what to do, styled as the service’s other pages', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const link = await signInLink(service);
      const { context, page } = await openPage(browser, service, { signedIn: false });
      await page.goto(link);
      const violations = watchCsp(page);
      const again = await page.goto(link);
      assert.equal(again?.status(), 401);
      await page.getByRole('heading', { name: 'This sign-in link can no longer be used', level: 1 }).waitFor();
      const text = await page.locator('main').innerText();
      assert.match(text, /statusdesk dashboard/);
      assert.match(text, /Open Statusdesk/);
      assert.doesNotMatch(await page.content(), /statusdesk serve|Restart Statusdesk/);
      // The stylesheet applies (the page's policy allows it): the status pages' type and width.
      const style = await page.evaluate<{ font: string; width: string }>(
        `({ font: getComputedStyle(document.body).fontFamily, width: getComputedStyle(document.querySelector('main')).maxWidth })`,
      );
      assert.match(style.font, /system-ui/);
      assert.equal(style.width, '832px');
      assert.deepEqual(violations, [], 'no style refused');
      assert.deepEqual(await axeViolations(page), []);
      await context.close();
    }),
  );

  test('the monitor detail leads back to the overview with its search and filter as left', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await testWorkspace('back');
      await tcpMonitor(ws.rpc, 'alpha-api');
      await tcpMonitor(ws.rpc, 'beta-api');
      const { context, page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.slug });
      const list = page.getByRole('list', { name: 'Monitors' });
      await list.getByRole('link', { name: 'beta-api', exact: true }).waitFor();
      await page.getByLabel('Search by name').fill('alpha');
      await list.getByRole('link', { name: 'beta-api', exact: true }).waitFor({ state: 'detached' });
      await page.waitForURL(/\?q=alpha$/);

      await list.getByRole('link', { name: 'alpha-api', exact: true }).click();
      await page.getByRole('heading', { name: 'alpha-api', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Back to the overview' }).click();
      await page.waitForURL(/\/\?q=alpha$/);
      assert.equal(await page.getByLabel('Search by name').inputValue(), 'alpha');
      await list.getByRole('link', { name: 'alpha-api', exact: true }).waitFor();
      assert.equal(await list.getByRole('link', { name: 'beta-api', exact: true }).count(), 0, 'still filtered');

      // Opened directly, the detail still has a way to the overview.
      const id = await tcpMonitor(ws.rpc, 'gamma-api');
      await page.goto(`${service.dashboardUrl}/monitors/${id}`);
      await chooseWorkspace(page, { label: ws.slug });
      assert.equal(await page.getByRole('link', { name: 'Back to the overview' }).getAttribute('href'), '/');
      await context.close();
    }),
  );
});
