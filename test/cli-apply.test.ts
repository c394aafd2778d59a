import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createClient, type StatusdeskClient } from '../client/index.ts';
import { CLI, type CliResult, newWorkspace, perTestCleanup, runCli, startTestService, type TestService } from './support/harness.ts';

/**
 * `statusdesk apply` and `statusdesk export` as a user runs them: the real command against the
 * real service, each test in a workspace of its own.
 */

const T = { timeout: 120_000 };

const clean: NodeJS.ProcessEnv = { SERVICE_API_KEY: undefined, SERVICE_API_URL: undefined, STATUSDESK_DATA_DIR: undefined };

let svc: TestService;
const cleanup = perTestCleanup();

before(async () => {
  svc = await startTestService();
});

after(() => svc?.stop());

interface Workspace {
  key: string;
  api: StatusdeskClient;
  /** `statusdesk ARGS` with this workspace's write key. */
  cli(args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
  /** `statusdesk ARGS` with `input` on its standard input. */
  stdin(args: string[], input: Buffer | string): Promise<CliResult>;
  /** Writes `text` to a file of the test and gives its path. */
  file(text: string): Promise<string>;
}

async function workspace(plan: 'scale' | 'hobby' = 'scale'): Promise<Workspace> {
  const { slug } = await newWorkspace(svc, 'apply', plan);
  const key = (await svc.createKey('write', slug)).secret;
  const folder = await cleanup.folder();
  let files = 0;
  return {
    key,
    api: createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: key }),
    cli: (args, env = {}) => runCli(args, { ...clean, SERVICE_API_KEY: key, SERVICE_API_URL: svc.apiUrl, ...env }),
    stdin: (args, input) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...clean, SERVICE_API_KEY: key, SERVICE_API_URL: svc.apiUrl } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        // The command may stop reading before the end: what it leaves unread is not an error of the test.
        child.stdin.on('error', () => {});
        child.stdin.end(input);
        const timer = setTimeout(() => child.kill(), 30_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code: code ?? 1, stdout, stderr });
        });
      }),
    async file(text) {
      const path = join(folder, `statusdesk-${++files}.yaml`);
      await writeFile(path, text);
      return path;
    },
  };
}

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, `exit code (stdout: ${result.stdout}, stderr: ${result.stderr})`);
  return result.stdout;
};

/** A unique slug: slugs are unique across workspaces. */
const uniqueSlug = () => `acme-${Math.random().toString(36).slice(2, 8)}`;

const threeMonitors = (slug: string) => `version: 1
monitors:
  - name: DB
    type: tcp
    target: db.internal:5432
    frequency: 5m
  - name: Backend
    type: grpc
    target: backend.internal:50051
    frequency: 1m
    tls: plaintext
    regions: [iad, fra]
  - name: API
    type: http
    target: https://api.internal.example/health
    frequency: 1m
    assertions: [{ type: status, comparator: equal, target: 200 }]
pages:
  - slug: ${slug}
    title: Acme status
    components:
      - name: API
        monitor: API
      - name: Database
        monitor: DB
        group: Storage
      - name: Office
`;

async function monitorsOf(api: StatusdeskClient) {
  const r = await api.monitors.listMonitors({ limit: 100 });
  return [...r.tcpMonitors, ...r.grpcMonitors, ...r.httpMonitors];
}

test('a dry run prints the plan and changes nothing; apply makes it; applying again changes nothing', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  const path = await ws.file(threeMonitors(slug));

  const dry = await ws.cli(['apply', '-f', path, '--dry-run']);
  assert.equal(
    ok(dry),
    [
      '+ monitor DB (tcp)',
      '+ monitor Backend (grpc)',
      '+ monitor API (http)',
      `+ page ${slug}`,
      `+ component API on page ${slug}`,
      `+ component Database on page ${slug}`,
      `+ component Office on page ${slug}`,
      '7 to create, 0 to update, 0 to delete, 0 unchanged',
      '',
    ].join('\n'),
  );
  assert.match(dry.stderr, /dry run: nothing was changed/);
  assert.equal((await monitorsOf(ws.api)).length, 0);

  const applied = await ws.cli(['apply', '-f', path]);
  assert.match(ok(applied), /7 to create, 0 to update, 0 to delete, 0 unchanged/);
  assert.match(applied.stderr, /applied 7 changes/);
  const monitors = await monitorsOf(ws.api);
  assert.deepEqual(monitors.map((m) => m.name).sort(), ['API', 'Backend', 'DB']);
  const { components } = await ws.api.pages.listPageComponents({ pageId: slug });
  const idOf = (name: string) => monitors.find((m) => m.name === name)!.id;
  assert.deepEqual(
    components.map((c) => [c.name, c.monitorId ?? null, c.group ?? null, c.position]),
    [
      ['API', idOf('API'), null, 0],
      ['Database', idOf('DB'), 'Storage', 1],
      ['Office', null, null, 2],
    ],
  );

  const again = await ws.cli(['apply', '-f', path, '--json']);
  const plan = JSON.parse(ok(again));
  assert.deepEqual(plan.summary, { create: 0, update: 0, delete: 0, unchanged: 7 });
  assert.ok(plan.changes.every((c: { action: string }) => c.action === 'unchanged'));
});

test('an edited field is the only one updated; --prune deletes what the file no longer has, and without it nothing is deleted', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  await ws.cli(['apply', '-f', await ws.file(threeMonitors(slug))]);
  const before = (await monitorsOf(ws.api)).find((m) => m.name === 'DB')!;

  const edited = await ws.file(threeMonitors(slug).replace('frequency: 5m', 'frequency: 1m'));
  const update = await ws.cli(['apply', '-f', edited]);
  assert.equal(ok(update), '~ monitor DB: frequency 5m → 1m\n0 to create, 1 to update, 0 to delete, 6 unchanged\n');
  const after = (await ws.api.monitors.getMonitor({ id: before.id })).monitor.value!;
  assert.equal(after.periodicity, 2 /* 1m */);
  assert.deepEqual(after.regions, before.regions);

  const smaller = threeMonitors(slug)
    .replace(/ {2}- name: Backend[\s\S]*?regions: \[iad, fra\]\n/, '')
    .replace('      - name: Office\n', '');
  const kept = await ws.cli(['apply', '-f', await ws.file(smaller)]);
  assert.match(ok(kept), /0 to create, 1 to update, 0 to delete, 4 unchanged/);
  assert.match(kept.stderr, /1 monitors and pages of the workspace are not in the file and are kept: --prune deletes them/);
  assert.equal((await monitorsOf(ws.api)).length, 3);
  assert.equal((await ws.api.pages.listPageComponents({ pageId: slug })).components.length, 3);

  // Off a terminal, deleting needs --yes: without it nothing changes.
  const unconfirmed = await ws.cli(['apply', '-f', await ws.file(smaller), '--prune']);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /refusing to delete without --yes when not on a terminal/);
  assert.equal((await monitorsOf(ws.api)).length, 3);

  const pruned = await ws.cli(['apply', '-f', await ws.file(smaller), '--prune', '--yes']);
  assert.equal(ok(pruned), `- component Office on page ${slug}\n- monitor Backend (grpc)\n0 to create, 0 to update, 2 to delete, 5 unchanged\n`);
  assert.deepEqual((await monitorsOf(ws.api)).map((m) => m.name).sort(), ['API', 'DB']);
  assert.deepEqual(
    (await ws.api.pages.listPageComponents({ pageId: slug })).components.map((c) => c.name),
    ['API', 'Database'],
  );
});

test('export writes the workspace in the file format, and applying it is a plan with nothing to do', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  await ws.cli(['apply', '-f', await ws.file(threeMonitors(slug))]);
  // Made by other means, with fields the first file leaves out.
  await ws.api.monitors.createHTTPMonitor({
    monitor: {
      name: 'Orders',
      url: 'https://orders.internal.example/',
      periodicity: 3,
      degraded: { seconds: 2n },
      headers: { 'x-team': 'orders', price$: '${NOT_A_REFERENCE}' },
      headerAssertions: [{ key: 'content-type', comparator: 1, target: 'json' }],
      tags: ['shop'],
    },
  });
  const page = await ws.api.pages.createStatusPage({ slug: uniqueSlug(), title: 'Shop', description: 'The shop' });
  await ws.api.pages.addPageComponent({ pageId: page.statusPage!.id, name: 'Checkout', position: 7, group: 'Shop' });

  const out = join(await cleanup.folder(), 'exported.yaml');
  const exported = await ws.cli(['export', '-o', out]);
  assert.equal(exported.code, 0, exported.stderr);
  const text = await readFile(out, 'utf8');
  assert.match(text, /^version: 1\nmonitors:\n {2}- name: DB\n {4}type: tcp\n {4}target: db.internal:5432\n {4}frequency: 5m\n/);
  assert.match(text, /tls: plaintext/);
  assert.match(text, /- \{type: header, key: content-type, comparator: contains, target: json\}/);
  assert.match(text, /degraded: 2000/);
  assert.match(text, /position: 7/);

  const plan = await ws.cli(['apply', '-f', out, '--prune']);
  assert.equal(ok(plan), '0 to create, 0 to update, 0 to delete, 10 unchanged\n');
  const stdout = await ws.cli(['export']);
  assert.equal(ok(stdout), text);
});

test('a bad file is reported whole, each problem at its place, with exit 2 and nothing changed', T, async () => {
  const ws = await workspace();
  const path = await ws.file(`version: 1
monitors:
  - name: A
    type: tcp
    target: grpc://a.internal:1
    frequency: 2m
  - name: B
    type: http
    target: https://b.internal/
    frequency: 1m
    timeout: 500000
    assertions: [{ type: status, comparator: equal, target: 900 }]
  - name: A
    type: grpc
    target: c.internal:1
    frequency: 1m
    regions: [iad]
    headers: { authorization: "\${UNSET_IN_THIS_TEST}" }
pages:
  - slug: x-page
    title: X
    components: [{ name: Q, monitor: Nowhere }]
`);
  const result = await ws.cli(['apply', '-f', path]);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.match(lines[0]!, /^statusdesk: .*statusdesk-1\.yaml: 6 problems, nothing was changed$/);
  assert.equal(lines.length, 7);
  for (const expected of [
    'monitors[0].frequency: must be one of 30s, 1m, 5m, 10m, 30m, 1h',
    'monitors[0].target: must be host:port without a scheme',
    'monitors[1].assertions[0].target: must be a status code from 100 to 599',
    'monitors[1].timeout: must be at most 120 s',
    'monitors[2].headers.authorization: the environment variable UNSET_IN_THIS_TEST is not set',
    'monitors[2].headers: is not a field of a grpc monitor',
  ]) {
    assert.ok(result.stderr.includes(`  ${expected}`), `missing ${expected} in ${result.stderr}`);
  }
  assert.equal((await monitorsOf(ws.api)).length, 0);

  const unknownMonitor = await ws.cli([
    'apply',
    '-f',
    await ws.file('version: 1\npages: [{ slug: x-page, title: X, components: [{ name: Q, monitor: Nowhere }] }]\n'),
  ]);
  assert.equal(unknownMonitor.code, 1);
  assert.match(unknownMonitor.stderr, /pages\[0\]\.components\[0\]\.monitor: no monitor named "Nowhere" in the file or the workspace/);
  assert.equal((await ws.api.pages.listStatusPages({})).statusPages.length, 0);
});

test('a refusal by the service stops the apply, which says what was applied and what was not, and exits 1', T, async () => {
  const ws = await workspace('hobby');
  const path = await ws.file(`version: 1
monitors:
  - { name: First, type: tcp, target: first.internal:1, frequency: 10m }
  - { name: Fast, type: tcp, target: fast.internal:1, frequency: 30s }
  - { name: Last, type: tcp, target: last.internal:1, frequency: 10m }
`);
  const result = await ws.cli(['apply', '-f', path]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /3 to create/);
  assert.match(
    result.stderr,
    /stopped at a refusal: 1 of 3 changes applied\n {2}applied {6}\+ monitor First \(tcp\)\n {2}refused {6}\+ monitor Fast \(tcp\)\n {2}not applied {2}\+ monitor Last \(tcp\)\n/,
  );
  assert.match(result.stderr, /statusdesk: .*30s/);
  assert.deepEqual(
    (await monitorsOf(ws.api)).map((m) => m.name),
    ['First'],
  );

  const json = JSON.parse((await ws.cli(['apply', '-f', path, '--json'])).stdout);
  assert.deepEqual(
    json.changes.map((c: { name: string; action: string; outcome?: string }) => [c.name, c.action, c.outcome ?? null]),
    [
      ['Fast', 'create', 'refused'],
      ['Last', 'create', 'not applied'],
      ['First', 'unchanged', null],
    ],
  );
  assert.match(json.error, /30s/);
});

test('${NAME} takes a header value from the environment, and [redacted] keeps the value the service holds', T, async () => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const ws = await workspace();
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
    const file = (authorization: string, frequency: string) => `version: 1
monitors:
  - name: Local
    type: http
    target: ${target}
    frequency: ${frequency}
    regions: [iad]
    headers: { authorization: "${authorization}" }
`;
    const created = await ws.cli(['apply', '-f', await ws.file(file('Bearer ${LOCAL_TOKEN}', '1m'))], { LOCAL_TOKEN: 'first-token' });
    assert.match(ok(created), /\+ monitor Local \(http\)/);
    const [monitor] = await monitorsOf(ws.api);
    await ws.api.monitors.triggerMonitor({ id: monitor!.id });
    assert.equal(seen.at(-1), 'Bearer first-token');

    const exported = ok(await ws.cli(['export']));
    assert.match(exported, /authorization: "\[redacted\]"/);
    const edited = await ws.cli(['apply', '-f', await ws.file(exported.replace('frequency: 1m', 'frequency: 5m'))]);
    assert.equal(ok(edited), '~ monitor Local: frequency 1m → 5m\n0 to create, 1 to update, 0 to delete, 0 unchanged\n');
    await ws.api.monitors.triggerMonitor({ id: monitor!.id });
    assert.equal(seen.at(-1), 'Bearer first-token');

    const fresh = await ws.cli(['apply', '-f', await ws.file(file('[redacted]', '1m').replace('name: Local', 'name: Other'))]);
    assert.equal(fresh.code, 1);
    assert.match(fresh.stderr, /monitors\[0\]\.headers\.authorization: \[redacted\] keeps the value the service holds, and it holds none here/);
  } finally {
    server.close();
  }
});

test(
  'a file over 16 MiB is refused before it is read, naming it, its size and the limit (exit 2); standard input is read only up to the limit',
  T,
  async () => {
    const ws = await workspace();
    // 50 MB that take no room on disk: reading them would take a minute and gigabytes, as it did.
    const path = await ws.file('');
    await truncate(path, 50 * 1024 * 1024);
    const started = Date.now();
    const big = await ws.cli(['apply', '-f', path]);
    assert.equal(big.code, 2, big.stderr);
    assert.equal(big.stdout, '');
    assert.equal(
      big.stderr.split('\n')[0],
      `statusdesk apply: ${path} is 50.0 MiB (52428800 bytes), over the 16 MiB a file to apply may hold: apply it in parts (without --prune, each part changes only what it names)`,
    );
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);

    const piped = await ws.stdin(['apply', '-f', '-'], Buffer.alloc(17 * 1024 * 1024, 'a'));
    assert.equal(piped.code, 2, piped.stderr);
    assert.match(piped.stderr, /^statusdesk apply: standard input holds more than 16\.0 MiB \(16777216 bytes\), over the 16 MiB a file to apply may hold/);
    // Below the limit, standard input is a file like any other.
    const small = await ws.stdin(['apply', '-f', '-', '--dry-run'], 'version: 1\nmonitors: [{ name: In, type: tcp, target: in.internal:1, frequency: 5m }]\n');
    assert.equal(ok(small), '+ monitor In (tcp)\n1 to create, 0 to update, 0 to delete, 0 unchanged\n');
    assert.equal((await monitorsOf(ws.api)).length, 0);
  },
);

test('a file nested thousands of levels deep, directly or through aliases, is a problem of the file at its place (exit 2)', T, async () => {
  const ws = await workspace();
  const head = 'version: 1\nmonitors:\n  - name: Deep\n    type: http\n    target: https://deep.example/\n    frequency: 1m\n    headers:\n';
  // A map in a map, 3,000 times, under the monitor's headers (lines 8 and on, each one space further in).
  const nested = head + Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(6 + i)}k${i}:\n`).join('');
  const deep = await ws.cli(['apply', '-f', await ws.file(nested)]);
  assert.equal(deep.code, 2, deep.stderr);
  // The file, monitors, the monitor and headers are 4 levels: the map that holds k61 (line 69) is the 65th.
  assert.match(
    deep.stderr,
    /: 1 problem, nothing was changed\n {2}line 69, column 68: nests more than 64 maps and lists deep; a file of monitors and pages needs 5\n$/,
  );

  // Each anchor nests 50 lists and holds the one before: the aliases nest the file 400 deep.
  const chain = Array.from({ length: 8 }, (_, i) => `x${i}: &a${i} ${'['.repeat(50)}${i === 0 ? '' : `*a${i - 1}`}${']'.repeat(50)}`).join('\n');
  const aliased = await ws.cli(['apply', '-f', await ws.file(`version: 1\n${chain}\n`)]);
  assert.equal(aliased.code, 2, aliased.stderr);
  assert.match(aliased.stderr, /\n {2}line 3, column 59: \*a0 nests more than 64 maps and lists deep; a file of monitors and pages needs 5\n$/);

  const cycle = await ws.cli(['apply', '-f', await ws.file('version: 1\nmonitors: &all [*all]\n')]);
  assert.equal(cycle.code, 2, cycle.stderr);
  assert.match(cycle.stderr, /\n {2}line 2, column 17: \*all refers to a map or list it is part of\n$/);
  assert.equal((await monitorsOf(ws.api)).length, 0);

  // Anchors and aliases within the bound are YAML as usual.
  const shared = await ws.cli([
    'apply',
    '-f',
    await ws.file(`version: 1
monitors:
  - { name: A, type: tcp, target: &db db.internal:5432, frequency: &often 1m, tags: &tags [db, prod] }
  - { name: B, type: tcp, target: *db, frequency: *often, tags: *tags }
`),
    '--dry-run',
  ]);
  assert.equal(ok(shared), '+ monitor A (tcp)\n+ monitor B (tcp)\n2 to create, 0 to update, 0 to delete, 0 unchanged\n');
});

test(
  "${NAME} is read only in credential values, and never names the service's own credentials: each other use is a problem naming the variable and the field (exit 2)",
  T,
  async () => {
    const ws = await workspace();
    const env = { API_HOST: 'api.internal.example', LOCAL_TOKEN: 'local-token', STATUSDESK_RUNNER_TOKEN: 'svc_run_not-for-files' };
    const refused = await ws.cli(
      [
        'apply',
        '-f',
        await ws.file(`version: 1
monitors:
  - name: API
    type: http
    target: https://\${API_HOST}/health
    frequency: 1m
    method: POST
    body: "\${LOCAL_TOKEN}"
    headers: { authorization: "Bearer \${SERVICE_API_KEY}", x-api-token: "\${STATUSDESK_RUNNER_TOKEN}", x-team: "\${LOCAL_TOKEN}" }
pages:
  - slug: ${uniqueSlug()}
    title: "\${LOCAL_TOKEN}"
`),
      ],
      env,
    );
    assert.equal(refused.code, 2, refused.stderr);
    const elsewhere = (name: string) =>
      `\${${name}} is read from the environment only in credential values (headers, metadata and OTLP headers named like authorization, cookie, token, secret, api-key, …), which the service seals: write the value itself here, or $\${${name}} for the text \${${name}}`;
    const own = (name: string) => `\${${name}} is a credential or setting of Statusdesk itself, which a file never sends to a monitored target`;
    assert.deepEqual(refused.stderr.trimEnd().split('\n').slice(1).sort(), [
      `  monitors[0].body: ${elsewhere('LOCAL_TOKEN')}`,
      `  monitors[0].headers.authorization: ${own('SERVICE_API_KEY')}`,
      `  monitors[0].headers.x-api-token: ${own('STATUSDESK_RUNNER_TOKEN')}`,
      `  monitors[0].headers.x-team: ${elsewhere('LOCAL_TOKEN')}`,
      `  monitors[0].target: ${elsewhere('API_HOST')}`,
      `  pages[0].title: ${elsewhere('LOCAL_TOKEN')}`,
    ]);
    assert.equal(JSON.stringify(refused).includes(ws.key), false, 'the key must not be in the output');
    assert.equal((await monitorsOf(ws.api)).length, 0);

    // Credential values of gRPC metadata and OTLP headers take references too; $$ writes a $.
    const applied = await ws.cli(
      [
        'apply',
        '-f',
        await ws.file(`version: 1
monitors:
  - name: Backend
    type: grpc
    target: backend.internal:50051
    frequency: 1m
    regions: [iad]
    description: "costs $\${LOCAL_TOKEN}"
    metadata: { authorization: "\${LOCAL_TOKEN}" }
    openTelemetry: { endpoint: "https://otel.internal.example/v1/metrics", headers: { x-api-key: "\${LOCAL_TOKEN}-otlp" } }
`),
      ],
      env,
    );
    assert.match(ok(applied), /\+ monitor Backend \(grpc\)/);
    const [backend] = (await ws.api.monitors.listMonitors({})).grpcMonitors;
    assert.equal(backend!.description, 'costs ${LOCAL_TOKEN}');
    assert.deepEqual(backend!.metadata, { authorization: '[redacted]' }, 'a credential value the service seals');
  },
);
