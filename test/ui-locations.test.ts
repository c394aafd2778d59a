// The Locations screen in Chromium against the real service: the embedded runner listed and left
// alone, a refused name beside its field, a location created with its token shown once (copied,
// with the command that starts its runner), renamed, its token rotated and the location deleted,
// each behind its confirmation where it stops a runner.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Code, createClient } from '../client/index.ts';
import { hashSecret } from '../server/domain/secrets.ts';
import { openPage, watchCsp, withBrowser, chooseWorkspace, goToScreen } from './support/browser.ts';
import { queryRows } from './support/database.ts';
import { assertCode, newWorkspace, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 120_000 };
const TOKEN = /^svc_run_[A-Za-z0-9_-]{43}$/;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** The token hash a location has stored. */
const storedHash = async (id: string) =>
  (await queryRows<{ token_hash: string }>(service.dataDir, 'select token_hash from private_locations where id = ?', Number(id)))[0]!.token_hash;

describe('Locations screen', () => {
  test('create shows the token once with the runner command; rename, rotate with confirmation, delete with confirmation', T, async () => {
    const ws = await newWorkspace(service, 'ui-loc');
    const key = (await service.createKey('read', ws.slug)).secret;
    const locations = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} }).privateLocations;
    const name = `office-${randomBytes(3).toString('hex')}`;
    const renamed = `lab-${randomBytes(3).toString('hex')}`;

    await withBrowser(async (browser) => {
      const { context, page } = await openPage(browser, service);
      const violations = watchCsp(page);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.dashboardUrl });
      await chooseWorkspace(page, { label: ws.slug });
      await goToScreen(page, 'Locations');
      await page.getByRole('heading', { level: 1, name: 'Locations' }).waitFor();

      // The embedded runner is listed, without actions; nothing else yet.
      const local = page.getByRole('row', { name: /local \(this machine\)/ });
      await local.waitFor();
      assert.equal(await local.getByRole('button').count(), 0, 'the embedded runner has no actions');
      await page.getByText('No private locations yet.').waitFor();

      // A refused name is said beside its field, and nothing is created.
      await page.getByRole('button', { name: 'New location' }).click();
      const nameField = page.getByRole('textbox', { name: 'Name', exact: true });
      await nameField.fill('iad');
      await page.getByRole('button', { name: 'Create location' }).click();
      await page.getByText(/must not be a region id/).waitFor();
      assert.equal(await nameField.getAttribute('aria-invalid'), 'true');

      // Created: the token once, copied, with the command that starts the runner.
      await nameField.fill(name);
      await page.getByRole('button', { name: 'Add label' }).click();
      await page.getByRole('textbox', { name: 'Label 1 name' }).fill('network');
      await page.getByRole('textbox', { name: 'Label 1 value' }).fill('office');
      await page.getByRole('button', { name: 'Create location' }).click();
      await page.getByRole('heading', { name: `Location “${name}” created` }).waitFor();
      const token = await page.getByRole('textbox', { name: 'Runner token' }).inputValue();
      assert.match(token, TOKEN);
      await page.getByText(`statusdesk runner --api-url ${service.apiUrl} --token ${token}`).waitFor();
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), token);
      const [created] = (await locations.listPrivateLocations({})).privateLocations.filter((l) => l.name === name);
      assert.ok(created, 'the location is stored');
      assert.equal(await storedHash(created.id), hashSecret(token));
      await page.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.getByRole('textbox', { name: 'Runner token' }).count(), 0, 'the token is shown only once');
      assert.deepEqual({ ...created.metadata }, { network: 'office' });
      const row = page.getByRole('row', { name: new RegExp(`^${name}`) });
      await row.getByText('Never connected').waitFor();
      await row.getByText('network: office').waitFor();

      // Renamed.
      await page.getByRole('button', { name: `Edit ${name}` }).click();
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(renamed);
      await page.getByRole('button', { name: 'Save location' }).click();
      await page.getByRole('row', { name: new RegExp(`^${renamed}`) }).waitFor();
      assert.equal((await locations.getPrivateLocation({ id: created.id })).privateLocation!.name, renamed);

      // Rotating asks first; cancelled, the token is kept.
      await page.getByRole('button', { name: `Rotate token of ${renamed}` }).click();
      const rotateDialog = page.getByRole('dialog', { name: `Rotate the token of “${renamed}”?` });
      await rotateDialog.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await storedHash(created.id), hashSecret(token));
      await page.getByRole('button', { name: `Rotate token of ${renamed}` }).click();
      await rotateDialog.getByRole('button', { name: 'Rotate token' }).click();
      await page.getByRole('heading', { name: `New token of “${renamed}”` }).waitFor();
      const rotated = await page.getByRole('textbox', { name: 'Runner token' }).inputValue();
      assert.match(rotated, TOKEN);
      assert.notEqual(rotated, token);
      assert.equal(await storedHash(created.id), hashSecret(rotated));
      await page.getByRole('button', { name: 'Done' }).click();

      // Deleting asks first.
      await page.getByRole('button', { name: `Delete ${renamed}` }).click();
      await page
        .getByRole('dialog', { name: `Delete the location “${renamed}”?` })
        .getByRole('button', { name: 'Delete location' })
        .click();
      await page.getByText('No private locations yet.').waitFor();
      await assertCode(locations.getPrivateLocation({ id: created.id }), Code.NotFound);
      assert.deepEqual(violations, []);
      await context.close();
    });
  });
});
