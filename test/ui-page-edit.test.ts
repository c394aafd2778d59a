// A status page's settings after its creation, in Chromium against the real service: its title
// and slug edited on the page's screen (the old address forwarding), a refusal shown at the field
// it names with nothing stored, and its branding (accent colour, link back, logo) chosen, shown in
// the form's preview and on the public page. The settings pass axe in both themes at both widths.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient, type StatusdeskClient } from '../client/index.ts';
import { axeViolations, focusReaches, openPage, screenshot, watchCsp, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let service: TestService;
let client: StatusdeskClient;

before(async () => {
  service = await startTestService();
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
});
after(async () => {
  await service?.stop();
});

async function seedPage(): Promise<{ id: string; slug: string }> {
  const slug = `edit-${randomBytes(4).toString('hex')}`;
  const { statusPage } = await client.pages.createStatusPage({ slug, title: 'Acme status', description: 'Before' });
  return { id: statusPage!.id, slug };
}

describe('a status page’s settings in Chromium', () => {
  test('the title and slug are edited on the page’s screen; the old address forwards; a bad slug is refused at its field', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { id, slug } = await seedPage();
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await page.goto(`${service.dashboardUrl}/pages/${id}`);
      await page.getByRole('tab', { name: 'Settings' }).click();
      const title = page.getByLabel('Title', { exact: true });
      const slugField = page.getByLabel('Slug', { exact: true });
      assert.equal(await title.inputValue(), 'Acme status');

      // Refused: the message stands at the field, the focus goes there, and nothing is stored.
      await title.fill('Not saved');
      await slugField.fill('Not A Slug');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await focusReaches(slugField);
      assert.match((await slugField.getAttribute('aria-invalid')) ?? '', /true/);
      assert.match(await page.locator('.field-invalid').innerText(), /lower-case letters, digits or hyphens/);
      assert.equal((await client.pages.getStatusPage({ page: id })).statusPage!.title, 'Acme status');

      const newSlug = `${slug}-new`;
      await slugField.fill(newSlug);
      // Before saving, the form says what becomes of the old address.
      assert.match(await page.getByText(/forwards to the new address/).innerText(), new RegExp(`/status/${slug} forwards`));
      await title.fill('Acme, Inc. status');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('heading', { level: 1, name: 'Acme, Inc. status' }).waitFor();
      const stored = (await client.pages.getStatusPage({ page: id })).statusPage!;
      assert.deepEqual([stored.title, stored.slug, stored.description], ['Acme, Inc. status', newSlug, 'Before']);
      assert.equal((await service.api(`/status/${slug}`, { redirect: 'manual' })).headers.get('location'), `/status/${newSlug}`);
      assert.deepEqual(csp, []);
    }),
  );

  test('branding: a colour, a link and a logo are chosen, previewed and shown on the public page; an SVG is refused before sending', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { id, slug } = await seedPage();
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await page.goto(`${service.dashboardUrl}/pages/${id}?tab=settings`);
      const logo = page.getByLabel('Logo (optional)');
      await logo.setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
      await page.getByText(/logo\.svg is not a PNG, JPEG, WebP or GIF image/).waitFor();

      await page.getByLabel('Accent colour (optional)').fill('#ffd700');
      await page.getByText(/Its text will be black, at 15\.0:1/).waitFor();
      await page.getByLabel('Link to your site (optional)').fill('https://www.acme.example/');
      await logo.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
      const preview = page.getByTestId('brand-preview');
      await preview.getByText('Back to acme.example').waitFor();
      assert.equal(await preview.locator('img').count(), 1);
      await page.getByRole('button', { name: 'Save settings' }).click();
      const stored = await eventually(
        async () => (await client.pages.getStatusPage({ page: id })).statusPage!,
        (p) => p.accentColor !== undefined,
        'the branding is saved',
        15_000,
        200,
      );
      assert.deepEqual([stored.accentColor, stored.websiteUrl, stored.logoType], ['#ffd700', 'https://www.acme.example/', 'image/png']);
      const html = await (await service.api(`/status/${slug}`)).text();
      assert.match(html, /\.brand\{background:#ffd700;color:#000000\}/);
      assert.match(html, /Back to acme\.example/);

      // The preview shows the band as the public page draws it.
      await page.getByRole('tab', { name: 'Preview' }).click();
      await page.getByTestId('brand-preview').getByText('Back to acme.example').waitFor();
      await page.getByRole('tab', { name: 'Settings' }).click();

      // A bad domain is refused by the service, named at its field.
      await page.getByLabel('Domain (optional)').fill('127.0.0.1');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await focusReaches(page.getByLabel('Domain (optional)'));
      await page
        .getByText(/must be a DNS name such as status\.example\.com, not an IP address/)
        .first()
        .waitFor();

      await page.getByLabel('Domain (optional)').fill('');
      for (const theme of ['light', 'dark'] as const) {
        for (const width of [1280, 390]) {
          await page.emulateMedia({ colorScheme: theme });
          await page.setViewportSize({ width, height: 900 });
          await screenshot(page, `page-settings-${theme}-${width}`);
          assert.deepEqual(await axeViolations(page), [], `axe in the ${theme} theme at ${width} px`);
        }
      }
      // The public page with its band, for the eye.
      const visitor = await browser.newPage();
      await visitor.goto(`${service.apiUrl}/status/${slug}`);
      await screenshot(visitor, 'public-page-branded');
      assert.deepEqual(await axeViolations(visitor), [], 'axe on the branded public page');
      await visitor.close();
      assert.deepEqual(csp, []);
    }),
  );
});
