import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { dashboardPath, deepLinkFromArgv, parseDeepLink } from '../main/src/deep-links.ts';
import { consentDecidedPayload, IPC, isTrustedSender, openExternalPayload } from '../main/src/ipc.ts';
import { DASHBOARD_CSP, navigationDecision, windowOpenDecision } from '../main/src/navigation.ts';
import { alertNotification, consentNotification } from '../main/src/notification-text.ts';
import { MAX_LISTED_DOWN, type TrayItem, trayModel } from '../main/src/tray.ts';
import { DASHBOARD_SECURITY_HEADERS } from '../server/dashboard/dashboard-app.ts';
import type { HealthSummary } from '../server/desktop/host-protocol.ts';

const REQUEST_ID = randomBytes(16).toString('base64url');
const ORIGIN = 'http://localhost:3001';

describe('deep links', () => {
  test('reads each route into its typed form and its dashboard path', () => {
    const cases: [string, string][] = [
      ['statusdesk://overview', '/'],
      ['statusdesk://monitors/42', '/monitors/42'],
      ['statusdesk://pages/7', '/pages/7'],
      [`statusdesk://consent/${REQUEST_ID}`, `/oauth/consent?request=${REQUEST_ID}`],
      ['statusdesk://connect', '/connect'],
      ['statusdesk://connect?editor=cursor', '/connect?editor=cursor'],
      ['statusdesk://connect?editor=claude-desktop', '/connect?editor=claude-desktop'],
      ['statusdesk://keys', '/settings/general/api-keys'],
      ['statusdesk://audit', '/audit'],
    ];
    for (const [url, path] of cases) {
      const link = parseDeepLink(url);
      assert.ok(link, url);
      assert.equal(dashboardPath(link), path, url);
    }
    assert.deepEqual(parseDeepLink('statusdesk://monitors/42'), { kind: 'monitor', id: '42' });
    assert.deepEqual(parseDeepLink(`statusdesk://consent/${REQUEST_ID}`), { kind: 'consent', requestId: REQUEST_ID });
    assert.deepEqual(parseDeepLink('statusdesk://connect?editor=vscode'), { kind: 'connect', editor: 'vscode' });
  });

  test('accepts the trailing slash Windows adds and an upper-case scheme', () => {
    assert.deepEqual(parseDeepLink('statusdesk://monitors/42/'), { kind: 'monitor', id: '42' });
    assert.deepEqual(parseDeepLink('statusdesk://keys/'), { kind: 'keys' });
    assert.deepEqual(parseDeepLink('StatusDesk://audit'), { kind: 'audit' });
  });

  test('refuses anything that is not exactly one of its routes', () => {
    const refused = [
      '',
      'statusdesk:',
      'statusdesk://',
      'statusdesk:monitors/42',
      'statusdesk:/monitors/42',
      'http://monitors/42',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'statusdesk://user@monitors/42',
      'statusdesk://user:pw@keys',
      'statusdesk://keys:3000',
      'statusdesk://localhost/keys',
      'statusdesk://evil.example/keys',
      'statusdesk://KEYS',
      'statusdesk://monitors/42/edit',
      'statusdesk://monitors/../keys',
      'statusdesk://monitors/..',
      'statusdesk://monitors/4%2F2',
      'statusdesk://monitors%2F42',
      'statusdesk://monitors/%34%32',
      'statusdesk://monitors/42#x',
      'statusdesk://monitors/42?x=1',
      'statusdesk://monitors/042',
      'statusdesk://monitors/abc',
      'statusdesk://monitors/-1',
      'statusdesk://monitors/',
      'statusdesk://monitors//42',
      'statusdesk://monitors/1234567890123456',
      'statusdesk://pages/slug',
      'statusdesk://consent/short',
      `statusdesk://consent/${REQUEST_ID}x`,
      `statusdesk://consent/${REQUEST_ID.slice(0, 21)}.`,
      'statusdesk://connect?editor=emacs',
      'statusdesk://connect?editor=',
      'statusdesk://connect?editor=cursor&editor=vscode',
      'statusdesk://connect?editor=cursor&x=1',
      'statusdesk://connect?editor=cursor?x',
      'statusdesk://connect?',
      'statusdesk://connect?editor',
      'statusdesk://keys?x=1',
      'statusdesk://settings',
      'statusdesk://keys\\..',
      'statusdesk://keys\n',
      ' statusdesk://keys',
      `statusdesk://connect?editor=cursor${'&a=b'.repeat(100)}`,
      `statusdesk://monitors/${'1'.repeat(300)}`,
    ];
    for (const url of refused) assert.equal(parseDeepLink(url), undefined, JSON.stringify(url));
  });

  test('finds the link among the arguments of a launch', () => {
    assert.deepEqual(deepLinkFromArgv(['/opt/Statusdesk/statusdesk-desktop', '--no-sandbox', 'statusdesk://monitors/9/']), { kind: 'monitor', id: '9' });
    assert.equal(deepLinkFromArgv(['/opt/Statusdesk/statusdesk-desktop', '--no-sandbox']), undefined);
    assert.equal(deepLinkFromArgv(['C:\\Statusdesk.exe', 'statusdesk://monitors/../keys']), undefined);
    assert.equal(deepLinkFromArgv(['app', '--flag=statusdesk://keys']), undefined);
  });
});

describe('navigation', () => {
  test('keeps the window on the dashboard’s exact origin', () => {
    assert.equal(navigationDecision(`${ORIGIN}/monitors/4`, ORIGIN), 'allow');
    assert.equal(navigationDecision(`${ORIGIN}/oauth/consent?request=x#top`, ORIGIN), 'allow');
    assert.equal(navigationDecision('http://127.0.0.1:3001/', ORIGIN), 'open-externally');
    assert.equal(navigationDecision('http://localhost:3000/docs/', ORIGIN), 'open-externally');
    assert.equal(navigationDecision('https://localhost:3001/', ORIGIN), 'open-externally');
    assert.equal(navigationDecision('http://localhost.evil.example:3001/', ORIGIN), 'open-externally');
    assert.equal(navigationDecision('https://example.com/status', ORIGIN), 'open-externally');
  });

  test('denies every other scheme and addresses with user info', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'about:blank',
      'statusdesk://keys',
      'cursor://anysphere.cursor-deeplink/mcp/install?name=x',
      'mailto:a@example.com',
      'ftp://example.com/',
      'blob:http://localhost:3001/0b0e',
      'http://user:pw@localhost:3001/',
      'https://localhost:3001@evil.example/',
      'not a url',
    ]) {
      assert.equal(navigationDecision(url, ORIGIN), 'deny', url);
      assert.equal(windowOpenDecision(url, ORIGIN), 'deny', url);
    }
  });

  test('allows nothing in the window before the dashboard’s origin is known', () => {
    assert.equal(navigationDecision(`${ORIGIN}/`, ''), 'open-externally');
  });

  test('never opens an app window: web addresses, even the dashboard’s, go to the browser', () => {
    assert.equal(windowOpenDecision(`${ORIGIN}/monitors/4`, ORIGIN), 'open-externally');
    assert.equal(windowOpenDecision('https://docs.example.com/', ORIGIN), 'open-externally');
  });

  test('sets the same content security policy as the dashboard', () => {
    assert.equal(DASHBOARD_CSP, DASHBOARD_SECURITY_HEADERS['content-security-policy']);
  });
});

function health(down: number, counts: Partial<HealthSummary['counts']> = {}): HealthSummary {
  const all = { up: 0, degraded: 0, down, pending: 0, paused: 0, ...counts };
  return {
    overall: down > 0 ? 'down' : all.degraded > 0 ? 'degraded' : all.up > 0 ? 'up' : 'unknown',
    down: Array.from({ length: down }, (_, i) => ({ monitorId: String(i + 1), name: `db-${i + 1}`, workspaceId: '1' })),
    counts: all,
  };
}

const labels = (items: TrayItem[]) => items.map((item) => (item.separator ? '—' : item.label));
const itemNamed = (items: TrayItem[], label: string) => items.find((item) => !item.separator && item.label === label);

describe('tray', () => {
  test('all up: the green icon, one status line, then the app’s commands', () => {
    const model = trayModel(health(0, { up: 12 }), 'running', { openAtLogin: false });
    assert.equal(model.icon, 'up');
    assert.equal(model.tooltip, 'Statusdesk: All 12 monitors up');
    assert.deepEqual(labels(model.items), [
      'All 12 monitors up',
      '—',
      'Open Statusdesk',
      'Open at login',
      'Install the statusdesk command',
      '—',
      'Quit Statusdesk',
    ]);
    assert.deepEqual(model.items[0], { label: 'All 12 monitors up', enabled: false });
    assert.deepEqual(itemNamed(model.items, 'Open Statusdesk'), { label: 'Open Statusdesk', enabled: true, action: { type: 'open', path: '/' } });
    assert.deepEqual(itemNamed(model.items, 'Open at login'), {
      label: 'Open at login',
      enabled: true,
      checked: false,
      action: { type: 'toggle-open-at-login' },
    });
    assert.deepEqual(itemNamed(model.items, 'Install the statusdesk command'), {
      label: 'Install the statusdesk command',
      enabled: true,
      action: { type: 'install-cli' },
    });
    assert.deepEqual(itemNamed(model.items, 'Quit Statusdesk'), { label: 'Quit Statusdesk', enabled: true, action: { type: 'quit' } });
  });

  test('lists the monitors that are down, each opening its page, at most ten and the number of the rest', () => {
    const few = trayModel(health(2, { up: 3, degraded: 1 }), 'running', { openAtLogin: true });
    assert.equal(few.icon, 'down');
    assert.equal(few.tooltip, 'Statusdesk: 2 down, 1 degraded, 3 up');
    assert.deepEqual(labels(few.items).slice(0, 5), ['2 down, 1 degraded, 3 up', '—', 'db-1 is down', 'db-2 is down', '—']);
    assert.deepEqual(few.items[2], { label: 'db-1 is down', enabled: true, action: { type: 'open', path: '/monitors/1?workspace=1' } });
    assert.equal((itemNamed(few.items, 'Open at login') as { checked?: boolean }).checked, true);

    const many = trayModel(health(MAX_LISTED_DOWN + 3), 'running', { openAtLogin: false });
    const listed = many.items.filter((item) => !item.separator && item.label.endsWith(' is down'));
    assert.equal(listed.length, MAX_LISTED_DOWN);
    assert.deepEqual(itemNamed(many.items, 'and 3 more'), { label: 'and 3 more', enabled: true, action: { type: 'open', path: '/' } });
  });

  test('a monitor’s name is one line of bounded length in the menu', () => {
    const model = trayModel({ ...health(1), down: [{ monitorId: '5', name: `evil\nQuit Statusdesk\u202e${'x'.repeat(200)}`, workspaceId: '1' }] }, 'running', {
      openAtLogin: false,
    });
    const item = model.items[2];
    assert.ok(item && !item.separator);
    assert.ok(!/[\n\u202e]/.test(item.label), item.label);
    assert.ok(item.label.length <= 70, item.label);
  });

  test('while the service is not running the icon is unknown, the status says why, and nothing opens', () => {
    for (const [state, line] of [
      ['starting', 'Starting…'],
      ['restarting', 'Restarting after a crash…'],
      ['stopped', 'Stopped'],
    ] as const) {
      const model = trayModel(health(2, { up: 1 }), state, { openAtLogin: false });
      assert.equal(model.icon, 'unknown', state);
      assert.equal(model.tooltip, `Statusdesk: ${line}`);
      assert.deepEqual(model.items[0], { label: line, enabled: false });
      assert.equal(
        labels(model.items).some((label) => label.endsWith(' is down')),
        false,
        state,
      );
      assert.equal((itemNamed(model.items, 'Open Statusdesk') as { enabled: boolean }).enabled, false, state);
      assert.equal((itemNamed(model.items, 'Quit Statusdesk') as { enabled: boolean }).enabled, true, state);
    }
  });

  test('running without a health report yet, and with no monitors', () => {
    assert.equal(trayModel(undefined, 'running', { openAtLogin: false }).tooltip, 'Statusdesk: Waiting for the first checks…');
    assert.equal(trayModel(undefined, 'running', { openAtLogin: false }).icon, 'unknown');
    assert.equal(trayModel(health(0), 'running', { openAtLogin: false }).tooltip, 'Statusdesk: No monitors yet');
    assert.equal(trayModel(health(0, { up: 1, paused: 2 }), 'running', { openAtLogin: false }).tooltip, 'Statusdesk: 1 up, 2 paused');
    assert.equal(trayModel(health(0, { up: 1 }), 'running', { openAtLogin: false }).tooltip, 'Statusdesk: All 1 monitor up');
  });
});

describe('notification text', () => {
  const alert = {
    monitorId: '42',
    monitorName: 'orders-db',
    workspaceName: 'Personal',
    workspaceSlug: 'personal',
    message: 'connection refused',
    at: '2026-11-02T10:00:00Z',
    test: false,
  };

  test('an alert names the monitor and what happened, and opens the monitor', () => {
    assert.deepEqual(alertNotification({ ...alert, kind: 'down' }), {
      title: 'orders-db is down',
      body: 'connection refused (Personal)',
      path: '/monitors/42?workspace=personal',
    });
    assert.equal(alertNotification({ ...alert, kind: 'recovered' }).title, 'orders-db is up again');
    assert.equal(alertNotification({ ...alert, kind: 'degraded' }).title, 'orders-db is degraded');
    assert.equal(alertNotification({ ...alert, kind: 'down', message: '' }).body, 'In Personal');
    // The service's headline, when it sends one, says how long a monitor was down.
    assert.equal(alertNotification({ ...alert, kind: 'recovered', headline: 'orders-db is back up after 12 min' }).title, 'orders-db is back up after 12 min');
  });

  test('a channel’s test alert says it is a test and opens the channels', () => {
    const text = alertNotification({
      ...alert,
      kind: 'down',
      monitorId: '0',
      monitorName: 'Test monitor',
      message: 'This is a test alert for the channel "Desk". No monitor changed state.',
      test: true,
    });
    assert.deepEqual(text, {
      title: 'Statusdesk test alert',
      body: 'This is a test alert for the channel "Desk". No monitor changed state. (Personal)',
      path: '/notifications',
    });
  });

  test('an alert’s names and message are single lines of bounded length', () => {
    const text = alertNotification({ ...alert, kind: 'down', monitorName: `a\nb${'n'.repeat(300)}`, message: `line one\r\nline two${'m'.repeat(500)}` });
    assert.ok(text.title.startsWith('a b'));
    assert.ok(!/[\r\n]/.test(text.title + text.body));
    assert.ok(text.title.length <= 70 && text.body.length <= 220, `${text.title.length} ${text.body.length}`);
  });

  const request = { id: REQUEST_ID, matchCode: 'KXRD-7QPM', clientName: 'Cursor', access: 'write', expiresAt: '2026-11-02T10:10:00Z' } as const;

  test('a consent request names the app as it calls itself, the access and the code, and opens the consent page', () => {
    const text = consentNotification(request);
    assert.equal(text.title, 'An app asks to connect to Statusdesk');
    assert.equal(text.body, '“Cursor” asks for read & write access. Allow it only if the page your editor opened shows the code KXRD-7QPM.');
    assert.equal(text.path, `/oauth/consent?request=${REQUEST_ID}`);
    assert.match(consentNotification({ ...request, access: 'read' }).body, /read-only access/);
  });

  test('an app cannot write its own sentences into the consent notification', () => {
    const text = consentNotification({
      ...request,
      clientName: `Cursor”\n\nStatusdesk approved this already. Code: AAAA-AAAA${' '.repeat(50)}pad`,
      access: 'read',
    });
    assert.ok(!text.body.includes('\n'));
    assert.match(text.body, /^“Cursor Statusdesk approved this[^”“]*…” asks for read-only access\. [^”“]* KXRD-7QPM\.$/);
  });
});

describe('ipc', () => {
  test('the channel names of the preload’s API', () => {
    assert.deepEqual(IPC, { version: 'app:version', openExternal: 'app:open-external', consentDecided: 'consent:decided' });
  });

  test('answers only frames of the dashboard’s exact origin', () => {
    assert.equal(isTrustedSender(`${ORIGIN}/`, ORIGIN), true);
    assert.equal(isTrustedSender(`${ORIGIN}/oauth/consent?request=x`, ORIGIN), true);
    for (const sender of [
      'http://localhost:3000/',
      'http://127.0.0.1:3001/',
      'https://localhost:3001/',
      'http://localhost:30011/',
      'http://user@localhost:3001/',
      'file:///index.html',
      'about:blank',
      'null',
      '',
    ]) {
      assert.equal(isTrustedSender(sender, ORIGIN), false, sender);
    }
    assert.equal(isTrustedSender(`${ORIGIN}/`, ''), false);
    assert.equal(isTrustedSender('file:///a', 'null'), false);
  });

  test('openExternal takes an http(s) address and nothing else', () => {
    assert.equal(openExternalPayload('https://example.com/docs'), 'https://example.com/docs');
    for (const payload of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'statusdesk://keys',
      'example.com',
      42,
      undefined,
      { url: 'https://example.com' },
      `https://example.com/${'a'.repeat(3000)}`,
    ]) {
      assert.throws(() => openExternalPayload(payload), Error, String(payload));
    }
  });

  test('consentDecided takes a consent request id and nothing else', () => {
    assert.equal(consentDecidedPayload(REQUEST_ID), REQUEST_ID);
    for (const payload of ['../x', `${REQUEST_ID}/`, '', 1, null]) assert.throws(() => consentDecidedPayload(payload), Error, String(payload));
  });
});
