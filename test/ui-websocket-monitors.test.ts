// WebSocket monitors in Chromium against the real service and a real WebSocket server on loopback
// (test/support/websocket-peer.ts): made through the form (URL, a hidden header, subprotocol, a
// message to send and the text expected), checked with the detail's Check now and its record
// shown readably, a refusal of the service shown beside the field it names, and an edit that
// keeps the hidden header.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openPage, screenshot, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startWebSocketPeer, type WebSocketPeer } from './support/websocket-peer.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
const SECRET = 'Bearer ui-ws-secret';

let service: TestService;
let peer: WebSocketPeer;
before(async () => {
  service = await startTestService();
  peer = await startWebSocketPeer();
});
after(async () => {
  await peer?.close();
  await service?.stop();
});

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function detailId(page: Page): Promise<string> {
  await page.waitForURL(/\/monitors\/\d+$/);
  return /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;
}

async function checkNow(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('section.check-now[aria-busy="false"]').waitFor();
}

/** The texts the field's aria-describedby points at: its hint and the service's message. */
async function describedBy(page: Page, label: string): Promise<string> {
  const ids = ((await field(page, label).getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()))).join(' | ');
}

describe('WebSocket monitors in the dashboard', () => {
  test('made through the form, refused beside the URL first, checked with its record shown, edited keeping the hidden header', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newWorkspace(service, 'ws-ui');
      const rpc = monitorRpc(service, (await service.createKey('write', ws.slug)).secret);
      const { page } = await openPage(browser, service, { viewport: { width: 1280, height: 900 } });
      const violations = watchCsp(page);
      await chooseWorkspace(page, { label: ws.slug });
      await page.goto(`${service.dashboardUrl}/monitors/new`);
      await page.getByRole('radio', { name: 'WebSocket' }).check();
      assert.match(await page.getByRole('group', { name: 'Type' }).innerText(), /Opens a WebSocket/, "the type's summary is the contract's");

      await field(page, 'Name').fill('Echo socket');
      await field(page, 'URL').fill(peer.url('/echo').replace('ws://', 'http://'));
      await page.getByRole('button', { name: 'Add header', exact: true }).click();
      await field(page, 'Header 1 name').fill('Authorization');
      await field(page, 'Header 1 value').fill(SECRET);
      await field(page, 'Subprotocol').fill('chat.v1');
      await field(page, 'Message to send').fill('{"op":"ping"}');
      await field(page, 'Expected text').fill('"op":"ping"');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
      await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
      await field(page, 'Retries').fill('0');

      // The service refuses an http:// URL: its message is on the URL, what was typed is kept.
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await page.waitForFunction((el) => el?.getAttribute('aria-invalid') === 'true', await field(page, 'URL').elementHandle());
      assert.match(await describedBy(page, 'URL'), /must use ws:\/\/ or wss:\/\/, not http:\/\//);
      assert.equal((await rpc.listMonitors({})).totalSize, 0, 'nothing stored');
      assert.equal(await field(page, 'Expected text').inputValue(), '"op":"ping"');

      await field(page, 'URL').fill(peer.url('/echo'));
      await page.getByRole('button', { name: 'Create monitor' }).click();
      const id = await detailId(page);
      const stored = (await rpc.getMonitor({ id })).monitor;
      assert.equal(stored.case, 'websocketMonitor');
      const m = stored.value as {
        url: string;
        headers: Record<string, string>;
        subprotocol: string;
        sendText: string;
        expectText: string;
        periodicity: number;
      };
      assert.deepEqual(
        [m.url, m.headers, m.subprotocol, m.sendText, m.expectText, m.periodicity],
        [peer.url('/echo'), { Authorization: '[redacted]' }, 'chat.v1', '{"op":"ping"}', '"op":"ping"', Periodicity.PERIODICITY_10M],
      );

      assert.match(await page.locator('.detail-facts').innerText(), /WebSocket/);
      assert.match(await page.locator('.detail-target').innerText(), /\/echo \(chat\.v1\)$/);
      await checkNow(page);
      assert.match(await page.getByRole('region', { name: 'Check result' }).innerText(), /the reply held the expected text/);
      const facts = page.getByRole('region', { name: 'WebSocket' });
      await facts.getByText('Upgraded', { exact: false }).first().waitFor();
      const text = await facts.innerText();
      assert.match(text, /101 Switching Protocols/);
      assert.match(text, /chat\.v1/);
      assert.match(text, /Held the expected text \(13 bytes\)/);
      assert.equal(peer.upgrades.findLast((u) => u.path === '/echo')?.headers.authorization, SECRET);
      await screenshot(page, 'websocket-detail-light-1280');

      // Edited: the hidden value left empty is kept; the expected text changed fails the next check.
      await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
      await page.getByRole('heading', { level: 1, name: 'Edit Echo socket' }).waitFor();
      assert.equal(await field(page, 'Header 1 value').inputValue(), '');
      assert.equal(await field(page, 'Subprotocol').inputValue(), 'chat.v1');
      await field(page, 'Expected text').fill('pong');
      await page.getByRole('button', { name: 'Save changes' }).click();
      assert.equal(await detailId(page), id);
      const edited = (await rpc.getMonitor({ id })).monitor.value as { headers: Record<string, string>; expectText: string };
      assert.deepEqual([edited.headers, edited.expectText], [{ Authorization: '[redacted]' }, 'pong']);
      await checkNow(page);
      assert.match(await page.getByRole('region', { name: 'Check result' }).innerText(), /the reply \(13 bytes\) did not contain the expected text/);
      await page.getByRole('region', { name: 'WebSocket' }).getByText('Unexpected message').waitFor();
      assert.equal(peer.upgrades.findLast((u) => u.path === '/echo')?.headers.authorization, SECRET, 'the kept header is sent as it was');
      assert.deepEqual(violations, []);
    }),
  );

  test('the detail of a server closing with 1008 says so in words, and the form is offered, in light and dark, wide and narrow', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newWorkspace(service, 'ws-ui-close');
      const rpc = monitorRpc(service, (await service.createKey('write', ws.slug)).secret);
      const { monitor } = await rpc.createWebSocketMonitor({
        monitor: { name: 'Policy socket', url: peer.url('/policy'), expectText: 'ready', periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'] },
      });
      await rpc.triggerMonitor({ id: monitor!.id });
      for (const [width, scheme] of [
        [1280, 'light'],
        [1280, 'dark'],
        [390, 'light'],
        [390, 'dark'],
      ] as const) {
        const { context, page } = await openPage(browser, service, { viewport: { width, height: 900 }, colorScheme: scheme });
        await chooseWorkspace(page, { label: ws.slug });
        await page.goto(`${service.dashboardUrl}/monitors/${monitor!.id}`);
        const facts = page.getByRole('region', { name: 'WebSocket' });
        await facts.getByText('Closed by the server', { exact: true }).first().waitFor();
        const text = await facts.innerText();
        assert.match(text, /1008 policy violation/);
        assert.match(text, /token expired/);
        assert.match(text, /None arrived/);
        await screenshot(page, `websocket-detail-closed-${scheme}-${width}`);
        // The form of the type, as it is offered.
        await page.goto(`${service.dashboardUrl}/monitors/new?type=websocket`);
        await field(page, 'Expected text').waitFor();
        await screenshot(page, `websocket-form-${scheme}-${width}`);
        await context.close();
      }
    }),
  );
});
