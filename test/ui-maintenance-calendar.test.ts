// A repeating maintenance window made in the form, in Chromium against the real service: the
// "Repeats" choice makes a weekly window, the list says how it repeats, and the calendar shows
// its occurrences on the right days, moved through with the keyboard; axe passes in both themes
// at 1280 and 390 px (where the calendar is a list of days).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, type StatusdeskClient } from '../client/index.ts';
import { openPage, watchCsp, withBrowser, axeInBothThemes, screenshotsInBothThemes } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 120_000 };

let service: TestService;
let client: StatusdeskClient;
before(async () => {
  service = await startTestService();
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
});
after(async () => service?.stop());

/** The name of the focused day's cell (its visually hidden text), in the page. */
const FOCUSED_DAY = "document.activeElement?.querySelector('.visually-hidden')?.textContent ?? ''";

/** The accessible name of a day's cell, as the calendar writes it. */
const dayName = (d: Date) => d.toLocaleDateString('en-US', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });

describe('the maintenance calendar in Chromium', () => {
  test('a weekly window made in the form shows on its days in the calendar; arrows move the day; axe passes', T, () =>
    withBrowser(async (browser) => {
      const { statusPage } = await client.pages.createStatusPage({ slug: 'calendar-ui', title: 'Calendar UI' });
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.goto(`${service.dashboardUrl}/pages/${statusPage!.id}?tab=maintenance`);
      await page.getByText('No maintenance planned.').waitFor();

      // The form: a weekly window on Mondays and Thursdays at 02:30 UTC, for 90 minutes.
      await page.getByLabel('Title', { exact: true }).fill('Database backups');
      await page.getByLabel('Repeats', { exact: true }).selectOption('weekly');
      await page.getByRole('checkbox', { name: 'Monday', exact: true }).check();
      await page.getByRole('checkbox', { name: 'Thursday', exact: true }).check();
      await page.getByLabel('At', { exact: true }).fill('02:30');
      await page.getByLabel('Lasts (minutes)', { exact: true }).fill('90');
      await page.getByLabel('Time zone', { exact: true }).fill('UTC');
      await page.getByRole('radio', { name: "Don't notify", exact: true }).check();
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      await page.getByText(/Repeats weekly on Monday, Thursday at 02:30 \(UTC\), 90 min each/).waitFor();

      const { maintenances } = await client.maintenances.listMaintenances({ pageId: statusPage!.id });
      assert.equal(maintenances.length, 1);
      assert.deepEqual(
        [maintenances[0]!.repeat?.kind, [...maintenances[0]!.repeat!.days], maintenances[0]!.repeat?.durationMinutes],
        ['weekly', ['mon', 'thu'], 90],
      );

      // The calendar: this month's Mondays and Thursdays (on or after today) each have one window.
      await page.getByRole('button', { name: 'Calendar', exact: true }).click();
      const next = maintenances[0]!.nextOccurrences.map((o) => new Date(o.from));
      const first = next[0]!;
      const firstCell = page.getByRole('button', { name: `${dayName(first)}: 1 maintenance window`, exact: true });
      await firstCell.waitFor();
      await firstCell.click();
      await page.locator('.calendar-selected').getByText('Database backups').waitFor();

      // Keyboard: the chosen day holds the focus; arrows move it a day or a week, Page Down a month.
      await firstCell.focus();
      await page.keyboard.press('ArrowRight');
      const dayAfter = new Date(first.getFullYear(), first.getMonth(), first.getDate() + 1);
      assert.equal(
        await page.evaluate<string | undefined>(FOCUSED_DAY),
        `${dayName(dayAfter)}: ${dayAfter.getDay() === 4 || dayAfter.getDay() === 1 ? '1 maintenance window' : 'no maintenance'}`,
      );
      await page.keyboard.press('ArrowDown');
      const weekLater = new Date(dayAfter.getFullYear(), dayAfter.getMonth(), dayAfter.getDate() + 7);
      await page.waitForFunction(`(${FOCUSED_DAY}).startsWith(${JSON.stringify(dayName(weekLater))})`);
      const month = page.locator('.calendar-head h3');
      const before = await month.textContent();
      await page.keyboard.press('PageDown');
      await page.waitForFunction(`document.querySelector('.calendar-head h3')?.textContent !== ${JSON.stringify(before)}`);
      assert.match((await page.evaluate<string | undefined>(FOCUSED_DAY)) ?? '', /maintenance/);
      await page.getByRole('button', { name: 'Previous month' }).click();
      await page.waitForFunction(`document.querySelector('.calendar-head h3')?.textContent === ${JSON.stringify(before)}`);

      // On a phone the calendar is a list of the month's days with work.
      await page.setViewportSize({ width: 390, height: 860 });
      await page.locator('.calendar-agenda').getByText('Database backups').first().waitFor();
      await page.setViewportSize({ width: 1280, height: 860 });

      await screenshotsInBothThemes(page, 'maintenance-calendar');
      assert.deepEqual(await axeInBothThemes(page), []);
      // The form too, with its Repeats choice open.
      await page.getByRole('button', { name: 'Schedule maintenance' }).click();
      await page.getByLabel('Repeats', { exact: true }).selectOption('weekly');
      await screenshotsInBothThemes(page, 'maintenance-form-repeats');
      assert.deepEqual(await axeInBothThemes(page), []);
      assert.deepEqual(csp, []);
    }),
  );

  test('a bad time zone is shown on its field and nothing is stored', T, () =>
    withBrowser(async (browser) => {
      const { statusPage } = await client.pages.createStatusPage({ slug: 'calendar-refused', title: 'Calendar refused' });
      const { page } = await openPage(browser, service);
      await page.goto(`${service.dashboardUrl}/pages/${statusPage!.id}?tab=maintenance`);
      await page.getByText('No maintenance planned.').waitFor();
      await page.getByLabel('Title', { exact: true }).fill('Refused');
      await page.getByLabel('Repeats', { exact: true }).selectOption('cron');
      await page.getByLabel('Cron expression', { exact: true }).fill('0 2 * * 6');
      await page.getByLabel('Time zone', { exact: true }).fill('Mars/Olympus');
      await page.getByRole('radio', { name: "Don't notify", exact: true }).check();
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      const zone = page.getByLabel('Time zone', { exact: true });
      await page.waitForFunction("document.activeElement?.getAttribute('aria-invalid') === 'true'");
      assert.equal(await zone.getAttribute('aria-invalid'), 'true');
      assert.deepEqual((await client.maintenances.listMaintenances({ pageId: statusPage!.id })).maintenances, []);
    }),
  );
});
