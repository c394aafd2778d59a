/**
 * A status page after its creation: its title, slug and description edited through the RPC API
 * (the old address forwarding to the new one), its branding (logo, accent colour, link back)
 * stored and rendered on the public page and its static copy, and its custom domain served at `/`
 * to real HTTP requests on loopback carrying that Host, which reach nothing else of the service.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, type StatusdeskClient } from '../client/index.ts';
import { readDesired, renderFile } from '../server/cli/config-as-code/file-format.ts';
import { makePlan, readWorkspace, workspaceFile } from '../server/cli/config-as-code/plan.ts';
import { exportStaticPage } from '../server/public/static-export.ts';
import { assertCode, assertViolation, jsonOf, newWorkspace, runCli, startTestService, tempDir, type TestService } from './support/harness.ts';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** One HTTP/1.1 request with exactly the headers given, Host included (fetch cannot choose Host). */
function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, setHost: false, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

/** The hash a Content-Security-Policy names for each inline stylesheet of `html`. */
const styleHashes = (html: string) =>
  [...html.matchAll(/<style>(.*?)<\/style>/gs)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.stop();
});

/** A workspace of its own with a write client, and a page in it. */
async function pageOf(prefix: string): Promise<{ client: StatusdeskClient; key: string; id: string; slug: string }> {
  const ws = await newWorkspace(svc, prefix);
  const key = (await svc.createKey('write', ws.slug)).secret;
  const client = createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: key, env: {} });
  const slug = `${ws.slug}-page`;
  const { statusPage } = await client.pages.createStatusPage({ slug, title: 'Acme status', description: 'Our services' });
  return { client, key, id: statusPage!.id, slug };
}

describe('editing a page after its creation', () => {
  test('title, slug and description change through UpdateStatusPage; the old address forwards and stays the page’s', async () => {
    const { client, id, slug } = await pageOf('edit');
    const newSlug = `${slug}-renamed`;
    const { statusPage } = await client.pages.updateStatusPage({ id, title: 'Acme, Inc. status', slug: newSlug, description: 'Every service we run' });
    assert.equal(statusPage!.title, 'Acme, Inc. status');
    assert.equal(statusPage!.slug, newSlug);
    assert.equal(statusPage!.description, 'Every service we run');
    assert.equal(statusPage!.formerSlug, slug);
    assert.match(statusPage!.url, new RegExp(`/status/${newSlug}$`));

    const page = await svc.api(`/status/${newSlug}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>Acme, Inc\. status<\/h1>/);
    // Links already shared keep working: the old address forwards, its subpaths too.
    const forwarded = await svc.api(`/status/${slug}/summary.json?x=1`, { redirect: 'manual' });
    assert.equal(forwarded.status, 302);
    assert.equal(forwarded.headers.get('location'), `/status/${newSlug}/summary.json?x=1`);
    // ... and no other page may take the old slug meanwhile, in any workspace.
    const other = await pageOf('edit-other');
    const taken = await assertCode(other.client.pages.updateStatusPage({ id: other.id, slug }), Code.AlreadyExists, /^slug: /);
    assert.match(taken.rawMessage, /still forwards to it/);
    await assertCode(other.client.pages.createStatusPage({ slug, title: 'Squatter' }), Code.AlreadyExists, /^slug: /);
    // The page itself may take it back.
    const back = (await client.pages.updateStatusPage({ id, slug })).statusPage!;
    assert.equal(back.slug, slug);
    assert.equal(back.formerSlug, newSlug);
  });

  test('bad input is refused naming the field, and nothing of the request is stored', async () => {
    const { client, id, slug } = await pageOf('refuse');
    const before = (await client.pages.getStatusPage({ page: id })).statusPage!;
    await assertViolation(client.pages.updateStatusPage({ id, slug: 'Not A Slug', title: 'Kept?' }), 'slug', /lower-case letters, digits or hyphens/);
    await assertViolation(client.pages.updateStatusPage({ id, title: 'x'.repeat(201), description: 'Kept?' }), 'title', /at most 200 characters/);
    await assertViolation(client.pages.updateStatusPage({ id, title: ' ', accentColor: '#000000' }), 'title', /required|visible/);
    await assertViolation(client.pages.updateStatusPage({ id, description: 'x'.repeat(2001) }), 'description', /at most 2000/);
    const other = await pageOf('refuse-other');
    const taken = await assertCode(client.pages.updateStatusPage({ id, slug: other.slug, title: 'Kept?' }), Code.AlreadyExists);
    assert.match(taken.rawMessage, new RegExp(`^slug: "${other.slug}" is already used`));
    const after = (await client.pages.getStatusPage({ page: id })).statusPage!;
    assert.deepEqual(
      { slug: after.slug, title: after.title, description: after.description, accentColor: after.accentColor, updatedAt: after.updatedAt },
      { slug, title: before.title, description: before.description, accentColor: undefined, updatedAt: before.updatedAt },
    );
  });
});

describe('branding', () => {
  test('a logo, an accent colour and a link back are stored and shown on the public page and its static copy', async () => {
    const { client, id, slug } = await pageOf('brand');
    const { statusPage } = await client.pages.updateStatusPage({ id, accentColor: '#FFD700', websiteUrl: 'https://www.acme.example/', logo: PNG });
    assert.equal(statusPage!.accentColor, '#ffd700', 'stored lower-case');
    assert.equal(statusPage!.websiteUrl, 'https://www.acme.example/');
    assert.equal(statusPage!.logoType, 'image/png');
    assert.deepEqual(Buffer.from(statusPage!.logo!), PNG);

    const answer = await svc.api(`/status/${slug}`);
    const html = await answer.text();
    // Gold is light: its text is black, at 15.0:1 (white would be 1.4:1).
    assert.match(html, /\.brand\{background:#ffd700;color:#000000\}/);
    assert.ok(html.includes(`<img src="data:image/png;base64,${PNG.toString('base64')}" alt="">`), 'the logo is embedded as a data: image of its type');
    assert.match(html, /<a href="https:\/\/www\.acme\.example\/" rel="noopener">Back to acme\.example<\/a>/);
    // The band's stylesheet is allowed by its hash, and the policy still allows no other source.
    const csp = answer.headers.get('content-security-policy')!;
    for (const hash of styleHashes(html)) assert.ok(csp.includes(hash), `the policy allows ${hash}`);
    assert.match(csp, /img-src data:(;|$)/);

    // A dark accent gets white text.
    await client.pages.updateStatusPage({ id, accentColor: '#1d4ed8' });
    assert.match(await (await svc.api(`/status/${slug}`)).text(), /\.brand\{background:#1d4ed8;color:#ffffff\}/);

    // The static copy carries the same band and a policy of its own that allows it.
    const dir = await tempDir();
    try {
      await exportStaticPage(await svc.services.publicPages.view(slug), dir.path);
      const copy = await readFile(join(dir.path, 'index.html'), 'utf8');
      assert.match(copy, /class="brand"/);
      const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(copy)![1]!.replaceAll('&#39;', "'");
      for (const hash of styleHashes(copy)) assert.ok(meta.includes(hash), `the static policy allows ${hash}`);
    } finally {
      await dir.remove();
    }

    // Cleared with empty values: the page is plain again.
    const cleared = (await client.pages.updateStatusPage({ id, accentColor: '', websiteUrl: '', logo: new Uint8Array() })).statusPage!;
    assert.deepEqual([cleared.accentColor, cleared.websiteUrl, cleared.logo], [undefined, undefined, undefined]);
    assert.doesNotMatch(await (await svc.api(`/status/${slug}`)).text(), /class="brand"/);
  });

  test('a bad colour, link or logo is refused naming the field, and nothing is stored', async () => {
    const { client, id } = await pageOf('brand-bad');
    await assertViolation(client.pages.updateStatusPage({ id, accentColor: 'red', title: 'Kept?' }), 'accentColor', /#rrggbb/);
    await assertViolation(client.pages.updateStatusPage({ id, accentColor: '#12345' }), 'accentColor', /#rrggbb/);
    await assertViolation(client.pages.updateStatusPage({ id, websiteUrl: 'javascript:alert(1)' }), 'websiteUrl', /http:\/\/ or https:\/\//);
    await assertViolation(client.pages.updateStatusPage({ id, websiteUrl: 'acme.example' }), 'websiteUrl', /absolute/);
    await assertViolation(client.pages.updateStatusPage({ id, logo: SVG }), 'logo', /PNG, JPEG, WebP or GIF.*SVG/);
    await assertViolation(client.pages.updateStatusPage({ id, logo: Buffer.concat([PNG, Buffer.alloc(64 * 1024)]) }), 'logo', /at most 64 KB/);
    await assertViolation(client.pages.createStatusPage({ slug: 'brand-bad-new', title: 'New', accentColor: 'blue' }), 'accentColor', /#rrggbb/);
    const page = (await client.pages.getStatusPage({ page: id })).statusPage!;
    assert.deepEqual([page.title, page.accentColor, page.websiteUrl, page.logo], ['Acme status', undefined, undefined, undefined]);
    await assertCode(client.pages.getStatusPage({ page: 'brand-bad-new' }), Code.NotFound);
  });
});

describe('branding with the command', () => {
  test('`pages update` sets the colour, link, logo file and domain, shows them, and names the flag of a refused one', { timeout: 60_000 }, async () => {
    const { client, key, id, slug } = await pageOf('cli');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: `${svc.apiUrl}/rpc`, STATUSDESK_DATA_DIR: undefined, STATUSDESK_PUBLIC_URL: undefined };
    const dir = await tempDir();
    try {
      const logo = join(dir.path, 'logo.png');
      await writeFile(logo, PNG);
      const args = [
        'pages',
        'update',
        slug,
        '--accent-color',
        '#112233',
        '--website',
        'https://acme.example/',
        '--logo',
        logo,
        '--domain',
        `${slug}.example.test`,
      ];
      const shown = jsonOf(await runCli([...args, '--json'], env));
      assert.deepEqual(
        [shown.accentColor, shown.websiteUrl, shown.logo, shown.customDomain],
        ['#112233', 'https://acme.example/', { type: 'image/png', bytes: PNG.length }, `${slug}.example.test`],
      );
      assert.deepEqual(Buffer.from((await client.pages.getStatusPage({ page: id })).statusPage!.logo!), PNG);
      const refused = await runCli(['pages', 'update', slug, '--accent-color', 'teal'], env);
      // A refused value is a usage error of the flag that gave it (exit 2), as for every command.
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /--accent-color/);
      assert.match(refused.stderr, /#rrggbb/);
      const cleared = jsonOf(await runCli(['pages', 'update', slug, '--logo', '', '--domain', '', '--json'], env));
      assert.deepEqual([cleared.logo, cleared.customDomain, cleared.accentColor], [null, null, '#112233']);
    } finally {
      await dir.remove();
    }
  });
});

describe('branding in the configuration file', () => {
  test('`export` writes a page’s branding and domain, and `apply -f` makes them again elsewhere, then finds nothing to change', async () => {
    const { client, id, slug } = await pageOf('file');
    await client.pages.updateStatusPage({ id, accentColor: '#0a6b2d', websiteUrl: 'https://acme.example/', customDomain: `${slug}.example.test`, logo: PNG });
    const text = renderFile([], workspaceFile(await readWorkspace(client)).pages);
    assert.match(text, /accentColor: "?#0a6b2d"?/);
    assert.match(text, new RegExp(`customDomain: ${slug}\\.example\\.test`));
    assert.ok(text.includes(`logo: data:image/png;base64,${PNG.toString('base64')}`), text);

    // Applied to another workspace, with the domain moved to a name of its own (one name, one page).
    const target = await pageOf('file-target');
    await target.client.pages.deleteStatusPage({ id: target.id });
    const moved = text.replace(`slug: ${slug}`, `slug: ${slug}-copy`).replace(`customDomain: ${slug}.example.test`, `customDomain: ${slug}-copy.example.test`);
    const plan = makePlan(readDesired(moved, {}), await readWorkspace(target.client), false);
    for (const step of plan.steps) await step.run(target.client, new Map());
    const copy = (await target.client.pages.getStatusPage({ page: `${slug}-copy` })).statusPage!;
    assert.deepEqual(
      [copy.accentColor, copy.websiteUrl, copy.customDomain, copy.logoType, Buffer.from(copy.logo!)],
      ['#0a6b2d', 'https://acme.example/', `${slug}-copy.example.test`, 'image/png', PNG],
    );
    assert.deepEqual(makePlan(readDesired(moved, {}), await readWorkspace(target.client), false).steps, [], 'applied again, nothing changes');

    // A file without branding takes it away; the plan names the logo by type and size.
    const plain = moved
      .split('\n')
      .filter((line) => !/^\s*(accentColor|websiteUrl|customDomain|logo):/.test(line))
      .join('\n');
    const [step] = makePlan(readDesired(plain, {}), await readWorkspace(target.client), false).steps;
    assert.deepEqual(
      step!.change.fields!.find((f) => f.field === 'logo'),
      { field: 'logo', from: `image/png, ${PNG.length} bytes`, to: null },
    );
    await step!.run(target.client, new Map());
    const cleared = (await target.client.pages.getStatusPage({ page: `${slug}-copy` })).statusPage!;
    assert.deepEqual([cleared.accentColor, cleared.websiteUrl, cleared.customDomain, cleared.logo], [undefined, undefined, undefined, undefined]);
  });
});

describe('a custom domain', () => {
  test('the Host status.example.test is served its page at /, and reaches nothing else', async () => {
    const { client, id, slug } = await pageOf('domain');
    const domain = `status-${slug}.example.test`;
    const { statusPage } = await client.pages.updateStatusPage({ id, customDomain: domain.toUpperCase() });
    assert.equal(statusPage!.customDomain, domain, 'stored lower-case');

    const port = svc.ports.api;
    const root = await rawRequest(port, '/', { host: domain });
    assert.equal(root.status, 200);
    assert.match(root.headers['content-type'] ?? '', /^text\/html/);
    assert.match(root.body, /<h1>Acme status<\/h1>/);
    // The port a proxy forwards does not matter, nor the case; the page's own paths work there too.
    assert.equal((await rawRequest(port, '/', { host: `${domain.toUpperCase()}:8443` })).status, 200);
    assert.equal((await rawRequest(port, `/status/${slug}/summary.json`, { host: domain })).status, 200);
    // A browser on the page's domain may post its subscription form there.
    assert.notEqual((await rawRequest(port, '/', { host: domain, origin: `https://${domain}` })).status, 403);

    const key = (await svc.createKey('write')).secret;
    for (const path of [
      '/v1/whoami',
      '/api/workspaces',
      '/mcp',
      '/oauth/authorize',
      '/.well-known/oauth-authorization-server',
      '/openapi.json',
      '/status/other-page',
      '/rpc/status_page.v1.StatusPageService/ListStatusPages',
    ]) {
      const refused = await rawRequest(port, path, { host: domain, 'x-service-key': key, accept: 'application/json' });
      assert.equal(refused.status, 403, `${path} under ${domain}`);
      assert.match(refused.body, new RegExp(`host ${domain.replace(/\./g, '\\.')} serves one status page`));
    }
    const rpc = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/status_page.v1.StatusPageService/ListStatusPages', method: 'POST', setHost: false, agent: false },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.setHeader('host', domain);
      req.setHeader('content-type', 'application/json');
      req.setHeader('x-service-key', key);
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(rpc, 403, 'the RPC API is not under the page’s domain');
    // The dashboard's port knows no page hosts at all.
    for (const path of ['/', '/pages', '/oauth/consent', '/api/workspaces']) {
      assert.equal((await rawRequest(svc.ports.dashboard, path, { host: domain })).status, 403, `dashboard ${path} under ${domain}`);
    }
    // The page's domain is no origin of the API either.
    assert.equal((await rawRequest(port, '/v1/whoami', { host: new URL(svc.apiUrl).host, origin: `https://${domain}`, 'x-service-key': key })).status, 403);

    // Removed, the name is nobody's.
    await client.pages.updateStatusPage({ id, customDomain: '' });
    assert.equal((await rawRequest(port, '/', { host: domain })).status, 403);
  });

  test('a custom domain must be a DNS name, unique across pages', async () => {
    const { client, id } = await pageOf('domain-bad');
    for (const bad of [
      '127.0.0.1',
      '[::1]',
      'status.example.com:8080',
      'localhost',
      'https://status.example.com',
      'status.example.com/x',
      'bad_name.example.com',
      '-x.example.com',
      'example.123',
    ]) {
      await assertViolation(client.pages.updateStatusPage({ id, customDomain: bad, title: 'Kept?' }), 'customDomain', /DNS name|host name/);
    }
    const first = await pageOf('domain-first');
    const name = `taken-${first.slug}.example.test`;
    await first.client.pages.updateStatusPage({ id: first.id, customDomain: name });
    // In another workspace too: a name can serve one page only.
    const error = await assertCode(client.pages.updateStatusPage({ id, customDomain: name, title: 'Kept?' }), Code.AlreadyExists);
    assert.match(error.rawMessage, /^customDomain: /);
    const page = (await client.pages.getStatusPage({ page: id })).statusPage!;
    assert.deepEqual([page.title, page.customDomain], ['Acme status', undefined]);
  });
});
