// The public status page in Chromium, as a visitor sees it, against the real service: times in the
// visitor's time zone, a day's detail shown on keyboard focus, the page refreshing itself without a
// reload, axe in both colour schemes at 1280 and 390 px, and the dashboard's preview keeping an
// ungrouped component apart from the groups around it. Monitors point at real loopback listeners
// and closed ports; checks run only when the test asks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Actor } from '../server/domain/actor.ts';
import { ACTION_TIMEOUT_MS, assertSameDocument, axeViolations, markDocument, openPage, screenshot, watchCsp, withBrowser } from './support/browser.ts';
import { closedPort, startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { type SmtpReceiver, startSmtpReceiver } from './support/receivers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
const system: Actor = { type: 'system', surface: 'cli' };

let service: TestService;
let smtp: SmtpReceiver;
let listener: TcpListener;
let ws: number;
/** The seeded page: a group, an ungrouped component, another group; a monitored component with an open incident. */
let seeded: { id: string; url: string; monitorId: string; reportCreatedAt: string };

before(async () => {
  smtp = await startSmtpReceiver({ lifetimeMs: 300_000 });
  listener = await startTcpListener();
  service = await startTestService({ STATUSDESK_SMTP_URL: smtp.url });
  const services = service.services;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
  const page = await services.pages.create(system, ws, { slug: 'visitor-view', title: 'Acme status', description: 'Everything Acme runs.' });
  const monitor = await services.monitors.create(system, ws, 'tcp', {
    name: 'checkout',
    uri: listener.uri,
    periodicity: '30s',
    regions: ['iad'],
    timeout: 1_000,
    retry: 0,
  });
  const checkout = await services.pages.addComponent(system, ws, page.id, { name: 'Checkout', group: 'Payments', monitorId: monitor.id });
  await services.pages.addComponent(system, ws, page.id, { name: 'Marketing website' });
  await services.pages.addComponent(system, ws, page.id, { name: 'Search API', group: 'Platform' });
  assert.equal((await services.monitors.trigger(system, ws, monitor.id))[0]!.result, 'up');
  const { report } = await services.reports.create(system, ws, {
    pageId: page.id,
    title: 'Slow card payments',
    message: 'Looking into it.',
    pageComponentIds: [checkout.id],
    notify: false,
  });
  seeded = { id: page.id, url: page.url, monitorId: monitor.id, reportCreatedAt: report.createdAt };
});

after(async () => {
  await service?.stop();
  await listener?.close();
  await smtp?.close();
});

/** The public page in a fresh context (no sign-in: a visitor). */
async function visit(browser: Parameters<Parameters<typeof withBrowser>[0]>[0], options: Parameters<typeof openPage>[2] = {}) {
  const opened = await openPage(browser, service, { signedIn: false, ...options });
  const csp = watchCsp(opened.page);
  return { ...opened, csp };
}

/** The element with the focus, described: its tag, and the text of a day bar's detail. */
const focused = (page: Page): Promise<{ tag: string; inBar: boolean; text: string }> =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    return { tag: el ? el.tagName : '', inBar: Boolean(el && el.parentElement && el.parentElement.classList.contains('bar')), text: el ? el.textContent : '' };
  })()`);

const scrollTop = (page: Page): Promise<number> => page.evaluate('scrollY');

describe('the public page in a browser', () => {
  test("shows times in the visitor's zone and language, the UTC time kept as the title", TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page, csp } = await visit(browser, { timezoneId: 'Pacific/Auckland', locale: 'en-NZ' });
      try {
        await page.goto(seeded.url);
        const started = page.locator('.rep .meta time').first();
        await page.locator('time[data-local]').first().waitFor();
        const ms = Date.parse(seeded.reportCreatedAt);
        const inAuckland = new Intl.DateTimeFormat('en-NZ', {
          timeZone: 'Pacific/Auckland',
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: 'numeric',
          minute: '2-digit',
          timeZoneName: 'short',
        }).format(ms);
        assert.equal(await started.textContent(), inAuckland);
        assert.match(inAuckland, /NZ[DS]T|GMT\+1[23]/, 'the expected text names the zone');
        const utc = new Date(ms).toISOString();
        assert.equal(await started.getAttribute('title'), `${utc.slice(0, 10)} ${utc.slice(11, 16)} UTC`);
        // The "Updated" line too.
        assert.doesNotMatch((await page.locator('#updated time').textContent()) ?? '', /UTC/);
        assert.deepEqual(csp, [], 'the policy refused something');
      } finally {
        await context.close();
      }
    });
  });

  test('without the script, times stay readable in UTC and every day is a Tab stop', TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page } = await visit(browser, { timezoneId: 'Pacific/Auckland', javaScriptEnabled: false });
      try {
        await page.goto(seeded.url);
        assert.match((await page.locator('.rep .meta time').first().textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        await page.locator('ol.bar li').last().focus();
        assert.equal(await page.locator('ol.bar li[tabindex="0"]').count(), 90);
        await page.locator('ol.bar li').last().locator('span').waitFor({ state: 'visible' });
      } finally {
        await context.close();
      }
    });
  });

  test("keyboard focus on a day bar shows that day's detail; arrow keys move between days", TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page } = await visit(browser);
      try {
        await page.goto(seeded.url);
        await page.locator('time[data-local]').first().waitFor();
        // From the top of the page, by Tab alone: the bar is one stop, at today.
        let reached = await focused(page);
        for (let i = 0; i < 10 && !reached.inBar; i++) {
          await page.keyboard.press('Tab');
          reached = await focused(page);
        }
        assert.ok(reached.inBar, 'Tab never reached a day bar');
        const today = new Date().toISOString().slice(0, 10);
        // Another test of this file may have made the seeded monitor fail today: its checks count.
        assert.match(reached.text, new RegExp(`^${today}: [\\d.]+% uptime(, \\d+ failed checks?)?\\. Incident: Slow card payments$`));
        const todayDetail = page.locator('ol.bar li').last().locator('span');
        const box = await todayDetail.boundingBox();
        assert.ok(box && box.width > 100 && box.height > 10, `the detail is not shown: ${JSON.stringify(box)}`);
        await screenshot(page, 'public-page-day-focus-light-1280');

        await page.keyboard.press('ArrowLeft');
        const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
        assert.equal((await focused(page)).text, `${yesterday}: no data`);
        assert.ok(((await page.locator('ol.bar li').nth(88).locator('span').boundingBox())?.width ?? 0) > 50, "yesterday's detail is not shown");
        // The bar stays one Tab stop: the next Tab leaves it.
        await page.keyboard.press('Tab');
        assert.equal((await focused(page)).inBar, false);
      } finally {
        await context.close();
      }
    });
  });

  test('refreshes its content within a minute, without a reload, keeping the focus; says when it was updated', TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page, csp } = await visit(browser);
      try {
        // The page's own clock, moved by the test: the product's 60 s, not a shorter interval.
        await page.clock.install();
        await page.goto(seeded.url);
        await page.locator('time[data-local]').first().waitFor();
        await markDocument(page);
        const checkout = page.locator('li.c', { has: page.getByRole('heading', { name: 'Checkout', exact: true }) });
        // Degraded: its incident is open and its monitor is up.
        await checkout.locator('.st').getByText('Degraded performance').waitFor();
        const updatedBefore = await page.locator('#updated time').getAttribute('datetime');
        await page.locator('ol.bar li').last().focus();
        const scrolled = await scrollTop(page);

        // The monitor goes down: its target closes.
        await service.services.monitors.update(system, ws, 'tcp', seeded.monitorId, { uri: `127.0.0.1:${await closedPort()}` });
        assert.equal((await service.services.monitors.trigger(system, ws, seeded.monitorId))[0]!.result, 'down');

        // Not before a minute has passed.
        await page.clock.fastForward(30_000);
        await page.waitForTimeout(300);
        assert.equal(await checkout.getByText('Outage').count(), 0, 'refreshed before a minute had passed');
        await page.clock.fastForward(31_000);
        await checkout.getByText('Outage').waitFor({ timeout: ACTION_TIMEOUT_MS });
        await page.getByRole('heading', { level: 2, name: /outage/i }).waitFor();

        await assertSameDocument(page);
        assert.notEqual(await page.locator('#updated time').getAttribute('datetime'), updatedBefore, 'the "Updated" line did not move');
        assert.match((await page.locator('#updated').textContent()) ?? '', /^Updated /);
        const after = await focused(page);
        assert.ok(after.inBar, `the focus left the day bar: ${JSON.stringify(after)}`);
        assert.equal(await scrollTop(page), scrolled);
        assert.match(await page.title(), /Acme status/);
        assert.deepEqual(csp, [], 'the policy refused something');
      } finally {
        await context.close();
        // Up again for the other tests.
        await service.services.monitors.update(system, ws, 'tcp', seeded.monitorId, { uri: listener.uri });
        await service.services.monitors.trigger(system, ws, seeded.monitorId);
      }
    });
  });

  test('a hidden tab fetches nothing; shown again after a minute, it refreshes at once', TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page } = await visit(browser);
      try {
        await page.clock.install();
        await page.goto(seeded.url);
        await page.locator('time[data-local]').first().waitFor();
        const path = new URL(seeded.url).pathname;
        let fetches = 0;
        page.on('request', (request) => {
          if (new URL(request.url()).pathname === path) fetches++;
        });
        // A headless page is always visible: the test makes it hidden as a background tab is.
        const setHidden = (hidden: boolean) =>
          page.evaluate(
            `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event('visibilitychange'))`,
          );
        await setHidden(true);
        await page.clock.fastForward(125_000);
        await page.waitForTimeout(300);
        assert.equal(fetches, 0, 'a hidden tab fetched the page');
        await setHidden(false);
        await page.locator('#updated').waitFor();
        const deadline = Date.now() + ACTION_TIMEOUT_MS;
        while (fetches === 0 && Date.now() < deadline) await page.waitForTimeout(100);
        assert.equal(fetches, 1, 'the tab shown again did not refresh at once');
      } finally {
        await context.close();
      }
    });
  });

  test('passes axe in both colour schemes at 1280 and 390 px, the title clear of the top edge', { timeout: 300_000 }, async () => {
    await withBrowser(async (browser) => {
      for (const width of [1280, 390]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const { context, page } = await visit(browser, { viewport: { width, height: 900 }, colorScheme });
          try {
            await page.goto(seeded.url);
            await page.locator('time[data-local]').first().waitFor();
            const top = (await page.getByRole('heading', { level: 1 }).boundingBox())!.y;
            assert.ok(top >= 20, `the title is ${top} px from the top at ${width} px`);
            await screenshot(page, `public-page-${colorScheme}-${width}`);
            assert.deepEqual(await axeViolations(page), [], `axe at ${width} px, ${colorScheme}`);
            // With a day's detail shown.
            await page.locator('ol.bar li').last().focus();
            assert.deepEqual(await axeViolations(page), [], `axe at ${width} px, ${colorScheme}, a day focused`);
          } finally {
            await context.close();
          }
        }
      }
    });
  });

  test("the dashboard's preview keeps an ungrouped component apart from the groups around it", TEST_TIMEOUT, async () => {
    await withBrowser(async (browser) => {
      const { context, page } = await openPage(browser, service);
      try {
        await page.goto(`${service.dashboardUrl}/pages/${seeded.id}?tab=preview`);
        const components = page.getByRole('region', { name: 'Components' });
        await components.getByText('Marketing website').waitFor();
        const groups = components.locator('.preview-named-group');
        assert.deepEqual(await groups.locator('h4').allInnerTexts(), ['Payments', 'Platform']);
        assert.equal(await groups.getByText('Marketing website').count(), 0, 'the ungrouped component is inside a group');
        assert.deepEqual(await components.locator('.preview-components li > span:first-child').allInnerTexts(), [
          'Checkout',
          'Marketing website',
          'Search API',
        ]);
        for (const [width, colorScheme] of [
          [1280, 'light'],
          [390, 'dark'],
        ] as const) {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme });
          await components.scrollIntoViewIfNeeded();
          await screenshot(page, `page-preview-groups-${colorScheme}-${width}`);
          // The screen passes axe with the group boxes in it.
          assert.deepEqual(await axeViolations(page), [], `axe at ${width} px, ${colorScheme}`);
        }
      } finally {
        await context.close();
      }
    });
  });
});
