// The audit log and "Connect an AI editor" in Chromium against the real service: changes made by
// an API key through the RPC and by the person through the dashboard's own RPC, narrowed by the
// screen's filters and opened field by field; and each editor's setup, a key made on the screen,
// and real MCP clients (with that key, and with OAuth) that the screen sees connect.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Browser, Locator, Page } from 'playwright-core';
import { MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import type { PlanName } from '../server/domain/plans.ts';
import { StatusPageService } from '../proto/gen/status_page/v1/status_page_pb.js';
import { assertSameDocument, markDocument, openPage, signInLink, watchCsp, withBrowser, chooseWorkspace, goToScreen } from './support/browser.ts';
import { newWorkspace, sessionTokenOf, withHeaders } from './support/harness.ts';
import { connectMcp } from './support/mcp-client.ts';
import { bearer, connectClient, type OAuthTestService, type Receiver, startOAuthService, startReceiver } from './support/oauth-peers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** The screen asks every 3 s whether the editor has connected: a few rounds at most. */
const CONNECT_WAIT_MS = 12_000;
/** A secret-looking header value: the service seals it, and every answer shows `[redacted]`. */
const HEADER_SECRET = `Bearer hdr-${randomBytes(12).toString('hex')}`;

let service: OAuthTestService;
let receiver: Receiver;
before(async () => {
  service = await startOAuthService();
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await service.stop();
});

function transport(baseUrl: string, headers: Record<string, string>) {
  return createConnectTransport({ baseUrl: `${baseUrl}/rpc`, httpVersion: '1.1', interceptors: [withHeaders(headers)] });
}

interface TestWorkspace {
  id: string;
  name: string;
}

/** A workspace of its own for each test, on `plan`. */
async function newTestWorkspace(prefix: string, plan: PlanName = 'scale'): Promise<TestWorkspace> {
  const ws = await newWorkspace(service, prefix, plan);
  return { id: ws.id, name: ws.slug };
}

/** The headers the dashboard's own page sends to its /rpc, for a fresh sign-in of the owner. */
async function personHeaders(ws: TestWorkspace): Promise<Record<string, string>> {
  const signIn = await fetch(await signInLink(service), { redirect: 'manual' });
  assert.equal(signIn.status, 200);
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, 'x-statusdesk-session': sessionTokenOf(await signIn.text()), origin: service.dashboardUrl, 'x-statusdesk-workspace': ws.id };
}

/** Signed in, in `ws`, on the screen the navigation link `link` opens. */
async function openScreen(browser: Browser, ws: TestWorkspace, link: string, viewport = { width: 1280, height: 800 }) {
  const { context, page } = await openPage(browser, service, { viewport });
  const violations = watchCsp(page);
  await chooseWorkspace(page, { label: ws.name });
  await goToScreen(page, link);
  return { context, page, violations };
}

const entriesList = (page: Page) => page.getByRole('list', { name: 'Audit entries' });

/** The actions (machine names, kept on each entry) of the entries the list shows, once they are exactly `expected` (newest first). */
async function waitForActions(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await entriesList(page)
      .locator('li.audit-entry')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-action') ?? ''));
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, expected, 'the entries the audit log shows');
}

/** The cells of the diff row of `field`: [change, before, after]. */
async function diffRow(panel: Locator, field: string): Promise<string[]> {
  const row = panel.getByRole('row').filter({ has: panel.page().getByRole('rowheader', { name: field, exact: true }) });
  await row.waitFor();
  return (await row.getByRole('cell').allInnerTexts()).map((text) => text.trim());
}

/** Everything the page keeps in its address and storage, where no key secret may be. */
async function addressAndStorage(page: Page): Promise<string> {
  return page.evaluate<string>('JSON.stringify([location.href, { ...localStorage }, { ...sessionStorage }])');
}

describe('the audit log in Chromium', () => {
  test(
    'changes by an API key and by the person in the dashboard, narrowed by actor and record type; a diff shows the changed field and a redacted header',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace('audit');
        const { secret } = await service.createKey('write', ws.name);
        const asKey = createClient(MonitorService, transport(service.apiUrl, { 'x-service-key': secret }));
        const person = await personHeaders(ws);
        const asPerson = createClient(MonitorService, transport(service.dashboardUrl, person));

        const { monitor } = await asKey.createHTTPMonitor({
          monitor: {
            name: 'checkout',
            url: 'https://shop.example/health',
            periodicity: Periodicity.PERIODICITY_5M,
            headers: { authorization: HEADER_SECRET, 'x-team': 'payments' },
          },
        });
        await asPerson.updateHTTPMonitor({ id: monitor!.id, monitor: { name: 'checkout-eu' }, updateMask: { paths: ['name'] } });
        await createClient(StatusPageService, transport(service.dashboardUrl, person)).createStatusPage({ slug: ws.name, title: 'Shop status' });

        const { page, context, violations } = await openScreen(browser, ws, 'Audit log');
        await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
        // Sign-ins are entries too: the person's before the changes, and this page's own, newest.
        const everything = ['session.create', 'status_page.create', 'monitor.update', 'monitor.create', 'session.create', 'api_key.create', 'workspace.create'];
        await waitForActions(page, everything);
        const created = entriesList(page).locator('li[data-action="monitor.create"]');
        assert.match(await created.innerText(), /write key[\s\S]*API key/, 'the key is named, with its kind');
        assert.match(await entriesList(page).locator('li[data-action="monitor.update"]').innerText(), /Dashboard/);

        await page.getByLabel('Changed by').selectOption({ label: 'API key' });
        await waitForActions(page, ['monitor.create']);
        await page.getByLabel('Changed by').selectOption({ label: 'Dashboard' });
        await waitForActions(page, ['session.create', 'status_page.create', 'monitor.update', 'session.create']);
        await page.getByLabel('Record type').selectOption({ label: 'Monitor' });
        await waitForActions(page, ['monitor.update']);
        assert.match(page.url(), /\/audit\?entityType=monitor&actor=dashboard$/, 'the filters are in the address');

        // The update: one changed field, its old and new values side by side, the change in words.
        const toggle = page.getByRole('button', { name: /changed name of the monitor checkout-eu$/ });
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
        await toggle.focus();
        await page.keyboard.press('Enter');
        assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
        const updatePanel = page.locator(`[id="${await toggle.getAttribute('aria-controls')}"]`);
        assert.deepEqual(await diffRow(updatePanel, 'name'), ['Changed', 'checkout', 'checkout-eu']);
        assert.equal(await updatePanel.getByRole('rowheader').count(), 1, 'only the changed field, until the rest is asked for');
        await updatePanel.getByLabel(/unchanged fields too/).check();
        const [change, headersBefore, headersAfter] = await diffRow(updatePanel, 'headers');
        assert.equal(change, 'Unchanged');
        assert.match(headersBefore!, /"authorization": "\[redacted\]"/);
        assert.match(headersAfter!, /"x-team": "payments"/);

        // The creation by the key: every field new, the header's value as the service gives it.
        await page.getByRole('button', { name: 'Clear filters' }).first().click();
        await page.getByLabel('Changed by').selectOption({ label: 'API key' });
        await waitForActions(page, ['monitor.create']);
        const createToggle = page.getByRole('button', { name: /created the monitor checkout$/ });
        await createToggle.click();
        const createPanel = page.locator(`[id="${await createToggle.getAttribute('aria-controls')}"]`);
        const [added, none, value] = await diffRow(createPanel, 'headers');
        assert.equal(added, 'Added');
        assert.equal(none, '(none)');
        assert.match(value!, /"authorization": "\[redacted\]"/);
        assert.ok(!(await page.content()).includes(HEADER_SECRET.slice(7)), 'the sealed header value never reaches the page');

        // Nothing of the person's matches an API key on status pages: the filtered empty state.
        await page.getByLabel('Record type').selectOption({ label: 'Status page' });
        await page.getByText('No entry matches these filters.').waitFor();

        // The time range, in the browser's own time: a window ending before the changes holds none of them.
        await page.getByRole('button', { name: 'Clear filters' }).first().click();
        await waitForActions(page, everything);
        const localMinute = (offsetMs: number) =>
          page.evaluate((offset) => {
            const at = new Date(Date.now() + offset);
            at.setMinutes(at.getMinutes() - at.getTimezoneOffset());
            return at.toISOString().slice(0, 16);
          }, offsetMs);
        await page.getByLabel('To', { exact: true }).fill(await localMinute(-60 * 60_000));
        await page.getByText('No entry matches these filters.').waitFor();
        await page.getByLabel('To', { exact: true }).fill(await localMinute(60 * 60_000));
        await page.getByLabel('From', { exact: true }).fill(await localMinute(-60 * 60_000));
        await waitForActions(page, everything);
        assert.deepEqual(violations, []);
        await context.close();
      }),
  );

  test('Load more continues below the first page, and a plan without the audit log says so instead of failing', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace('audit-more');
      const hobby = await newTestWorkspace('audit-hobby', 'hobby');
      const { secret } = await service.createKey('write', ws.name);
      const asKey = createClient(MonitorService, transport(service.apiUrl, { 'x-service-key': secret }));
      for (let i = 0; i < 52; i++)
        await asKey.createTCPMonitor({ monitor: { name: `db-${i}`, uri: `db${i}.internal:5432`, periodicity: Periodicity.PERIODICITY_10M } });

      const { page, context } = await openScreen(browser, ws, 'Audit log');
      await page.getByText('50 entries so far.').waitFor();
      await page.getByRole('button', { name: 'Load more' }).click();
      // 52 monitors, the key, the workspace, and this page's sign-in.
      await page.getByText('55 entries.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'no more pages');
      const records = await entriesList(page).locator('.audit-what').allInnerTexts();
      assert.equal(new Set(records).size, records.length, 'no entry twice');
      assert.equal(records.at(-1)!.trim().startsWith('created the workspace'), true, 'the oldest entry last');

      await chooseWorkspace(page, { label: hobby.name });
      await page.getByText('The audit log is not part of this workspace’s plan.').waitFor();
      assert.match(await page.getByRole('status').filter({ hasText: 'not part of' }).innerText(), /hobby plan/);
      assert.equal(await page.getByRole('alert').count(), 0, 'a notice, not an error');
      await context.close();
    }),
  );

  test('at 420 px wide the filters and an opened entry fit the window', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace('audit-narrow');
      const { page, context } = await openScreen(browser, ws, 'Audit log', { width: 420, height: 800 });
      await waitForActions(page, ['session.create', 'workspace.create']);
      await page.getByRole('button', { name: /created the workspace/ }).click();
      await page.getByRole('rowheader', { name: 'slug', exact: true }).waitFor();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
      await context.close();
    }),
  );
});

describe('Connect an AI editor in Chromium', () => {
  test('each editor’s setup names the real MCP address; the install links use the editor’s scheme and carry the configuration', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace('connect');
      const mcpUrl = `${service.apiUrl}/mcp`;
      const { page, context, violations } = await openScreen(browser, ws, 'Connect an editor');
      await page.getByRole('heading', { name: 'Connect an AI editor', level: 1 }).waitFor();

      const claudeCode = page.getByRole('tab', { name: 'Claude Code' });
      assert.equal(await claudeCode.getAttribute('aria-selected'), 'true');
      assert.equal(await page.getByRole('figure', { name: 'Command' }).locator('pre').innerText(), `claude mcp add --transport http statusdesk ${mcpUrl}`);
      assert.equal(await page.getByRole('link', { name: /^Add to/ }).count(), 0, 'Claude Code has no install link');

      // Arrow keys move between the tabs.
      await claudeCode.focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getByRole('tab', { name: 'Cursor' }).getAttribute('aria-selected'), 'true');
      assert.match(page.url(), /\/connect\?editor=cursor$/);
      const cursorHref = (await page.getByRole('link', { name: 'Add to Cursor' }).getAttribute('href'))!;
      const cursorPrefix = 'cursor://anysphere.cursor-deeplink/mcp/install?';
      assert.ok(cursorHref.startsWith(cursorPrefix), cursorHref);
      const cursorParams = new URLSearchParams(cursorHref.slice(cursorPrefix.length));
      assert.equal(cursorParams.get('name'), 'statusdesk');
      assert.deepEqual(JSON.parse(Buffer.from(cursorParams.get('config')!, 'base64').toString('utf8')), { url: mcpUrl });
      assert.deepEqual(JSON.parse(await page.getByRole('figure', { name: '~/.cursor/mcp.json' }).locator('pre').innerText()), {
        mcpServers: { statusdesk: { url: mcpUrl } },
      });

      await page.getByRole('tab', { name: 'VS Code' }).click();
      const vscodeHref = (await page.getByRole('link', { name: 'Add to VS Code' }).getAttribute('href'))!;
      assert.ok(vscodeHref.startsWith('vscode:mcp/install?'), vscodeHref);
      assert.deepEqual(JSON.parse(decodeURIComponent(vscodeHref.slice('vscode:mcp/install?'.length))), { name: 'statusdesk', type: 'http', url: mcpUrl });

      await page.getByRole('tab', { name: 'Claude Desktop' }).click();
      const desktop = JSON.parse(await page.getByRole('figure', { name: 'claude_desktop_config.json' }).locator('pre').innerText());
      assert.deepEqual(desktop, { mcpServers: { statusdesk: { command: 'statusdesk', args: ['mcp'], env: { SERVICE_API_URL: service.apiUrl } } } });
      assert.match(
        await page.getByRole('figure', { name: 'Command' }).locator('pre').innerText(),
        new RegExp(`^statusdesk login --api-url ${service.apiUrl}$`),
      );

      // Copying says so where people look.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.dashboardUrl });
      await page.getByRole('button', { name: 'Copy claude_desktop_config.json' }).click();
      await page.getByRole('figure', { name: 'claude_desktop_config.json' }).getByRole('status').getByText('Copied.').waitFor();
      assert.deepEqual(JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()')), desktop);
      assert.deepEqual(violations, []);
      await context.close();
    }),
  );

  test('a key made on the screen: its secret in the setup once, and the screen sees a real MCP client connect with it, without a reload', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace('connect-key');
      const { page, context } = await openScreen(browser, ws, 'Connect an editor');
      await page.getByRole('tab', { name: 'Cursor' }).click();
      await page.getByRole('radio', { name: 'An API key' }).check();
      await page.getByRole('status').getByText('Create the key, then set up Cursor with it.').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Add to Cursor' }).count(), 0, 'no link before there is a key');
      await page.getByLabel('Key name').fill('cursor laptop');
      await page.getByRole('button', { name: 'Create key and show setup' }).click();

      await page.getByRole('heading', { name: 'Key “cursor laptop” created' }).waitFor();
      const file = JSON.parse(await page.getByRole('figure', { name: '~/.cursor/mcp.json' }).locator('pre').innerText());
      const secret: string = file.mcpServers.statusdesk.headers['x-service-key'];
      assert.match(secret, /^svc_/);
      assert.equal(file.mcpServers.statusdesk.url, `${service.apiUrl}/mcp`);
      const href = (await page.getByRole('link', { name: 'Add to Cursor' }).getAttribute('href'))!;
      const config = JSON.parse(Buffer.from(new URLSearchParams(href.split('?')[1]).get('config')!, 'base64').toString('utf8'));
      assert.equal(config.headers['x-service-key'], secret, 'the chosen key option puts the secret in the link');
      await page.getByText('This link carries the key’s secret.').waitFor();
      assert.ok(!(await addressAndStorage(page)).includes(secret), 'no secret in the address or storage');

      await markDocument(page);
      await page.getByRole('status').getByText('Waiting for Cursor to connect with the key “cursor laptop”…').waitFor();
      const mcp = await connectMcp(service.apiUrl, '2025-11-25', secret);
      try {
        await page
          .getByRole('status')
          .getByText(/Connected: Cursor with the key “cursor laptop”, just now/)
          .waitFor({ timeout: CONNECT_WAIT_MS });
      } finally {
        await mcp.close();
      }
      await assertSameDocument(page);

      await page.getByRole('button', { name: 'Done, forget the secret' }).click();
      await page.getByLabel('Key name').waitFor();
      assert.ok(!(await page.content()).includes(secret), 'the secret is gone from the page');
      await context.close();
    }),
  );

  test('with OAuth the screen waits for the editor, and names the app once it is approved and calls', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace('connect-oauth');
      const { page, context } = await openScreen(browser, ws, 'Connect an editor');
      await page.getByRole('status').getByText('Waiting for Claude Code to connect…').waitFor();
      // One round of the screen's check, so the connection is new to it.
      await page.waitForTimeout(3500);

      const appName = `Claude Code ${randomBytes(3).toString('hex')}`;
      const { tokens } = await connectClient(service, receiver, { name: appName, decision: { decide: 'approve', workspaceId: Number(ws.id), access: 'read' } });
      const mcp = await connectMcp(service.apiUrl, '2025-11-25', bearer(tokens.access_token));
      try {
        await page.getByRole('status').getByText(`Connected: ${appName}, just now.`).waitFor({ timeout: CONNECT_WAIT_MS });
      } finally {
        await mcp.close();
      }
      await context.close();
    }),
  );
});
