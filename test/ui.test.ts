// The UI in Chromium against the real service, driven the way a person uses it: by the names
// of its controls.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { openPage, watchCsp, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 60_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

/** What has the focus: its tag, id and accessible text, read in the page. */
function focused(page: Page): Promise<{ tag: string; id: string; text: string; outline: string }> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    const label = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    return { tag: el.tagName.toLowerCase(), id: el.id, text: (label || el.textContent || '').trim(), outline: getComputedStyle(el).outlineStyle };
  })()`);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const backgroundOf = (page: Page) => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');

describe('the UI in Chromium', () => {
  test('signed out: without a session every screen says how to sign in', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { signedIn: false });
      for (const path of ['/', '/settings/general/api-keys', '/settings/integrations/connected-apps']) {
        await page.goto(`${service.dashboardUrl}${path}`);
        await page.getByRole('heading', { name: 'Sign in to Statusdesk' }).waitFor();
        assert.match(
          await page.getByRole('main').innerText(),
          /open the sign-in link that statusdesk serve printed when it started, or run statusdesk dashboard for a new one/,
        );
        assert.equal(await nav(page).count(), 0, 'no navigation without a session');
      }
    }),
  );

  test('the session token is in no address and no local storage: this tab keeps it, a reload keeps it, a new tab gets it from an open one', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { context, page } = await openPage(browser, service);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(page.url(), `${service.dashboardUrl}/`, 'the one-time link is gone from the address');
      assert.equal(
        await page.evaluate(() => JSON.stringify({ ...localStorage })).then((text) => /[A-Za-z0-9_-]{43}/.test(text)),
        false,
        'nothing secret in local storage',
      );
      assert.equal(await page.locator('meta[name="statusdesk-session"]').count(), 0, 'the hand-over element is removed');
      await page.reload();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      // A second tab of the same browser, opened by typing the address: an open tab hands it the token.
      const second = await context.newPage();
      await second.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await second.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      // The cookie alone, as any other local server the browser visits receives it, opens nothing.
      const cookie = (await context.cookies()).find((c) => c.name === 'statusdesk_session')!;
      const replayed = await fetch(`${service.dashboardUrl}/api/session`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
      assert.equal(replayed.status, 401);
      // With every tab closed, a new one is signed out: the token went with them.
      await page.close();
      await second.close();
      const later = await context.newPage();
      await later.goto(`${service.dashboardUrl}/`);
      await later.getByRole('heading', { name: 'Sign in to Statusdesk' }).waitFor();
    }),
  );

  test('sign out ends the session: the screen says so, and a reload stays signed out', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in to Statusdesk' }).waitFor();
    }),
  );

  test('index.html carries the CSP with frame-ancestors none and X-Frame-Options DENY, and the app runs under it', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { signedIn: false });
      const violations = watchCsp(page);
      const response = await page.goto(`${service.dashboardUrl}/oauth/consent?request=${'A'.repeat(22)}`);
      assert.ok(response);
      const headers = response.headers();
      assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      assert.match(headers['content-security-policy'] ?? '', /script-src 'self'/);
      assert.equal(headers['x-frame-options'], 'DENY');
      assert.equal(headers['cache-control'], 'no-cache');
      await page.getByRole('heading', { name: 'This request cannot be shown' }).waitFor();

      const signedIn = await openPage(browser, service);
      const more = watchCsp(signedIn.page);
      await signedIn.page.getByRole('heading', { name: 'Overview' }).waitFor();
      await nav(signedIn.page).getByRole('link', { name: 'Settings' }).click();
      await signedIn.page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      assert.deepEqual([...violations, ...more], []);
    }),
  );

  test('frame: landmarks, a skip link first, then the workspace and the navigation by Tab, with a visible focus', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(await page.getByRole('main').count(), 1);
      assert.equal(await page.getByRole('banner').count(), 1);
      assert.equal(await nav(page).count(), 1);

      await page.keyboard.press('Tab');
      const skip = await focused(page);
      assert.deepEqual([skip.tag, skip.text], ['a', 'Skip to content']);
      const box = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
      assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
      assert.notEqual(skip.outline, 'none');

      const order: string[] = [];
      for (let i = 0; i < 10; i++) {
        await page.keyboard.press('Tab');
        const now = await focused(page);
        order.push(now.text);
        assert.notEqual(now.outline, 'none', `${now.text} shows its focus`);
      }
      assert.equal(order[0], 'Current workspace');
      assert.deepEqual(order.slice(1), [
        'Overview',
        'Status pages',
        'Notifications',
        'Locations',
        'Audit log',
        'Connect an editor',
        'Settings',
        'Dark theme',
        'Sign out',
      ]);
      // Back to Settings.
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Shift+Tab');

      // Enter on a link moves there; the new screen's heading takes the focus.
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/settings/general/api-keys');
      assert.equal((await focused(page)).tag, 'h1');
      assert.equal(await nav(page).getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');

      // The skip link takes the focus past the navigation, into the screen: the settings area's
      // own navigation first, then the screen's form.
      await page.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      assert.equal((await focused(page)).id, 'main');
      await page.keyboard.press('Tab');
      const inside = await page.evaluate<boolean>('document.getElementById("main").contains(document.activeElement)');
      assert.ok(inside, 'Tab after the skip link stays in the screen');
      assert.equal((await focused(page)).text, 'API Keys');
      for (const entry of ['Email', 'Import and export', 'Members', 'Connected apps', 'Your account']) {
        await page.keyboard.press('Tab');
        assert.equal((await focused(page)).text, entry);
      }
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).text, 'Name');
    }),
  );

  test('theme: follows the system, the toggle switches light and dark, and the choice is remembered', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page, context } = await openPage(browser, service, { colorScheme: 'light' });
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      const toggle = page.getByRole('button', { name: 'Dark theme' });
      assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
      const light = await backgroundOf(page);

      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
      const dark = await backgroundOf(page);
      assert.notEqual(dark, light);

      await page.reload();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed'), 'true');
      assert.equal(await backgroundOf(page), dark);
      await context.close();

      // A system in dark mode starts dark with nothing stored; the toggle goes light.
      const darkSystem = await openPage(browser, service, { colorScheme: 'dark' });
      const darkToggle = darkSystem.page.getByRole('button', { name: 'Dark theme' });
      await darkSystem.page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(await darkToggle.getAttribute('aria-pressed'), 'true');
      assert.equal(await backgroundOf(darkSystem.page), dark);
      await darkToggle.click();
      assert.equal(await darkToggle.getAttribute('aria-pressed'), 'false');
      assert.equal(await backgroundOf(darkSystem.page), light);
    }),
  );

  test('API Keys: create a read-only key, see its secret once with Copy, then revoke it', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page, context } = await openPage(browser, service);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.dashboardUrl });
      await nav(page).getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API Keys' }).click();
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();

      const name = `laptop ${Date.now()}`;
      await page.getByLabel('Name').fill(name);
      await page.getByRole('radio', { name: 'Read only' }).check();
      await page.getByRole('button', { name: 'Create key' }).click();

      const secretField = page.getByRole('textbox', { name: 'Secret' });
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      assert.match(secret, /^svc_[A-Za-z0-9_-]{20,}$/);
      assert.equal(await secretField.getAttribute('readonly'), '');
      assert.match(await page.getByRole('region', { name: `Key “${name}” created` }).innerText(), /will not be shown again/);

      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);

      // The key is real and read only.
      const whoami = await service.api('/v1/whoami', { key: secret });
      assert.equal(whoami.status, 200);
      const row = page.getByRole('row', { name: new RegExp(`^${name}`) });
      assert.match(await row.innerText(), /Read only/);
      assert.match(await row.innerText(), /Active/);

      // Shown once: after a reload the secret is nowhere on the page.
      await page.reload();
      await row.waitFor();
      assert.doesNotMatch(await page.content(), new RegExp(secret.slice(8)));

      await row.getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: `Revoke the key “${name}”?` });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await row.getByText('Revoked').waitFor();
      assert.equal(await row.getByRole('button', { name: 'Revoke' }).count(), 0);
      assert.equal((await service.api('/v1/whoami', { key: secret })).status, 401);
    }),
  );

  test('API Keys: a refused name is explained beside the form and marks the field', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await page.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create key' }).click();
      const alert = page.getByRole('region', { name: 'Create a key' }).getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /^name: /);
      assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByRole('textbox', { name: 'Secret' }).count(), 0);
    }),
  );

  test('workspace switcher: another workspace shows its own keys, and the choice is remembered', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const { withLocalOwner } = await import('./support/database.ts');
      const slug = `zeta-${randomBytes(3).toString('hex')}`;
      const name = `Zeta ${slug.slice(5)}`;
      await withLocalOwner(service.dataDir, (services, owner) => services.workspaces.create(owner, { name, slug, plan: 'pro' }));
      await service.createKey('write', slug);

      const { page } = await openPage(browser, service);
      await page.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      const switcher = page.getByLabel('Current workspace');
      assert.notEqual(await switcher.inputValue(), '');
      await switcher.selectOption({ label: name });
      await page.getByRole('heading', { name: `Keys of ${name}` }).waitFor();
      const rows = page.getByRole('table').getByRole('row');
      await page.getByRole('row', { name: /^write key/ }).waitFor();
      assert.equal(await rows.count(), 2, 'the header and the one key of the new workspace');

      await page.reload();
      await page.getByRole('heading', { name: `Keys of ${name}` }).waitFor();
    }),
  );

  test('a consent page framed by another origin does not load', TEST_TIMEOUT, async () => {
    const consentUrl = `${service.dashboardUrl}/oauth/consent?request=${'B'.repeat(22)}`;
    // A page of another origin (another port) that frames the consent page, and, as a control,
    // a page of its own that may be framed.
    const framer: Server = createServer((req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (req.url === '/own') return res.end('<!doctype html><p id="own">own page</p>');
      res.end(
        '<!doctype html><title>framer</title>' +
          `<iframe id="victim" src="${consentUrl}" onload="this.dataset.loaded = '1'"></iframe>` +
          `<iframe id="control" src="/own" onload="this.dataset.loaded = '1'"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      await withBrowser(async (browser) => {
        const { page } = await openPage(browser, service);
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
        await page.waitForFunction(`document.getElementById('victim').dataset.loaded === '1' && document.getElementById('control').dataset.loaded === '1'`);
        const control = page.frames().find((frame) => frame.url().endsWith('/own'));
        assert.ok(control, 'the control frame loaded');
        assert.equal(await control.locator('#own').count(), 1);

        const victim = page.frameLocator('#victim');
        // Give a page that did load the time to draw itself, then look.
        await page.waitForTimeout(1000);
        assert.equal(await victim.locator('#root').count(), 0, 'the consent UI loaded inside a frame');
        assert.equal(await victim.getByText('Statusdesk').count(), 0);
        assert.ok(!page.frames().some((frame) => frame.url().startsWith(service.dashboardUrl)), 'a frame shows the dashboard');
      });
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });
});

/** A browser and a fresh editor: a client registered under a new name, with its loopback redirect target; all closed after `run`. */
async function withEditor(run: (browser: Browser, editor: { name: string; client: EditorClient; target: RedirectTarget }) => Promise<void>): Promise<void> {
  const target = await redirectTarget();
  try {
    await withBrowser(async (browser) => {
      const name = `Editor ${randomBytes(3).toString('hex')}`;
      const client = await editorClient(name, target.uri);
      await run(browser, { name, client, target });
    });
  } finally {
    await target.close();
  }
}

interface RedirectTarget {
  uri: string;
  arrivals: URL[];
  close(): Promise<void>;
}

/** An editor's loopback redirect target: a tiny server that records where the browser came back to. */
async function redirectTarget(): Promise<RedirectTarget> {
  const arrivals: URL[] = [];
  const server = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>editor</title><h1>Connected</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    arrivals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Registers a client as an editor does, and builds its authorization address with PKCE. */
async function editorClient(name: string, redirectUri: string) {
  const registered = await service.api('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri] }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(12).toString('base64url');
  return {
    clientId,
    verifier,
    state,
    authorizeUrl(scope: 'read' | 'write') {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope,
        state,
      });
      return `${service.apiUrl}/oauth/authorize?${query}`;
    },
    /** Trades the code for tokens, proving the code is the real thing. */
    async token(code: string): Promise<{ access_token: string; scope: string }> {
      const response = await service.api('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as { access_token: string; scope: string };
    },
  };
}

type EditorClient = Awaited<ReturnType<typeof editorClient>>;

/** The browser arrived at the editor with a code, the state it sent, and the issuer. */
function assertArrival(page: Page, redirectUri: string, state: string): string {
  const url = new URL(page.url());
  assert.equal(`${url.origin}${url.pathname}`, redirectUri);
  assert.equal(url.searchParams.get('state'), state);
  assert.equal(url.searchParams.get('iss'), service.apiUrl);
  assert.equal(url.searchParams.get('error'), null);
  const code = url.searchParams.get('code');
  assert.ok(code, 'a code');
  return code;
}

describe('consent and Connected apps in Chromium', () => {
  test('a signed-in browser approves with Workspace, Read only and Approve, and goes back to the editor with code, state and iss', TEST_TIMEOUT, () =>
    withEditor(async (browser, { name, client, target }) => {
      const { page } = await openPage(browser, service);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();

      await page.goto(client.authorizeUrl('read'));
      await page.getByRole('heading', { name: `Allow ${name} to use Statusdesk?` }).waitFor();
      const consentUrl = new URL(page.url());
      assert.equal(consentUrl.pathname, '/oauth/consent');
      assert.equal(consentUrl.searchParams.get('ticket'), null, 'the ticket has left the address');
      const main = page.getByRole('main');
      assert.match(await main.innerText(), /Registered with this Statusdesk/);
      assert.match(await main.innerText(), /127\.0\.0\.1/);
      assert.match(await page.getByRole('note').innerText(), /Any program on this computer can listen on a loopback port/);

      // Asked for read: read cannot be raised to write.
      assert.equal(await page.getByRole('radio', { name: 'Read & write' }).isDisabled(), true);
      const workspace = page.getByLabel('Workspace', { exact: true });
      await workspace.selectOption({ index: 0 });
      await page.getByRole('radio', { name: 'Read only' }).check();
      await page.getByRole('button', { name: 'Approve' }).click();

      await page.waitForURL((url) => url.href.startsWith(target.uri));
      const code = assertArrival(page, target.uri, client.state);
      const tokens = await client.token(code);
      assert.equal(tokens.scope, 'read');
      assert.equal(target.arrivals.filter((url) => url.pathname === '/callback').length, 1, 'the browser came back once');

      // Connected apps lists it; Revoke asks first, then the token stops working.
      await page.goto(`${service.dashboardUrl}/settings/integrations/connected-apps`);
      const row = page.getByRole('row', { name: new RegExp(`^${name}`) });
      await row.waitFor();
      assert.match(await row.innerText(), /Read only/);
      await row.getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: `Disconnect ${name}?` });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const whoami = await service.api('/v1/whoami', { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(whoami.status, 200, 'Cancel revoked nothing');
      await row.getByRole('button', { name: 'Revoke' }).click();
      await dialog.getByRole('button', { name: 'Revoke connection' }).click();
      await row.waitFor({ state: 'detached' });
      const refused = await service.api('/v1/whoami', { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(refused.status, 401);
    }),
  );

  test('Deny sends the editor back with access_denied', TEST_TIMEOUT, () =>
    withEditor(async (browser, { name, client, target }) => {
      const { page } = await openPage(browser, service);
      await page.goto(client.authorizeUrl('write'));
      await page.getByRole('heading', { name: `Allow ${name} to use Statusdesk?` }).waitFor();
      assert.equal(await page.getByRole('radio', { name: 'Read & write' }).isChecked(), true, 'the asked access is preselected');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL((url) => url.href.startsWith(target.uri));
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('error'), 'access_denied');
      assert.equal(url.searchParams.get('state'), client.state);
      assert.equal(url.searchParams.get('iss'), service.apiUrl);
      assert.equal(url.searchParams.get('code'), null);
    }),
  );

  test('a browser without a session shows the matching code and continues once Connected apps approves it elsewhere', TEST_TIMEOUT, () =>
    withEditor(async (browser, { name, client, target }) => {
      // The system browser the editor opened: no session.
      const waiting = await openPage(browser, service, { signedIn: false });
      await waiting.page.goto(client.authorizeUrl('write'));
      await waiting.page.getByRole('heading', { name: 'Approve it where you are signed in' }).waitFor();
      const matchCode = ((await waiting.page.locator('.match-code').innerText()).match(/[A-Z0-9]{4}-[A-Z0-9]{4}/) ?? [''])[0];
      assert.match(matchCode, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      const text = await waiting.page.getByRole('main').innerText();
      assert.match(text, new RegExp(`statusdesk oauth approve ${matchCode}`));
      assert.equal(await waiting.page.getByRole('button', { name: 'Approve' }).count(), 0, 'no decision without a session');

      // The owner, signed in elsewhere, finds the same code under Connected apps.
      const owner = await openPage(browser, service);
      await owner.page.goto(`${service.dashboardUrl}/settings/integrations/connected-apps`);
      const request = owner.page.getByRole('article', { name: name });
      await request.waitFor();
      assert.match(await request.innerText(), new RegExp(matchCode));
      await request.getByLabel('Workspace', { exact: true }).selectOption({ index: 0 });
      await request.getByRole('radio', { name: 'Read & write' }).check();
      await request.getByRole('button', { name: 'Approve' }).click();
      await request.waitFor({ state: 'detached' });

      // The waiting page continues to the editor on its own.
      await waiting.page.waitForURL((url) => url.href.startsWith(target.uri));
      const code = assertArrival(waiting.page, target.uri, client.state);
      const tokens = await client.token(code);
      assert.equal(tokens.scope, 'write');

      // Changes made with the token show under the connection.
      const created = await service.api('/rpc/monitor.v1.MonitorService/CreateTCPMonitor', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: 'PERIODICITY_10M' } }),
      });
      assert.equal(created.status, 200, await created.text());
      await owner.page.reload();
      const row = owner.page.getByRole('row', { name: new RegExp(`^${name}`) });
      await row.waitFor();
      assert.match(await row.innerText(), /Read & write/);
      const changes = row.getByRole('button', { name: '1 change' });
      await changes.click();
      assert.equal(await changes.getAttribute('aria-expanded'), 'true');
      const activity = owner.page.getByRole('list', { name: `Changes made by ${name}` });
      await activity.waitFor();
      assert.match(await activity.innerText(), /monitor/);
    }),
  );
});
