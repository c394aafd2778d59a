import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Db, openDatabase } from '../server/db/open.ts';
import { openPostgres } from '../server/db/postgres.ts';
import { writeTransaction } from '../server/db/transaction.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { VERSION } from '../server/package-root.ts';
import { createServices, type Services } from '../server/services.ts';
import { storedCheck } from './support/checks.ts';
import { rejectsWith, tempDir } from './support/harness.ts';
import { sharedPostgres, withoutPostgres } from './support/postgres.ts';

/** The engines the domain runs on: each makes a fresh database of a data folder, and gives what opens it (again). */
const engines: { name: string; skip: string | false; create(dataDir: string): Promise<() => Promise<Db>> }[] = [
  { name: 'SQLite', skip: false, create: async (dataDir) => () => openDatabase(dataDir) },
  {
    name: 'PostgreSQL',
    skip: withoutPostgres,
    async create(dataDir) {
      const url = await (await sharedPostgres()).createDatabase();
      return () => openPostgres(url, dataDir);
    },
  },
];

for (const engine of engines) {
  describe(`the domain services on ${engine.name}`, { skip: engine.skip }, () => {
    let dataDir: Awaited<ReturnType<typeof tempDir>>;
    let open: () => Promise<Db>;
    let db: Db;
    let services: Services;
    let owner: Actor;
    before(async () => {
      dataDir = await tempDir();
      open = await engine.create(dataDir.path);
      db = await open();
      services = createServices(db);
      owner = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
    });
    after(async () => {
      services?.close();
      await db?.destroy();
      await dataDir?.remove();
    });

    let slugs = 0;
    const newWorkspace = async () =>
      Number((await services.workspaces.create(owner, { name: 'Quokka Quarters', slug: `quokka-${++slugs}`, plan: 'scale' })).id);
    const tcp = (name: string, more: Record<string, unknown> = {}) => ({ name, uri: '127.0.0.1:9', periodicity: '30s', regions: ['fra'], ...more });

    test('the owner and their personal workspace are made once', async () => {
      assert.equal(await ensureOwner(db), (owner as { userId: number }).userId);
      const workspaces = await services.workspaces.list(owner);
      assert.equal(workspaces.filter((w) => w.slug === 'personal').length, 1);
    });

    test('a workspace is created with its owner, and a repeated slug is a conflict naming the field', async () => {
      const workspace = await newWorkspace();
      const [created] = (await services.workspaces.list(owner)).filter((w) => Number(w.id) === workspace);
      assert.equal(created?.name, 'Quokka Quarters');
      await assert.rejects(
        services.workspaces.create(owner, { name: 'Again', slug: created.slug }),
        (error: unknown) => error instanceof AppError && error.code === 'CONFLICT' && error.violations[0]?.field === 'slug',
      );
    });

    test('a member is added as a new user', async () => {
      const member = await services.members.add(owner, await newWorkspace(), { name: 'Numbat', role: 'admin' });
      assert.equal((await services.users.get(Number(member.userId)))?.name, 'Numbat');
    });

    test('changes are audited and the audit log reads them back', async () => {
      const { auditLogs } = await services.auditLog.list(owner, await newWorkspace());
      assert.deepEqual(
        auditLogs.map((e) => e.action),
        ['workspace.create'],
      );
    });

    test('a status page is created and read back by its slug', async () => {
      const workspace = await newWorkspace();
      const page = await services.pages.create(owner, workspace, { slug: `bilby-${slugs}`, title: 'Bilby Status' });
      assert.equal((await services.pages.get(owner, workspace, page.slug)).title, 'Bilby Status');
    });

    test('ids up to 15 digits, as the domain takes them, name no record rather than fail', async () => {
      const workspace = await newWorkspace();
      for (const lookup of [
        () => services.pages.get(owner, workspace, '999999999999999'),
        () => services.monitors.update(owner, workspace, 'tcp', '999999999999999', { name: 'x' }),
      ]) {
        await rejectsWith(lookup(), 'NOT_FOUND');
      }
    });

    // SQLite's driver waits for the write lock synchronously, holding up the process: two
    // connections of one process cannot take turns there (two processes do).
    const onePoolOrTwo = { skip: engine.name === 'SQLite' && 'two connections of one process take turns on PostgreSQL only' };
    test('write transactions take turns, on one pool or two, so what one reads holds until it commits', onePoolOrTwo, async () => {
      const other = await open();
      try {
        // Each reads how many users there are, waits, and adds one named by that count: taking
        // turns, no two names are the same.
        const addCounted = (on: Db) =>
          writeTransaction(on, async (trx) => {
            const { n } = await trx
              .selectFrom('users')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            await sleep(30);
            await trx
              .insertInto('users')
              .values({ name: `counted-${n}`, email: null, created_at: new Date().toISOString() })
              .execute();
          });
        await Promise.all([addCounted(db), addCounted(db), addCounted(other), addCounted(other)]);
        const names = (await db.selectFrom('users').select('name').where('name', 'like', 'counted-%').execute()).map((r) => r.name);
        assert.equal(new Set(names).size, 4, `names: ${names.join(', ')}`);
      } finally {
        await other.destroy();
      }
    });

    test('an API key authenticates by its secret until revoked, a wrong secret never, and whoami reads its workspace', async () => {
      const workspace = await newWorkspace();
      const { key, secret } = await services.keys.create(owner, { workspaceId: workspace, name: 'deploys', scope: 'write' });
      const actor = await services.keys.authenticate(secret, 'rpc');
      assert.equal(actor?.keyId, key.id);
      assert.equal(actor?.workspaceId, workspace);
      assert.equal((await services.identity.whoami(actor!)).slug, `quokka-${slugs}`);
      assert.equal(await services.keys.authenticate(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, 'rpc'), undefined);
      await services.keys.revoke(owner, key.id);
      assert.equal(await services.keys.authenticate(secret, 'rpc'), undefined);
    });

    test('an OAuth access token authenticates through its live grant, and not once the grant is revoked', async () => {
      const workspace = await newWorkspace();
      const { client_id } = await services.oauth.clients.register({ client_name: 'Editor', redirect_uris: ['http://127.0.0.1/callback'] });
      const client = await services.oauth.clients.resolve(client_id, async () => assert.fail('a registered client is never fetched'));
      const verifier = randomBytes(32).toString('base64url');
      const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
      const redirectUri = 'http://127.0.0.1:4000/callback';
      const { ticket } = await services.oauth.start({ client, redirectUri, codeChallenge, scope: 'read', resource: 'http://localhost:3000/mcp' });
      const browser = await services.oauth.redeemTicket(ticket);
      await services.oauth.approve(owner, { id: browser!.id }, { workspaceId: workspace });
      const { redirectTo } = await services.oauth.view(browser!.id, { browserSecret: browser!.browserSecret });
      const code = new URL(redirectTo!).searchParams.get('code')!;
      const { access_token } = await services.oauth.tokens.exchangeCode({ code, clientId: client_id, redirectUri, codeVerifier: verifier });
      const actor = await services.oauth.tokens.authenticate(access_token, 'mcp', 'http://localhost:3000/mcp');
      assert.equal(actor?.workspaceId, workspace);
      assert.deepEqual(actor?.scopes, ['read']);
      assert.equal((await services.identity.whoami(actor!)).slug, `quokka-${slugs}`);
      await services.oauth.tokens.revoke(access_token);
      assert.equal(await services.oauth.tokens.authenticate(access_token, 'mcp', 'http://localhost:3000/mcp'), undefined);
    });

    test('the list of monitors shows each change at once', async () => {
      const workspace = await newWorkspace();
      const names = async () => (await services.monitors.list(owner, workspace)).monitors.map((m) => m.name);
      const first = await services.monitors.create(owner, workspace, 'tcp', tcp('first'));
      assert.deepEqual(await names(), ['first']);
      await services.monitors.create(owner, workspace, 'tcp', tcp('second'));
      assert.deepEqual(await names(), ['second', 'first']);
      await services.monitors.update(owner, workspace, 'tcp', first.id, { name: 'renamed' });
      assert.deepEqual(await names(), ['second', 'renamed']);
      await services.monitors.delete(owner, workspace, first.id);
      assert.deepEqual(await names(), ['second']);
    });

    test('what another connection changes shows at once in the list of monitors and the channels of monitors', async () => {
      const workspace = await newWorkspace();
      const monitor = await services.monitors.create(owner, workspace, 'tcp', tcp('watched'));
      const channelNames = async () => ((await services.channels.ofMonitors(owner, workspace, [monitor.id])).get(monitor.id) ?? []).map((c) => c.name);
      const names = async () => (await services.monitors.list(owner, workspace)).monitors.map((m) => m.name);
      assert.deepEqual([await names(), await channelNames()], [['watched'], []]);
      const otherDb = await open();
      const other = createServices(otherDb);
      try {
        await other.monitors.update(owner, workspace, 'tcp', monitor.id, { name: 'renamed elsewhere' });
        await other.channels.create(owner, workspace, { name: 'desk', kind: 'desktop', monitorIds: [monitor.id] });
      } finally {
        other.close();
        await otherDb.destroy();
      }
      assert.deepEqual([await names(), await channelNames()], [['renamed elsewhere'], ['desk']]);
    });

    test('the overview folds every script, matches names, targets and tags, and orders by the folded name', async () => {
      const workspace = await newWorkspace();
      for (const [name, tags] of [
        ['zebra', ['Prod']],
        ['Éclair', ['édge', 'prod']],
        ['apple', []],
        ['ÄRGER', ['Ops']],
      ] as const) {
        await services.monitors.create(owner, workspace, 'tcp', tcp(name, { tags: [...tags] }));
      }
      await services.monitors.create(owner, workspace, 'http', { name: 'site', url: 'https://Example.org/Health', periodicity: '30s', regions: ['fra'] });
      const overview = (query: Record<string, unknown>) => services.monitorViews.overview(owner, workspace, query);
      const namesOf = async (query: Record<string, unknown>) => (await overview(query)).monitors.map((m) => m.name);
      const all = await overview({});
      assert.deepEqual(
        all.monitors.map((m) => m.name),
        ['apple', 'site', 'zebra', 'ÄRGER', 'Éclair'],
        'by folded name, in code point order',
      );
      assert.equal(all.total, 5);
      assert.deepEqual(all.counts, { up: 0, degraded: 0, down: 0, pending: 5, paused: 0 });
      assert.deepEqual(all.tags, ['Ops', 'Prod', 'prod', 'édge']);
      assert.equal(all.monitors.find((m) => m.name === 'site')?.target, 'https://Example.org/Health');
      assert.deepEqual(await namesOf({ q: 'ärg' }), ['ÄRGER']);
      assert.deepEqual(await namesOf({ q: 'ÉCL' }), ['Éclair']);
      assert.deepEqual(await namesOf({ q: 'example.ORG' }), ['site'], 'the target of an HTTP monitor');
      assert.deepEqual(await namesOf({ q: '127.0.0' }), ['apple', 'zebra', 'ÄRGER', 'Éclair'], 'the target of a TCP monitor');
      assert.deepEqual(await namesOf({ q: 'EDGE' }), [], 'é is not e');
      assert.deepEqual(await namesOf({ q: 'ÉDG' }), ['Éclair'], 'a tag, folded');
      assert.deepEqual(await namesOf({ tag: 'prod' }), ['Éclair'], 'a tag, exactly');
      assert.deepEqual(await namesOf({ type: 'http' }), ['site']);
      assert.deepEqual([(await overview({ state: 'pending' })).total, (await overview({ state: 'up' })).total], [5, 0]);
      const page = await overview({ limit: '2', offset: '2' });
      assert.deepEqual([page.monitors.map((m) => m.name), page.total], [['zebra', 'ÄRGER'], 5]);
    });

    test('the channels of monitors follow their links as they change', async () => {
      const workspace = await newWorkspace();
      const monitor = await services.monitors.create(owner, workspace, 'tcp', tcp('linked'));
      const channelNames = async () => ((await services.channels.ofMonitors(owner, workspace, [monitor.id])).get(monitor.id) ?? []).map((c) => c.name);
      assert.deepEqual(await channelNames(), []);
      const channel = await services.channels.create(owner, workspace, { name: 'desk', kind: 'desktop', monitorIds: [monitor.id] });
      assert.deepEqual(await channelNames(), ['desk']);
      await services.channels.update(owner, workspace, channel.id, { monitorIds: [] });
      assert.deepEqual(await channelNames(), []);
    });

    test('subscribers are added, listed and removed; a link naming no subscriber is not found', async () => {
      const workspace = await newWorkspace();
      const page = await services.pages.create(owner, workspace, { slug: `wallaby-${slugs}`, title: 'Wallaby Status' });
      const { subscriber } = await services.subscribers.add(owner, workspace, page.slug, { webhookUrl: 'https://hooks.example.com/status' });
      assert.deepEqual(
        (await services.subscribers.list(owner, workspace, page.slug)).map((s) => s.id),
        [subscriber.id],
      );
      await services.subscribers.remove(owner, workspace, subscriber.id);
      assert.deepEqual(await services.subscribers.list(owner, workspace, page.slug), []);
      for (const id of ['abc', '999999999999999', subscriber.id]) await rejectsWith(services.subscribers.confirm(id, 'not-a-token'), 'NOT_FOUND');
    });

    test("a private location takes its runner's report once, acknowledging it with its results", async () => {
      const workspace = await newWorkspace();
      const { location, token } = await services.locations.create(owner, workspace, { name: `office-${slugs}` });
      const listed = (await services.locations.list(owner, workspace)).locations;
      assert.deepEqual(
        listed.map((l) => [l.name, l.embedded]),
        [
          ['local', true],
          [location.name, false],
        ],
      );
      const monitor = await services.monitors.create(owner, workspace, 'tcp', tcp('from the office', { regions: undefined, privateLocations: [location.id] }));
      await services.runners.connect(`Bearer ${token}`, { version: VERSION, instanceId: 'first', hostname: 'office-pc' });
      const admitted = await services.runners.admit(`Bearer ${token}`);
      const check = storedCheck(monitor.id, workspace, Date.now() - 1_000, 'up', 12);
      const report = { version: VERSION, instanceId: 'first', checks: [{ sequence: 1, check }], malformed: [], droppedResults: 3, gaps: [] };
      assert.deepEqual(await services.runners.report(admitted, report), { acknowledgedSequence: 1, stored: 1, skipped: 0 });
      const results = await services.monitorViews.results(owner, workspace, monitor.id, {});
      assert.deepEqual(
        results.map((r) => [r.runner, r.result]),
        [[location.name, 'up']],
      );
      const [row] = (await services.monitorViews.overview(owner, workspace, {})).monitors;
      assert.deepEqual([row?.state, row?.lastLatencyMs], ['up', 12], 'the overview reads the state the report stored');
      assert.deepEqual(
        (await services.monitorViews.regions(owner, workspace, monitor.id)).map((r) => [r.region, r.status, r.runner]),
        [[location.name, 'active', location.name]],
      );
      const latency = await services.monitorViews.latency(owner, workspace, monitor.id, { window: '7d' });
      assert.equal(
        latency.points.reduce((n, p) => n + p.up, 0),
        1,
        'the hourly rollup counts the check',
      );
      const page = await services.pages.create(owner, workspace, { slug: `office-page-${slugs}`, title: 'Office' });
      await services.pages.addComponent(owner, workspace, page.id, { name: 'Office link', monitorId: monitor.id });
      const [component] = (await services.publicPages.view(page.slug)).components;
      assert.deepEqual([component?.state, component?.uptime, component?.days.at(-1)?.up], ['operational', 1, 1], 'the public page sums the day');
      const seen = await services.locations.get(owner, workspace, location.id);
      assert.deepEqual([seen.status, seen.droppedResults], ['active', 3]);
      // The same report again, as after a lost answer: acknowledged, nothing stored twice.
      assert.deepEqual(await services.runners.report(await services.runners.admit(`Bearer ${token}`), report), {
        acknowledgedSequence: 1,
        stored: 0,
        skipped: 1,
      });
      assert.equal((await services.monitorViews.results(owner, workspace, monitor.id, {})).length, 1);
    });

    test('sealing what earlier versions stored in the clear runs on the engine', async () => {
      assert.equal(typeof (await services.sealStoredSecrets()), 'number');
    });
  });
}
