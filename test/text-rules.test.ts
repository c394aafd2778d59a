/**
 * Names and titles are one line of visible text on every create: no line breaks (a report title
 * with `\r\nBcc:` would reach a mail header), no other control characters, no bidirectional
 * overrides, and not only invisible characters. A refusal names the field and stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../server/db/open.ts';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createServices, type Services } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { rejectsWith, tempDir } from './support/harness.ts';

const HOSTILE: [string, string][] = [
  ['a line break and a header', 'Outage\r\nBcc: everyone@example.com'],
  ['a line feed', 'first\nsecond'],
  ['a NUL', 'a\u0000b'],
  ['an escape sequence', 'red \u001b[31m text'],
  ['a C1 control', 'next\u0085line'],
  ['a right-to-left override', 'invoice\u202Egnp.exe'],
  ['a bidirectional isolate', 'name\u2067x\u2069'],
  ['only zero-width characters', '\u200b\u200c\u200d'],
  ['only a byte-order mark', '\ufeff'],
];

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Db;
let services: Services;
let owner: Actor;
let ws: number;
let pageId: string;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db);
  owner = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  pageId = (await services.pages.create(owner, ws, { slug: 'text-rules', title: 'Text rules' })).id;
});
after(async () => {
  services.close();
  await db.destroy();
  await dir.remove();
});

const count = async (
  table: 'workspaces' | 'api_keys' | 'status_pages' | 'status_reports' | 'maintenances' | 'monitors' | 'notification_channels' | 'page_components',
) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Each create, given a hostile text in one field: the field it must name, and the table that must not grow. */
const creates: { what: string; field: string; table: Parameters<typeof count>[0]; run(text: string): Promise<unknown> }[] = [
  {
    what: 'workspace name',
    field: 'name',
    table: 'workspaces',
    run: (text) => services.workspaces.create(owner, { name: text, slug: `ws-${Math.random().toString(36).slice(2, 8)}` }),
  },
  { what: 'API key name', field: 'name', table: 'api_keys', run: (text) => services.keys.create(owner, { workspaceId: ws, name: text, scope: 'read' }) },
  {
    what: 'status page title',
    field: 'title',
    table: 'status_pages',
    run: (text) => services.pages.create(owner, ws, { slug: `p-${Math.random().toString(36).slice(2, 8)}`, title: text }),
  },
  { what: 'component name', field: 'name', table: 'page_components', run: (text) => services.pages.addComponent(owner, ws, pageId, { name: text }) },
  {
    what: 'component group',
    field: 'group',
    table: 'page_components',
    run: (text) => services.pages.addComponent(owner, ws, pageId, { name: 'ok', group: text }),
  },
  {
    what: 'report title',
    field: 'title',
    table: 'status_reports',
    run: (text) => services.reports.create(owner, ws, { pageId, title: text, message: 'Looking into it', notify: false }),
  },
  {
    what: 'maintenance title',
    field: 'title',
    table: 'maintenances',
    run: (text) => services.maintenances.create(owner, ws, { pageId, title: text, from: '2030-01-01T00:00:00Z', to: '2030-01-01T01:00:00Z', notify: false }),
  },
  {
    what: 'monitor name',
    field: 'name',
    table: 'monitors',
    run: (text) => services.monitors.create(owner, ws, 'tcp', { name: text, uri: 'db.internal:5432', periodicity: '10m' }),
  },
  {
    what: 'monitor tag',
    field: 'tags.0',
    table: 'monitors',
    run: (text) => services.monitors.create(owner, ws, 'tcp', { name: 'ok', uri: 'db.internal:5432', periodicity: '10m', tags: [text] }),
  },
  { what: 'channel name', field: 'name', table: 'notification_channels', run: (text) => services.channels.create(owner, ws, { name: text, kind: 'desktop' }) },
];

describe('names and titles are one line of visible text', () => {
  for (const create of creates) {
    test(`${create.what}: every hostile text is refused naming ${create.field}, and nothing is stored`, async () => {
      const before = await count(create.table);
      for (const [label, text] of HOSTILE) {
        const error = await rejectsWith(create.run(text), 'VALIDATION', create.field);
        assert.match(error.message, /one line|visible character|empty|required/, label);
      }
      assert.equal(await count(create.table), before);
    });
  }

  test('ordinary text in any script, with emoji and inner spaces, is kept as given', async () => {
    for (const name of ['Zahlungen – Frankfurt', 'مراقبة الخادم', '東京 API ✅', 'db (primary) #2']) {
      const monitor = await services.monitors.create(owner, ws, 'tcp', { name, uri: 'db.internal:5432', periodicity: '10m' });
      assert.equal(monitor.name, name);
    }
  });
});
