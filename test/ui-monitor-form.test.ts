// Creating and editing monitors in Chromium against the real service: the form driven by the
// names of its controls, and what the service stored read back through the RPC with a key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { durationMs } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { Browser, Page } from 'playwright-core';
import { HTTPMethod, type MonitorService, NumberComparator, Periodicity, StringComparator } from '../proto/gen/monitor/v1/monitor_pb.js';
import { queryRows, withLocalOwner } from './support/database.ts';
import { focusReaches, openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { startTcpListener } from './support/grpc-peers.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startHttpReceiver } from './support/receivers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

type Monitors = Client<typeof MonitorService>;

interface TestWorkspace {
  id: string;
  name: string;
  rpc: Monitors;
}

/** A workspace of its own for each test, and its write key's RPC client. */
async function newTestWorkspace(): Promise<TestWorkspace> {
  const ws = await newWorkspace(service, 'mf');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, name: ws.slug, rpc: monitorRpc(service, secret) };
}

/** Moves a workspace to another plan, as a change of plan outside the dashboard does. */
async function setPlan(ws: TestWorkspace, plan: string): Promise<void> {
  await queryRows(service.dataDir, 'update workspaces set plan = ? where id = ?', plan, Number(ws.id));
}

/** Signed in, with `ws` chosen, on `path`. */
async function open(browser: Browser, ws: TestWorkspace, path: string, viewport = { width: 1280, height: 800 }) {
  const { context, page } = await openPage(browser, service, { viewport });
  const violations = watchCsp(page);
  // Signed in once the frame shows the workspace switcher, whatever the first screen draws.
  await chooseWorkspace(page, { label: ws.name });
  await page.goto(`${service.dashboardUrl}${path}`);
  return { context, page, violations };
}

/** The form's field of this exact label. */
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

/** The text of the elements a control's aria-describedby names. */
async function description(page: Page, label: string): Promise<string> {
  const ids = (await field(page, label).getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(
    ids
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).innerText()),
  );
  return texts.join(' | ');
}

/** The accessible name of the focused element, as its label gives it. */
const focusedLabel = (page: Page) => page.evaluate<string>('document.activeElement?.labels?.[0]?.textContent ?? ""');

/** Waits for the address of a monitor's detail screen and gives its id. */
async function detailId(page: Page): Promise<string> {
  await page.waitForURL(/\/monitors\/\d+$/);
  return /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;
}

async function monitorOf(ws: TestWorkspace, id: string) {
  return (await ws.rpc.getMonitor({ id })).monitor;
}

describe('the monitor form in Chromium', () => {
  test(
    "a gRPC monitor checked from a private location alone: the form offers the workspace's locations, not the embedded runner, and the detail names the location",
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const [location] = (await queryRows<{ id: number; name: string }>(
          service.dataDir,
          "insert into private_locations (name, status, metadata, regions, created_at, workspace_id) values (?, 'active', '{}', null, ?, ?) returning id, name",
          `office-${ws.id}`,
          new Date().toISOString(),
          Number(ws.id),
        )) as [{ id: number; name: string }];
        const { page, violations } = await open(browser, ws, '/monitors/new?type=grpc');
        await field(page, 'Name').fill('Office API');
        await field(page, 'Host').fill('api.office.internal');
        await field(page, 'Port').fill('50051');
        await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '1 minute' }).check();
        const locations = page.getByRole('group', { name: 'Private locations' });
        assert.deepEqual(await locations.locator('label').allInnerTexts(), [location.name], 'the embedded runner serves the regions: it is not offered');
        await locations.getByRole('checkbox', { name: location.name }).check();
        await page.getByRole('button', { name: 'Create monitor' }).click();

        const id = await detailId(page);
        const stored = (await monitorOf(ws, id)).value!;
        assert.deepEqual([stored.regions, stored.privateLocations], [[], [String(location.id)]]);
        await page.getByRole('table').filter({ hasText: location.name }).first().waitFor();
        assert.match(await page.locator('.detail-facts').innerText(), new RegExp(`from ${location.name}`));
        assert.deepEqual(violations, []);
      }),
  );

  test(
    'a TCP monitor typed into the form is created as typed, lands on its detail page, shows up with a chart, and turns down without a reload when its listener closes',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const target = await startTcpListener('127.0.0.1');
        let closed = false;
        try {
          const { page, violations } = await open(browser, ws, '/monitors/new?type=tcp');
          await page.getByRole('heading', { name: 'New monitor' }).waitFor();
          assert.equal(await page.getByRole('radio', { name: 'TCP' }).isChecked(), true, '?type=tcp preselects TCP');

          await field(page, 'Name').fill('Loopback database');
          await field(page, 'Description').fill('The database on this machine');
          await field(page, 'Tags').fill('db');
          await field(page, 'Tags').press('Enter');
          await field(page, 'Tags').fill('local');
          await field(page, 'Tags').press('Enter');
          await field(page, 'Host').fill('127.0.0.1');
          await field(page, 'Port').fill(String(target.port));
          await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '1 minute' }).check();
          const regions = page.getByRole('group', { name: 'Regions' });
          assert.match(await regions.innerText(), /none picked.*iad, ams, sin, syd, fra, gru/i, 'TCP says which regions it gets with none picked');
          await regions.getByRole('checkbox', { name: 'iad' }).check();
          await regions.getByRole('checkbox', { name: 'fra' }).check();
          await field(page, 'Timeout (seconds)').fill('5');
          await field(page, 'Degraded after (milliseconds)').fill('250');
          await field(page, 'Retries').fill('1');
          await page.getByRole('button', { name: 'Create monitor' }).click();

          const id = await detailId(page);
          await page.getByRole('heading', { level: 1, name: 'Loopback database' }).waitFor();

          const stored = await monitorOf(ws, id);
          assert.equal(stored.case, 'tcpMonitor');
          const m = stored.value!;
          assert.deepEqual(
            {
              name: m.name,
              description: m.description,
              tags: m.tags,
              uri: m.uri,
              periodicity: m.periodicity,
              regions: m.regions,
              timeout: durationMs(m.timeout!),
              degraded: durationMs(m.degraded!),
              retry: m.retry,
              active: m.active,
              openTelemetry: m.openTelemetry,
            },
            {
              name: 'Loopback database',
              description: 'The database on this machine',
              tags: ['db', 'local'],
              uri: `127.0.0.1:${target.port}`,
              periodicity: Periodicity.PERIODICITY_1M,
              regions: ['iad', 'fra'],
              timeout: 5000,
              degraded: 250,
              retry: 1,
              active: true,
              openTelemetry: undefined,
            },
          );
          // The stored target is the listener: a check connects to it.
          const { results } = await ws.rpc.triggerMonitor({ id });
          assert.ok(results.length > 0 && results.every((r) => r.result === 'up' || r.result === 'degraded'), JSON.stringify(results.map((r) => r.message)));
          assert.ok(target.connections > 0, 'the check connected to the listener');

          // On its page, Check now shows it up, with a chart; when the listener closes, a check
          // turns the page to Down by itself: no reload (the page keeps a mark of its own).
          await page.getByRole('button', { name: 'Check now' }).click();
          await page
            .locator('.detail-state')
            .getByText(/^(Up|Degraded)$/)
            .waitFor();
          // Minutes old: charted since it was created.
          await page.getByRole('img', { name: /^Since the monitor was created: p50 typically/ }).waitFor();
          await page.evaluate('window.__sameDocument = true');
          await target.close();
          closed = true;
          const [checked] = (await ws.rpc.triggerMonitor({ id })).results;
          assert.equal(checked?.result, 'down');
          await page.locator('.detail-state').getByText('Down', { exact: true }).waitFor();
          assert.equal(await page.evaluate('window.__sameDocument'), true, 'the page was not reloaded');
          assert.equal(new URL(page.url()).pathname, `/monitors/${id}`);
          assert.deepEqual(violations, []);
        } finally {
          if (!closed) await target.close();
        }
      }),
  );

  test("a gRPC monitor with a bad port or a scheme shows the service's message beside that field, keeps what was typed, and stores nothing", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page } = await open(browser, ws, '/monitors/new');
      await page.getByRole('heading', { name: 'New monitor' }).waitFor();
      await page.getByRole('radio', { name: 'gRPC' }).check();
      await page.waitForURL(/\?type=grpc$/);

      await field(page, 'Name').fill('Health of the API');
      await field(page, 'Host').fill('127.0.0.1');
      await field(page, 'Port').fill('70000');
      await field(page, 'Service name').fill('my.pkg.Api');
      await page.getByRole('group', { name: 'TLS' }).getByRole('radio', { name: 'plaintext' }).check();
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '5 minutes' }).check();
      await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
      await page.getByRole('button', { name: 'Create monitor' }).click();

      const port = field(page, 'Port');
      await page.locator('[aria-invalid="true"]').first().waitFor();
      assert.equal(await port.getAttribute('aria-invalid'), 'true');
      assert.match(await description(page, 'Port'), /the port must be a number from 1 to 65535, got "70000"/);
      assert.equal(await field(page, 'Host').getAttribute('aria-invalid'), null, 'the host is not blamed for the port');
      assert.equal(await focusedLabel(page), 'Port', 'the first field named takes the focus');
      assert.match(await page.getByRole('alert').first().innerText(), /One field needs a change/);
      assert.equal(await field(page, 'Name').inputValue(), 'Health of the API', 'what was typed stays');
      assert.equal(await field(page, 'Service name').inputValue(), 'my.pkg.Api');
      assert.equal(new URL(page.url()).pathname, '/monitors/new');

      // A scheme in the host is the host's fault.
      await field(page, 'Host').fill('grpc://127.0.0.1');
      await port.fill('50051');
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await focusReaches(field(page, 'Host'));
      assert.equal(await field(page, 'Host').getAttribute('aria-invalid'), 'true');
      assert.match(await description(page, 'Host'), /must be host:port without a scheme: drop "grpc:\/\/"/);
      assert.equal(await port.getAttribute('aria-invalid'), null);

      assert.equal((await ws.rpc.listMonitors({})).totalSize, 0, 'nothing was stored');
    }),
  );

  test('on the hobby plan only 10m, 30m and 1h are offered, and the TCP default regions are its four; the form fits 420px', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      await setPlan(ws, 'hobby');
      const { page } = await open(browser, ws, '/monitors/new?type=tcp', { width: 420, height: 800 });
      const frequency = page.getByRole('group', { name: 'Frequency' });
      await frequency.getByRole('radio').first().waitFor();
      const offered = await frequency.locator('label').allInnerTexts();
      assert.deepEqual(offered, ['10 minutes', '30 minutes', '1 hour']);
      assert.match(await page.getByRole('group', { name: 'Regions' }).innerText(), /none picked.*iad, ams, sin, syd\./i);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 420, `the page scrolls sideways at 420px: ${width}px wide`);

      // The same on a paid plan offers all six.
      await setPlan(ws, 'scale');
      await page.reload();
      await frequency.getByRole('radio').first().waitFor();
      assert.equal(await frequency.getByRole('radio').count(), 6);
    }),
  );

  test("editing a monitor's name saves that change only, and Cancel returns to its detail screen", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { monitor } = await ws.rpc.createTCPMonitor({
        monitor: {
          name: 'Old name',
          uri: '127.0.0.1:5432',
          periodicity: Periodicity.PERIODICITY_10M,
          regions: ['ams'],
          tags: ['keep'],
          openTelemetry: { endpoint: 'http://127.0.0.1:4318/v1/metrics', headers: { authorization: 'Bearer otlp-secret' } },
        },
      });
      const id = monitor!.id;
      const { page } = await open(browser, ws, `/monitors/${id}/edit`);
      await page.getByRole('heading', { level: 1, name: 'Edit Old name' }).waitFor();
      assert.equal(await page.getByRole('radio', { name: 'TCP' }).count(), 0, 'the type is fixed');
      assert.equal(await field(page, 'Host').inputValue(), '127.0.0.1');
      assert.equal(await field(page, 'Port').inputValue(), '5432');
      assert.equal(await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).isChecked(), true);
      assert.equal(await field(page, 'OTLP header 1 value').inputValue(), '', 'a hidden value is not shown');

      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.waitForURL(new RegExp(`/monitors/${id}$`));
      await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);

      const sent: unknown[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/monitor.v1.MonitorService/UpdateTCPMonitor')) sent.push(request.postDataJSON());
      });
      await field(page, 'Name').fill('New name');
      await page.getByRole('button', { name: 'Save changes' }).click();
      assert.equal(await detailId(page), id);
      assert.deepEqual(sent, [{ id, monitor: { name: 'New name' }, updateMask: 'name' }], 'only the changed field is sent, and named in the mask');
      await page.getByRole('heading', { level: 1, name: 'New name' }).waitFor();

      const stored = (await monitorOf(ws, id)).value as { name: string; uri: string; tags: string[]; regions: string[] };
      assert.deepEqual([stored.name, stored.uri, stored.tags, stored.regions], ['New name', '127.0.0.1:5432', ['keep'], ['ams']]);
      // The audit entry of the change names the name alone: the hidden OTLP header kept its value.
      const entries = await withLocalOwner(service.dataDir, (services, owner) =>
        services.auditLog.list(owner, Number(ws.id), { entityType: 'monitor', entityId: id }),
      );
      const update = entries.auditLogs.find((e) => e.action === 'monitor.update');
      assert.ok(update, 'the change is audited');
      assert.deepEqual(update.changedFields, ['name']);
    }),
  );

  test('an HTTP monitor with headers, a body and assertions round-trips: stored as typed, prefilled, and a hidden header kept on save', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const receiver = await startHttpReceiver();
      try {
        const { page, violations } = await open(browser, ws, '/monitors/new?type=http');
        await field(page, 'Name').fill('Loopback web');
        await field(page, 'Method').selectOption('POST');
        await field(page, 'URL').fill(`${receiver.url}/health`);
        await page.getByRole('button', { name: 'Add header', exact: true }).click();
        await field(page, 'Header 1 name').fill('Authorization');
        await field(page, 'Header 1 value').fill('Bearer s3cret');
        await page.getByRole('button', { name: 'Add header', exact: true }).click();
        await field(page, 'Header 2 name').fill('X-Probe');
        await field(page, 'Header 2 value').fill('form');
        await field(page, 'Request body').fill('{"ping":true}');
        await page.getByRole('button', { name: 'Add status code assertion' }).click();
        await field(page, 'Status code assertion 1 comparator').selectOption({ label: 'equal to' });
        await field(page, 'Status code assertion 1 target').fill('200');
        await page.getByRole('button', { name: 'Add header assertion' }).click();
        await field(page, 'Header assertion 1 name').fill('content-type');
        await field(page, 'Header assertion 1 comparator').selectOption({ label: 'contains' });
        await field(page, 'Header assertion 1 target').fill('text/plain');
        await page.getByRole('button', { name: 'Add body assertion' }).click();
        await field(page, 'Body assertion 1 comparator').selectOption({ label: 'equal to' });
        await field(page, 'Body assertion 1 target').fill('ok');
        await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '30 minutes' }).check();
        await page.getByRole('button', { name: 'Create monitor' }).click();
        const id = await detailId(page);

        const created = await monitorOf(ws, id);
        assert.equal(created.case, 'httpMonitor');
        const h = created.value!;
        assert.deepEqual(
          {
            url: h.url,
            method: h.method,
            headers: h.headers,
            body: h.body,
            status: h.statusCodeAssertions.map((a) => [a.comparator, a.target]),
            header: h.headerAssertions.map((a) => [a.key, a.comparator, a.target]),
            bodyAssertions: h.bodyAssertions.map((a) => [a.comparator, a.target]),
            periodicity: h.periodicity,
            followRedirects: h.followRedirects,
          },
          {
            url: `${receiver.url}/health`,
            method: HTTPMethod.HTTP_METHOD_POST,
            headers: { Authorization: '[redacted]', 'X-Probe': 'form' },
            body: '{"ping":true}',
            status: [[NumberComparator.EQUAL, 200]],
            header: [['content-type', StringComparator.CONTAINS, 'text/plain']],
            bodyAssertions: [[StringComparator.EQUAL, 'ok']],
            periodicity: Periodicity.PERIODICITY_30M,
            followRedirects: true,
          },
        );

        // Prefilled for editing: the credential hidden, the rest as stored.
        await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
        await page.getByRole('heading', { level: 1, name: 'Edit Loopback web' }).waitFor();
        assert.equal(await field(page, 'Method').inputValue(), 'POST');
        assert.equal(await field(page, 'Header 1 name').inputValue(), 'Authorization');
        assert.equal(await field(page, 'Header 1 value').inputValue(), '');
        assert.equal(await field(page, 'Header 2 value').inputValue(), 'form');
        assert.equal(await field(page, 'Status code assertion 1 target').inputValue(), '200');
        assert.equal(await field(page, 'Header assertion 1 target').inputValue(), 'text/plain');
        assert.equal(await field(page, 'Body assertion 1 target').inputValue(), 'ok');

        await field(page, 'Header 2 value').fill('edited');
        await page.getByRole('button', { name: 'Save changes' }).click();
        assert.equal(await detailId(page), id);
        const edited = (await monitorOf(ws, id)).value as { headers: Record<string, string> };
        assert.deepEqual(edited.headers, { Authorization: '[redacted]', 'X-Probe': 'edited' });

        // The check sends the credential as it was first typed, and the assertions hold.
        const { results } = await ws.rpc.triggerMonitor({ id });
        const [request] = await receiver.waitFor(1, 10_000);
        assert.deepEqual(
          [request!.method, request!.path, request!.headers.authorization, request!.headers['x-probe'], request!.body],
          ['POST', '/health', 'Bearer s3cret', 'edited', '{"ping":true}'],
        );
        assert.ok(results.length > 0);
        for (const result of results) {
          assert.equal(result.result, 'up', result.message);
          assert.deepEqual(
            result.assertionResults.map((a) => a.passed),
            [true, true, true],
          );
        }
        assert.deepEqual(violations, []);
      } finally {
        await receiver.close();
      }
    }),
  );
});
