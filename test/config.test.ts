/**
 * The settings of `statusdesk serve` (server/config.ts): each one's rule, its errors naming the
 * setting, its default, and the reference's settings table, which must say what the schema says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { DEFAULT_DASHBOARD_PORT, DEFAULT_PORT, originSetting, serviceConfig, settingsTable } from '../server/config.ts';
import { AppError } from '../server/errors.ts';

const config = (env: NodeJS.ProcessEnv, flags: Parameters<typeof serviceConfig>[0] = { dataDir: 'unused' }) => serviceConfig(flags, env);

/** Refused as a VALIDATION error whose message starts with the setting's name and `message`. */
function refuses(name: string, run: () => unknown, message: RegExp | string = ''): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'VALIDATION');
    assert.ok(error.message.startsWith(`${name}: `), error.message);
    if (typeof message === 'string') assert.ok(error.message.startsWith(`${name}: ${message}`), error.message);
    else assert.match(error.message, message);
    return true;
  });
}

describe('settings', () => {
  test('the reference lists every setting as the schema says it', () => {
    const reference = readFileSync(new URL('../docs/reference/cli.md', import.meta.url), 'utf8');
    const start = reference.indexOf('| Setting | Meaning | Default |');
    assert.ok(start >= 0, 'docs/reference/cli.md has a settings table');
    const end = reference.indexOf('\n\n', start);
    assert.equal(
      reference.slice(start, end === -1 ? undefined : end),
      settingsTable(),
      'docs/reference/cli.md: replace the settings table with settingsTable() of server/config.ts',
    );
  });

  test('unset, every setting takes its default', () => {
    const c = serviceConfig({}, {});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, DEFAULT_PORT);
    assert.equal(c.dashboardPort, DEFAULT_DASHBOARD_PORT);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.scheduleChecks, true);
    for (const unset of [
      'oauthIssuer',
      'dashboardUrl',
      'docsUrl',
      'publicUrl',
      'smtpUrl',
      'mailFrom',
      'rateLimitPerMinute',
      'checkConcurrency',
      'otlpIntervalMs',
      'oauthRedirectDomains',
    ] as const) {
      assert.equal(c[unset], undefined, unset);
    }
  });

  test('the data folder is --data-dir, then STATUSDESK_DATA_DIR, then the platform folder', () => {
    assert.equal(serviceConfig({ dataDir: '/flag' }, { STATUSDESK_DATA_DIR: '/env' }).dataDir, '/flag');
    assert.equal(serviceConfig({}, { STATUSDESK_DATA_DIR: '/env' }).dataDir, '/env');
    assert.equal(serviceConfig({ dataDir: '' }, { STATUSDESK_DATA_DIR: '/env' }).dataDir, '/env');
    assert.match(serviceConfig({}, {}).dataDir, /statusdesk/);
  });

  test('ports are 0 to 65535, refused naming the flag', () => {
    assert.equal(config({}, { port: '0', dashboardPort: '65535' }).port, 0);
    assert.equal(config({}, { port: '0', dashboardPort: '65535' }).dashboardPort, 65535);
    refuses('--port', () => config({}, { port: '65536' }), 'must be a port number from 0 to 65535, got 65536');
    refuses('--dashboard-port', () => config({}, { dashboardPort: 'x' }), 'must be a port number from 0 to 65535, got x');
  });

  test('STATUSDESK_CHECKS, STATUSDESK_CHECK_CONCURRENCY and OTEL_METRIC_EXPORT_INTERVAL', () => {
    assert.equal(config({}).scheduleChecks, true, 'checks are on by default');
    for (const off of ['off', 'false', '0']) assert.equal(config({ STATUSDESK_CHECKS: off }).scheduleChecks, false);
    for (const on of ['on', 'true', '1']) assert.equal(config({ STATUSDESK_CHECKS: on }).scheduleChecks, true);
    assert.equal(config({ STATUSDESK_CHECK_CONCURRENCY: '3' }).checkConcurrency, 3);
    assert.equal(config({}).checkConcurrency, undefined);
    assert.equal(config({ OTEL_METRIC_EXPORT_INTERVAL: '5000' }).otlpIntervalMs, 5_000);
    for (const [name, value] of [
      ['STATUSDESK_CHECKS', 'maybe'],
      ['STATUSDESK_CHECK_CONCURRENCY', '0'],
      ['STATUSDESK_CHECK_CONCURRENCY', 'many'],
      ['STATUSDESK_CHECK_CONCURRENCY', '-1'],
      ['OTEL_METRIC_EXPORT_INTERVAL', '1.5'],
    ] as const) {
      refuses(name, () => config({ [name]: value }));
    }
  });

  test('STATUSDESK_RATE_LIMIT is a whole number of calls per minute', () => {
    assert.equal(serviceConfig({}, { STATUSDESK_RATE_LIMIT: '30' }).rateLimitPerMinute, 30);
    assert.equal(serviceConfig({}, { STATUSDESK_RATE_LIMIT: '0' }).rateLimitPerMinute, 0);
    assert.equal(serviceConfig({}, {}).rateLimitPerMinute, undefined);
    assert.throws(() => serviceConfig({}, { STATUSDESK_RATE_LIMIT: 'lots' }), /STATUSDESK_RATE_LIMIT: must be a whole number/);
  });

  test('the mail relay is an smtp:// or smtps:// URL, kept as given', () => {
    assert.equal(config({ STATUSDESK_SMTP_URL: 'smtps://user:pw@smtp.example.com:465' }).smtpUrl, 'smtps://user:pw@smtp.example.com:465');
    assert.equal(config({ STATUSDESK_SMTP_URL: '', STATUSDESK_MAIL_FROM: '' }).smtpUrl, undefined);
    assert.equal(config({ STATUSDESK_MAIL_FROM: 'Status <status@example.com>' }).mailFrom, 'Status <status@example.com>');
    refuses('STATUSDESK_SMTP_URL', () => config({ STATUSDESK_SMTP_URL: 'https://smtp.example.com' }), 'must be an smtp:// or smtps:// URL');
  });

  test('redirect domains are lower-case domain names separated by commas', () => {
    assert.deepEqual(config({ STATUSDESK_OAUTH_REDIRECT_DOMAINS: ' Claude.ai, cursor.com ,' }).oauthRedirectDomains, ['claude.ai', 'cursor.com']);
    assert.deepEqual(config({ STATUSDESK_OAUTH_REDIRECT_DOMAINS: '' }).oauthRedirectDomains, [], 'set but empty allows none');
    refuses('STATUSDESK_OAUTH_REDIRECT_DOMAINS', () => config({ STATUSDESK_OAUTH_REDIRECT_DOMAINS: 'claude.ai,not a domain' }), /; got not a domain$/);
  });

  test('the first bad setting is the one named', () => {
    refuses('--port', () => config({ OAUTH_ISSUER: 'nope', STATUSDESK_CHECKS: 'maybe' }, { port: 'x' }));
    refuses('OAUTH_ISSUER', () => config({ OAUTH_ISSUER: 'nope', STATUSDESK_CHECKS: 'maybe' }));
  });
});

describe('address settings are validated', () => {
  test('an issuer or dashboard address with a path, or not http(s), is refused naming the setting', () => {
    assert.throws(() => config({ OAUTH_ISSUER: 'http://statusdesk.localhost:4000/mcp' }), { code: 'VALIDATION', message: /^OAUTH_ISSUER: must be an origin/ });
    assert.throws(() => config({ OAUTH_ISSUER: 'ftp://statusdesk.localhost' }), { code: 'VALIDATION', message: /^OAUTH_ISSUER: must be an http or https URL/ });
    assert.throws(() => config({ OAUTH_ISSUER: 'statusdesk.localhost:4000' }), { code: 'VALIDATION', message: /^OAUTH_ISSUER: must be an http or https URL/ });
    assert.throws(() => config({ DASHBOARD_URL: 'http://dash.localhost:4001/?x=1' }), { code: 'VALIDATION', message: /^DASHBOARD_URL: must be an origin/ });
  });

  test('a trailing slash and upper-case host are normalised to the origin', () => {
    const c = config({ OAUTH_ISSUER: 'http://StatusDesk.localhost:4000/', DASHBOARD_URL: 'http://DASH.localhost:4001' });
    assert.equal(c.oauthIssuer, 'http://statusdesk.localhost:4000');
    assert.equal(c.dashboardUrl, 'http://dash.localhost:4001');
  });

  test('unset or empty settings fall back to the loopback defaults', () => {
    const c = config({ OAUTH_ISSUER: '', DASHBOARD_URL: undefined });
    assert.equal(c.oauthIssuer, undefined);
    assert.equal(c.dashboardUrl, undefined);
  });

  test('an address setting of a command follows the same rule under its own name', () => {
    assert.equal(originSetting('--public-url', 'https://Status.Example.com/'), 'https://status.example.com');
    assert.equal(originSetting('--public-url', undefined), undefined);
    refuses('--public-url', () => originSetting('--public-url', 'https://status.example.com/page'), 'must be an origin without a path');
  });
});
