// `statusdesk dashboard`: a new one-time sign-in link for a running service, made on its data folder.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli, sessionTokenOf, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

test('prints a sign-in link for the dashboard port that signs a browser in once', async () => {
  const port = new URL(service.dashboardUrl).port;
  const result = await runCli(['dashboard', '--no-browser', '--data-dir', service.dataDir, '--dashboard-port', port]);
  assert.equal(result.code, 0, result.stderr);
  const link = result.stdout.trim();
  assert.match(link, new RegExp(`^http://localhost:${port}/signin\\?token=[A-Za-z0-9_-]{43}$`));
  assert.match(result.stderr, /works once, for 15 minutes/);
  const signIn = await fetch(link);
  assert.equal(signIn.status, 200);
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const session = await fetch(`${service.dashboardUrl}/api/session`, { headers: { cookie, 'x-statusdesk-session': sessionTokenOf(await signIn.text()) } });
  assert.equal(session.status, 200);
  assert.equal((await fetch(link)).status, 401, 'a second use is refused');
});

test('DASHBOARD_URL names the address the link points at', async () => {
  const result = await runCli(['dashboard', '--no-browser', '--data-dir', service.dataDir], { DASHBOARD_URL: 'http://status.localhost:4001' });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout.trim(), /^http:\/\/status\.localhost:4001\/signin\?token=[A-Za-z0-9_-]{43}$/);
});
