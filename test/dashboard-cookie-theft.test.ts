// A local web server the owner visits receives the dashboard's cookie (browsers send `localhost`
// cookies to every port). With that cookie, and anything it can compute from it, it must get nothing.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { launchChromium, openPage } from './support/browser.ts';
import { pkce, randomState, registerClient, startConsent, startOAuthService, type OAuthTestService } from './support/oauth-peers.ts';
import type { Browser } from 'playwright-core';

let service: OAuthTestService;
let browser: Browser;

before(async () => {
  service = await startOAuthService();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await service?.stop();
});

/** Another local web server: it keeps the Cookie header of every request the browser sends it. */
async function startCookieCatcher(): Promise<{ server: Server; url: string; cookies: string[] }> {
  const cookies: string[] = [];
  const server = createServer((request, response) => {
    if (request.headers.cookie) cookies.push(request.headers.cookie);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dev server</title><p>hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}/`, cookies };
}

/** Every token an attacker could compute from the cookie's secret under a public label. */
function tokensFrom(cookieSecret: string, labels: string[]): string[] {
  return ['', cookieSecret, ...labels.map((label) => createHmac('sha256', cookieSecret).update(label).digest('base64url'))];
}

test('a server on another port that receives the dashboard cookie in Chromium can read nothing, mint no key and approve no app', async () => {
  // An editor asks to connect: a pending consent request the owner has not decided.
  const client = await registerClient(service.apiUrl, ['http://127.0.0.1:43111/callback'], 'Pending editor');
  const { challenge } = pkce();
  const { requestId } = await startConsent(service, {
    client_id: client.client_id,
    redirect_uri: 'http://127.0.0.1:43111/callback',
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'write',
    state: randomState(),
  });

  // The owner is signed in to the dashboard in Chromium, then opens another local site.
  const { context, page } = await openPage(browser, service);
  const catcher = await startCookieCatcher();
  try {
    await page.getByRole('main').waitFor();
    const ownSession = await page.evaluate(async () => {
      const token = sessionStorage.getItem('statusdesk.session') ?? '';
      return (await fetch('/api/session', { headers: { 'x-statusdesk-session': token } })).status;
    });
    assert.equal(ownSession, 200, 'the dashboard page itself reads its session');

    await page.goto(catcher.url);
    const stolen = catcher.cookies.find((header) => header.includes('statusdesk_session='));
    assert.ok(stolen, `the browser sent the dashboard cookie to the other port: ${catcher.cookies.join(' | ') || 'no cookie at all'}`);
    const cookieSecret = /statusdesk_session=([^;]+)/.exec(stolen)![1]!;
    const cookie = `statusdesk_session=${cookieSecret}`;

    // No page the cookie fetches hands over the page's token.
    for (const path of ['/', '/signin', '/settings']) {
      const html = await (await fetch(`${service.dashboardUrl}${path}`, { headers: { cookie } })).text();
      assert.doesNotMatch(html, /statusdesk-session/, `${path} with the cookie carries no session token`);
    }

    const keysBefore = await service.services.keys.list(service.owner, service.personalId);
    const forged = tokensFrom(cookieSecret, ['statusdesk dashboard session', 'dashboard session', 'session']);
    for (const token of forged) {
      const headers = { cookie, 'x-statusdesk-session': token, origin: service.dashboardUrl };
      const session = await fetch(`${service.dashboardUrl}/api/session`, { headers });
      assert.equal(session.status, 401, `GET /api/session with the cookie and token "${token}"`);
      const key = await fetch(`${service.dashboardUrl}/api/workspaces/${service.personalId}/keys`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'stolen', scope: 'write' }),
      });
      assert.equal(key.status, 401, `key creation with the cookie and token "${token}"`);
    }

    // The consent request read with the cookie carries no anti-forgery token to reuse.
    const view = await fetch(`${service.dashboardUrl}/oauth/consent/requests/${requestId}`, { headers: { cookie } });
    const viewed = (await view.json()) as Record<string, unknown>;
    assert.equal(viewed.csrfToken, undefined, 'the cookie alone reveals no anti-forgery token');
    for (const token of forged) {
      for (const csrfToken of tokensFrom(cookieSecret, [`consent:${requestId}`])) {
        const approve = await fetch(`${service.dashboardUrl}/api/oauth/requests/${requestId}/approve`, {
          method: 'POST',
          headers: { cookie, 'x-statusdesk-session': token, origin: service.dashboardUrl, 'content-type': 'application/json' },
          body: JSON.stringify({ csrfToken, workspaceId: service.personalId, access: 'write' }),
        });
        assert.equal(approve.status, 401, 'consent approval with the cookie');
      }
    }

    // Nothing changed: no key, and the request still waits for the owner.
    assert.equal((await service.services.keys.list(service.owner, service.personalId)).length, keysBefore.length);
    const pending = await service.services.oauth.pending(service.owner);
    assert.ok(
      pending.some((request) => request.id === requestId),
      'the consent request is still pending',
    );
  } finally {
    await context.close();
    await new Promise((resolve) => catcher.server.close(resolve));
  }
});

test('signing out ends the session: its cookie and page token no longer read anything', async () => {
  const { context, page } = await openPage(browser, service);
  try {
    await page.getByRole('main').waitFor();
    const [cookie] = await context.cookies(service.dashboardUrl);
    const token = await page.evaluate(() => sessionStorage.getItem('statusdesk.session') ?? '');
    const headers = { cookie: `${cookie!.name}=${cookie!.value}`, 'x-statusdesk-session': token, origin: service.dashboardUrl };
    assert.equal((await fetch(`${service.dashboardUrl}/api/session`, { headers })).status, 200);
    const signOut = await fetch(`${service.dashboardUrl}/api/signout`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(signOut.status, 204);
    assert.equal((await fetch(`${service.dashboardUrl}/api/session`, { headers })).status, 401);
  } finally {
    await context.close();
  }
});
