// The monitor pickers of a channel and of a status page's component, in Chromium against the real
// service, in a workspace of 1,500 monitors: the service searches them all, the picker says how
// many it shows of how many, the oldest monitor is found, chosen and saved, and the edit form
// shows it chosen though no search shows it.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { Actor } from '../server/domain/actor.ts';
import type { AppError } from '../server/errors.ts';
import { axeViolations, openPage, watchCsp, withBrowser, chooseWorkspace, goToScreen } from './support/browser.ts';
import { withLocalOwner } from './support/database.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const T = { timeout: 240_000 };
const MONITORS = 1_500;
/** The first monitor made: the oldest, last by name, so no first page of any order shows it. */
const OLDEST = 'Zeta legacy billing';
/** Where screenshots go, when asked for: light and dark, wide and phone-sized. */
const SHOTS_DIR = process.env.SHOTS_DIR;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

interface Seeded {
  slug: string;
  workspaceId: number;
  oldestId: string;
  newestId: string;
}

let seeding: Promise<Seeded> | undefined;
/**
 * A workspace of 1,500 TCP monitors, made once through the monitor service in this process (no
 * API round trip each) and checked by nobody (the test service's checks are off). The tests only
 * read its monitors: each makes the channel or the page it changes.
 */
const seed = () => (seeding ??= makeMonitors());

async function makeMonitors(): Promise<Seeded> {
  const ws = await newWorkspace(service, 'picker');
  return withLocalOwner(service.dataDir, async (services, owner: Actor) => {
    const workspaceId = Number(ws.id);
    const made: string[] = [];
    for (let i = 1; i <= MONITORS; i++) {
      const name = i === 1 ? OLDEST : `Service ${String(i).padStart(4, '0')}`;
      const monitor = await services.monitors.create(owner, workspaceId, 'tcp', { name, uri: `db-${i}.internal:5432`, periodicity: '10m', regions: ['iad'] });
      made.push(monitor.id);
    }
    return { slug: ws.slug, workspaceId, oldestId: made[0]!, newestId: made.at(-1)! };
  });
}

const pickerOf = (scope: Page | Locator, legend: string) => scope.getByRole('group', { name: legend, exact: true });

/** Searches a picker, and waits until its status says what the search found. */
async function search(picker: Locator, text: string, found: RegExp): Promise<void> {
  await picker.getByLabel('Search monitors').fill(text);
  await picker.getByRole('status').filter({ hasText: found }).waitFor();
}

/** axe finds nothing in either theme, wide or phone-sized; with SHOTS_DIR, each view is kept as a screenshot too. */
async function checkViews(page: Page, name: string): Promise<void> {
  if (SHOTS_DIR) await mkdir(SHOTS_DIR, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await axeViolations(page), [], `${name}, ${theme}, ${width} px`);
      if (SHOTS_DIR) await page.screenshot({ path: `${SHOTS_DIR}/${name}-${theme}-${width}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe('monitor pickers in a workspace of 1,500 monitors', () => {
  test("the overview's ids: the chosen monitors by id, whatever their age; a bad list is refused, naming the field", T, async () => {
    const seeded = await seed();
    await withLocalOwner(service.dataDir, async (services, owner) => {
      const overview = (query: Record<string, unknown>) => services.monitorViews.overview(owner, seeded.workspaceId, query);
      const chosen = await overview({ ids: `${seeded.newestId},${seeded.oldestId},999999999` });
      assert.deepEqual(chosen.monitors.map((m) => m.name).sort(), ['Service 1500', OLDEST]);
      assert.equal(chosen.total, 2, 'an id of no monitor of the workspace matches nothing');
      assert.equal((await overview({ ids: '' })).total, 0);
      await assert.rejects(overview({ ids: '12,x' }), (error: AppError) => error.violations[0]?.field === 'ids');
      await assert.rejects(overview({ ids: Array.from({ length: 201 }, (_, i) => i + 1).join(',') }), /ids: must name at most 200 monitors/);
    });
  });

  test('a channel: the oldest monitor is found by the search, chosen, saved, and shown chosen in the edit form', T, async () => {
    const seeded = await seed();
    const channel = await withLocalOwner(service.dataDir, (services, owner) =>
      services.channels.create(owner, seeded.workspaceId, { name: 'Desk', kind: 'desktop', monitorIds: [seeded.newestId] }),
    );
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await chooseWorkspace(page, { label: seeded.slug });
      await goToScreen(page, 'Notifications');
      await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
      await page.getByRole('button', { name: 'Edit Desk' }).click();
      const form = page.getByRole('region', { name: 'Edit Desk' });
      const picker = pickerOf(form, 'Monitors');

      // Without a search: the first 50 of all 1,500, said so; the chosen one shown apart, ticked.
      await picker.getByRole('status').filter({ hasText: 'Showing 50 of 1,500 monitors: refine the search to find the others.' }).waitFor();
      await picker.getByText('1 of 1,500 chosen: their alerts go to this channel.').waitFor();
      assert.equal(await picker.getByRole('checkbox', { name: 'Service 1500', exact: true }).isChecked(), true, 'the chosen one is shown, ticked');
      assert.equal(await picker.getByRole('checkbox', { name: OLDEST, exact: true }).count(), 0, 'the oldest is on no first page');

      // The service searches the whole workspace: the 1,500th monitor is found, and ticked.
      await search(picker, 'legacy', /^1 monitor matches “legacy”\.$/);
      await picker.getByRole('checkbox', { name: OLDEST, exact: true }).check();
      await picker.getByText('2 of 1,500 chosen: their alerts go to this channel.').waitFor();
      await form.getByRole('button', { name: 'Save channel' }).click();
      await form.waitFor({ state: 'detached' });
      const stored = await withLocalOwner(service.dataDir, (services, owner) => services.channels.get(owner, seeded.workspaceId, channel.id));
      assert.deepEqual([...stored.monitorIds].sort(), [seeded.oldestId, seeded.newestId].sort());

      // Opened again: both chosen, though neither is on the first page of the list.
      await page.getByRole('button', { name: 'Edit Desk' }).click();
      const again = pickerOf(page.getByRole('region', { name: 'Edit Desk' }), 'Monitors');
      await again.getByText('2 of 1,500 chosen: their alerts go to this channel.').waitFor();
      const chosen = again.getByRole('list', { name: 'Chosen, not in the list below' });
      await chosen.getByRole('checkbox', { name: OLDEST, exact: true }).waitFor();
      assert.equal(await chosen.getByRole('checkbox', { name: OLDEST, exact: true }).isChecked(), true);
      assert.equal(await chosen.getByRole('checkbox', { name: 'Service 1500', exact: true }).isChecked(), true);
      await checkViews(page, 'channel-picker-edit');
      // A search that finds nothing says so, and the chosen ones stay shown.
      await search(again, 'no such monitor', /No monitor's name, target or tag holds/);
      assert.equal(await chosen.getByRole('checkbox').count(), 2);
      assert.deepEqual(csp, []);
    });
  });

  test('a status page component: the oldest monitor is found, followed, and shown chosen in the edit form', T, async () => {
    const seeded = await seed();
    const statusPage = await withLocalOwner(service.dataDir, (services, owner) =>
      services.pages.create(owner, seeded.workspaceId, { slug: `${seeded.slug}-status`, title: 'Picker status' }),
    );
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await chooseWorkspace(page, { label: seeded.slug });
      await page.goto(`${service.dashboardUrl}/pages/${statusPage.id}?tab=components`);
      await page.getByRole('tab', { name: 'Components', selected: true }).waitFor();

      await page.getByLabel('Name', { exact: true }).fill('Billing');
      const picker = pickerOf(page, 'Monitor');
      await picker.getByRole('status').filter({ hasText: 'Showing 50 of 1,500 monitors' }).waitFor();
      assert.equal(await picker.getByRole('radio', { name: 'None: a static component', exact: true }).isChecked(), true);
      await search(picker, 'zeta', /^1 monitor matches “zeta”\.$/);
      await picker.getByRole('radio', { name: OLDEST, exact: true }).check();
      await page.getByRole('button', { name: 'Add component' }).click();
      await page.getByText(`Follows ${OLDEST}`).waitFor();
      const [component] = await withLocalOwner(service.dataDir, (services, owner) => services.pages.listComponents(owner, seeded.workspaceId, statusPage.id));
      assert.equal(component?.monitorId, seeded.oldestId);

      // The edit form shows it chosen, apart from a first page that does not hold it.
      await page.getByRole('button', { name: 'Edit Billing' }).click();
      const edit = pickerOf(page.getByRole('group', { name: 'Edit Billing' }), 'Monitor');
      const chosen = edit.getByRole('list', { name: 'Chosen' });
      await chosen.getByRole('radio', { name: OLDEST, exact: true }).waitFor();
      assert.equal(await chosen.getByRole('radio', { name: OLDEST, exact: true }).isChecked(), true);
      await edit.getByRole('status').filter({ hasText: 'Showing 50 of 1,500 monitors' }).waitFor();
      assert.equal(await edit.getByRole('radio', { name: 'None: a static component', exact: true }).isChecked(), false);
      await checkViews(page, 'component-picker-edit');

      // Back to none: saved as a static component.
      await edit.getByRole('radio', { name: 'None: a static component', exact: true }).check();
      await page.getByRole('button', { name: 'Save component' }).click();
      await page.getByText('Static: shows what reports and maintenance say').waitFor();
      await eventually(
        () => withLocalOwner(service.dataDir, (services, owner) => services.pages.listComponents(owner, seeded.workspaceId, statusPage.id)),
        ([c]) => c?.monitorId === undefined || c?.monitorId === null,
        'the component follows no monitor',
      );
      assert.deepEqual(csp, []);
    });
  });
});
