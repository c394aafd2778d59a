/**
 * The consent screen in Chromium says what the name it shows is: what the app says of itself,
 * which nothing verified. Any program may register under any name, so the person who approves
 * must not read the name as a fact. Shown to the browser that waits and to the one that decides.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPage, withBrowser } from './support/browser.ts';
import { authorizeUrl, type OAuthTestService, pkce, type Receiver, registerClient, startOAuthService, startReceiver } from './support/oauth-peers.ts';

const TEST_TIMEOUT = { timeout: 60_000 };

describe('the consent screen in Chromium', () => {
  let svc: OAuthTestService;
  let receiver: Receiver;

  before(async () => {
    svc = await startOAuthService();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await svc.stop();
  });

  test("says that the app's name is what the app says of itself and is not verified, waiting and deciding", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const name = 'Totally Official Editor';
      const { client_id } = await registerClient(svc.apiUrl, [receiver.redirectUri()], name);
      const url = () =>
        authorizeUrl(svc.apiUrl, {
          response_type: 'code',
          client_id,
          redirect_uri: receiver.redirectUri(),
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        });
      const sentence = `The name “${name}” is what the app says of itself; Statusdesk has not verified it.`;
      for (const signedIn of [false, true]) {
        const { context, page } = await openPage(browser, svc, { signedIn });
        try {
          await page.goto(url());
          const heading = page.getByRole('heading', { name: `Allow ${name} to use Statusdesk?`, level: 1 });
          await heading.waitFor();
          // Right after the heading, where it is read before the facts and the decision.
          const note = page.getByText(sentence, { exact: true });
          assert.equal(await note.count(), 1, `signed in: ${signedIn}: ${await page.getByRole('main').innerText()}`);
          assert.equal(await note.evaluate((el) => el.previousElementSibling?.tagName), 'H1');
          await page.getByRole(signedIn ? 'button' : 'heading', { name: signedIn ? 'Approve' : 'Approve it where you are signed in' }).waitFor();
        } finally {
          await context.close();
        }
      }
      for (const request of (await svc.services.oauth.pending(svc.owner)).filter((r) => r.client.id === client_id)) {
        await svc.services.oauth.deny(svc.owner, { matchCode: request.matchCode });
      }
    }),
  );
});
