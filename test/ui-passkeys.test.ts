// Passkeys in Chromium against the real service, with Chromium's virtual authenticator (a
// platform authenticator that keeps its passkeys and verifies the person): the owner adds one on
// Your account, signs out and back in with it from the sign-in screen, sees both sessions and signs
// the other out; a sign-in answer sent twice and a removed passkey are refused, and the screens
// are clean for axe in both themes at both widths.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DASHBOARD_ANSWERS, type JsonEndpoint } from '../contract/dashboard-api.ts';
import { axeInBothThemes, goToScreen, openPage, screenshot, screenshotsInBothThemes, watchCsp, withBrowser } from './support/browser.ts';
import { queryRows } from './support/database.ts';
import { startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 120_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** Gives the page a virtual authenticator of its own: it makes passkeys the page can sign in with, verifying the person. */
async function addAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

/**
 * The answers the page gets to the calls that carry an authenticator's signed answer, and to
 * removing a passkey: parsed at the end with the contract's schemas (dashboard-contract.test.ts
 * leaves these three to this test).
 */
function answersOf(page: Page): { check(): Promise<void> } {
  const calls: Record<string, JsonEndpoint> = { 'POST /api/passkeys': 'addPasskey', 'POST /signin/passkey': 'signInPasskey' };
  const seen: Promise<[JsonEndpoint, unknown]>[] = [];
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    const endpoint = /^\/api\/passkeys\/[^/]+\/remove$/.test(path) ? 'removePasskey' : calls[`${response.request().method()} ${path}`];
    if (endpoint && response.ok()) seen.push(response.json().then((body) => [endpoint, body]));
  });
  return {
    async check() {
      const answers = await Promise.all(seen);
      assert.deepEqual([...new Set(answers.map(([endpoint]) => endpoint))].sort(), ['addPasskey', 'removePasskey', 'signInPasskey']);
      for (const [endpoint, body] of answers) {
        const parsed = DASHBOARD_ANSWERS[endpoint].safeParse(body);
        assert.ok(parsed.success, `${endpoint} does not answer what the contract declares: ${parsed.error?.message}`);
      }
    },
  };
}

const pathOf = (page: Page) => new URL(page.url()).pathname;
const sessionRows = (page: Page) => page.getByRole('region', { name: 'Sessions' }).locator('tbody tr');
const passkeyRows = (page: Page) => page.getByRole('region', { name: 'Passkeys' }).locator('tbody tr');

async function openAccount(page: Page): Promise<void> {
  await goToScreen(page, 'Settings');
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Your account' }).click();
  await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
  assert.equal(pathOf(page), '/settings/account');
}

describe('passkeys', () => {
  test('add a passkey, sign out, sign back in with it, see both sessions and end the other; a replayed answer and a removed passkey are refused', T, () =>
    withBrowser(async (browser) => {
      // Another browser of the owner's, signed in with a link: the session to end later.
      const other = await openPage(browser, service);
      await other.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

      const { page } = await openPage(browser, service);
      const violations = watchCsp(page);
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await addAuthenticator(page);
      const contract = answersOf(page);
      await openAccount(page);
      await page.getByText('No passkeys yet.').waitFor();

      await page.getByLabel('Name').fill('Test laptop');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'Passkey “Test laptop” added.' }).waitFor();
      await passkeyRows(page).filter({ hasText: 'Test laptop' }).waitFor();
      assert.equal(await passkeyRows(page).count(), 1);
      assert.match(await passkeyRows(page).first().innerText(), /Never/, 'not used yet');
      assert.equal(await page.getByLabel('Name').inputValue(), '', 'the form is ready for another');
      // The same authenticator is not asked for a second passkey of the same person.
      await page.getByLabel('Name').fill('Again');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('alert').filter({ hasText: 'This authenticator already holds a passkey of yours for Statusdesk.' }).waitFor();
      assert.equal(await passkeyRows(page).count(), 1);

      // Signed out, the screen leads to the sign-in screen, where the passkey signs the owner in again.
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      await screenshot(page, 'signed-out');
      await page.getByRole('link', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { name: 'Sign in to Statusdesk', level: 1 }).waitFor();
      assert.equal(pathOf(page), '/signin');
      const answers: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/signin/passkey') answers.push(request.postData() ?? '');
      });
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      assert.equal(pathOf(page), '/');
      assert.equal(answers.length, 1);

      // The same answer sent again (its challenge was used) signs no one in.
      const replayed = await page.evaluate(async (body) => {
        const answer = await fetch('/signin/passkey', { method: 'POST', headers: { 'content-type': 'application/json' }, body, credentials: 'omit' });
        return { status: answer.status, body: (await answer.json()) as { code: string } };
      }, answers[0]!);
      assert.equal(replayed.status, 401);
      assert.equal(replayed.body.code, 'UNAUTHORIZED');

      // Two sessions: the passkey's (this one) and the other browser's link; the other is signed out from here.
      await openAccount(page);
      await passkeyRows(page).filter({ hasText: 'Test laptop' }).waitFor();
      assert.doesNotMatch(await passkeyRows(page).first().innerText(), /Never/, 'its last use is shown');
      await sessionRows(page).nth(1).waitFor();
      assert.equal(await sessionRows(page).count(), 2);
      const current = sessionRows(page).filter({ hasText: 'This session' });
      assert.equal(await current.count(), 1);
      assert.match(await current.innerText(), /Passkey/);
      assert.match(await current.innerText(), /Chrome on Linux/);
      assert.equal(await current.getByRole('button').count(), 0, 'this session is signed out with the sidebar’s button');
      const linked = sessionRows(page).filter({ hasText: 'Sign-in link' });
      assert.equal(await linked.count(), 1);

      await axeInBothThemes(page).then((found) => assert.deepEqual(found, []));
      await screenshotsInBothThemes(page, 'account');

      await linked.getByRole('button', { name: /^Sign out/ }).click();
      await page.getByRole('status').filter({ hasText: 'Session signed out.' }).waitFor();
      await sessionRows(page).nth(1).waitFor({ state: 'detached' });
      assert.equal(await sessionRows(page).count(), 1);
      // The other browser is signed out at its next request.
      await other.page.reload();
      await other.page.getByRole('heading', { name: 'Sign in to Statusdesk' }).waitFor();

      // Removed, the passkey no longer signs in, though the authenticator still offers it.
      await passkeyRows(page).first().getByRole('button', { name: 'Remove the passkey Test laptop' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove the passkey “Test laptop”?' });
      await dialog.getByRole('button', { name: 'Remove passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'Passkey removed.' }).waitFor();
      await page.getByText('No passkeys yet.').waitFor();
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('link', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /not known here/ })
        .waitFor();
      assert.equal(pathOf(page), '/signin');
      assert.deepEqual(violations, []);
      await contract.check();

      // Audited: the passkey added and removed, and the sign-in it made.
      const rows = await queryRows<{ action: string; entity_type: string; after: string | null }>(
        service.dataDir,
        "select action, entity_type, after from audit_log where action in ('passkey.create', 'passkey.delete', 'session.create') order by id",
      );
      const created = rows.filter((r) => r.action === 'passkey.create');
      assert.equal(created.length, 1);
      assert.equal(created[0]!.entity_type, 'passkey');
      assert.equal(JSON.parse(created[0]!.after!).name, 'Test laptop');
      assert.equal(rows.filter((r) => r.action === 'passkey.delete').length, 1);
      const byPasskey = rows.filter((r) => r.action === 'session.create' && JSON.parse(r.after ?? '{}').method === 'passkey');
      assert.equal(byPasskey.length, 1);
    }),
  );

  test('the sign-in screen: a passkey button and the way for the owner at the server, clean for axe', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { signedIn: false });
      const violations = watchCsp(page);
      await page.goto(`${service.dashboardUrl}/signin`);
      await page.getByRole('heading', { name: 'Sign in to Statusdesk', level: 1 }).waitFor();
      assert.equal(await page.title(), 'Sign in · Statusdesk');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      await page.getByText('statusdesk dashboard').waitFor();
      // No OpenID Connect provider is set up: no button for one.
      assert.equal(await page.getByRole('link', { name: /^Sign in with/ }).count(), 0);
      await axeInBothThemes(page).then((found) => assert.deepEqual(found, []));
      await screenshotsInBothThemes(page, 'sign-in');

      // An authenticator holding no passkey for this address gives no answer: the screen says so.
      await addAuthenticator(page);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('alert').waitFor();
      assert.equal(await page.getByRole('alert').innerText(), 'No passkey was used: the request was cancelled or timed out.');
      assert.equal(pathOf(page), '/signin');
      await axeInBothThemes(page).then((found) => assert.deepEqual(found, []));
      await screenshotsInBothThemes(page, 'sign-in-refused');
      assert.deepEqual(violations, []);
    }),
  );
});
