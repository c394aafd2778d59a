/**
 * The content index behind search_docs, get_doc_page, search_content, get_content_page and
 * /llms.txt: FTS5 search over documentation (a fixture folder with known words, and the docs
 * shipped with the app), status pages made through the real domain services of a running service
 * (real SQLite in a temporary data folder), and the site index served on its API port.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ContentIndex, createContentIndex, type SearchResult } from '../server/content/content-index.ts';
import type { Actor } from '../server/domain/actor.ts';
import { planNames, plans } from '../server/domain/plans.ts';
import type { Services } from '../server/services.ts';
import { packageRoot } from '../server/package-root.ts';
import { startTestService, tempDir, type TestService, rejectsWith } from './support/harness.ts';
import { seededRandom } from './support/seeded-random.ts';

const system: Actor = { type: 'system', surface: 'cli' };

const paths = (results: SearchResult[]) => results.map((r) => r.path);

// ---- fixture documentation ---------------------------------------------------------------------

const FIXTURE: Record<string, string> = {
  'index.md': '# Fixture documentation\n\nThe front page of a small documentation set used to test search.\n',
  'reference/retries.md': [
    '# Retries',
    '',
    'How a failed check is tried again before it counts.',
    '',
    '## Backoff',
    '',
    'Attempts wait a little longer each time.',
  ].join('\n'),
  // Says "retries" far more often than the page titled Retries, but only in its body.
  'reference/schedules.md': [
    '# Schedules',
    '',
    'A schedule decides when checks run. Retries, retries and more retries: a schedule counts retries',
    'within its period, and retries never move the next run. Retries again.',
  ].join('\n'),
  'reference/long-page.md': [
    '# Long page',
    '',
    'Opening words about nothing in particular.',
    '',
    ...Array.from({ length: 40 }, (_, i) => `## Filler ${i}\n\nParagraph ${i} talks about ordinary things at some length, padding the page.\n`),
    '## The rare part',
    '',
    'Here the **quokka** lives, next to a [link text](https://example.invalid/hidden-target) and a `code span`.',
    '',
    '| Column | Value |',
    '|---|---|',
    '| animal | wombat |',
  ].join('\n'),
  'reference/headers.md': '# Headers\n\nSend the `x-service-key` header. A key, a service and a header, apart: key service header.\n',
  'reference/unicode.md': '# Café Zürich\n\nCrème brûlée at the café. 東京 status. Ελληνικά κείμενα. Naïve coöperation.\n',
  'reference/plans.md': '# Plans\n\nThe plan table of the fixture.\n',
  'guides/first-steps.md': '# First steps\n\nA guide: start the service and create a quokka monitor.\n',
  'changelog.md': '# Changelog\n\n## 0.1.0\n\nAdded quokka support and retries.\n',
  // Not a page the docs route can serve (upper case): never indexed, never linked.
  'reference/Bad_Name.md': '# Bad name\n\nquokka\n',
};

const HOSTILE = [
  '"',
  '""',
  '"""',
  '*',
  '**',
  'quokka*',
  '*quokka',
  'NEAR(',
  'NEAR(quokka retries',
  'NEAR(quokka, 2)',
  '-',
  '--',
  '-quokka',
  'quokka -retries',
  'AND',
  'OR',
  'NOT',
  'quokka AND',
  'OR quokka',
  'NOT retries',
  'title:quokka',
  'body:',
  '{title body}: quokka',
  '^quokka',
  '(',
  ')',
  '(((quokka',
  "'",
  "quokka's",
  '\\',
  '\\"',
  '+',
  ':',
  ',',
  '.',
  '😀',
  '🔥 quokka 🔥',
  '\u0301',
  'e\u0301',
  'Z̵̢̛a̴l̸g̷o̶',
  '東京',
  'مرحبا',
  '\u0000',
  'quokka\u0000retries',
  '\u200b',
  '\uFEFF',
  '\uD800',
  'x'.repeat(5000),
  'quokka '.repeat(400),
  '"quokka" "retries" NEAR/3 * - ^ : ( ) { } + \'',
];

// ---- the service ---------------------------------------------------------------------------------

let svc: TestService;
let services: Services;
let ws: number;
let fixtureDir: { path: string; remove(): Promise<void> };
let docsUrl: string;
const indexes: ContentIndex[] = [];

/** An index over the fixture docs and the service's status pages. */
function fixtureIndex(statusMaxAgeMs?: number): ContentIndex {
  const index = createContentIndex({ services, docsUrl, docsDir: fixtureDir.path, statusMaxAgeMs });
  indexes.push(index);
  return index;
}

before(async () => {
  svc = await startTestService();
  services = svc.services;
  docsUrl = svc.apiUrl;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
  fixtureDir = await tempDir();
  for (const [file, text] of Object.entries(FIXTURE)) {
    await mkdir(join(fixtureDir.path, file, '..'), { recursive: true });
    await writeFile(join(fixtureDir.path, file), text);
  }
});

after(async () => {
  for (const index of indexes) index.close();
  await svc?.stop();
  await fixtureDir?.remove();
});

// ---- search ------------------------------------------------------------------------------------

describe('search', () => {
  test('ranks a page whose title matches above pages that only mention the words', async () => {
    const index = fixtureIndex();
    const results = await index.searchDocs('retries');
    assert.deepEqual(paths(results).slice(0, 2), ['docs/reference/retries', 'docs/reference/schedules']);
  });

  test('results carry title, type, snippet, url and path, with the documented address forms', async () => {
    const index = fixtureIndex();
    const [hit] = await index.searchDocs('retries');
    assert.deepEqual(Object.keys(hit!).sort(), ['path', 'snippet', 'title', 'type', 'url']);
    assert.deepEqual(
      { ...hit, snippet: undefined },
      { title: 'Retries', type: 'docs', snippet: undefined, url: `${docsUrl}/docs/reference/retries`, path: 'docs/reference/retries' },
    );
    const [front] = await index.searchDocs('front page');
    assert.deepEqual([front!.path, front!.url, front!.title], ['docs/index', `${docsUrl}/docs/index`, 'Fixture documentation']);
  });

  test('snippets mark the matches and come from the matching section, as plain text', async () => {
    const index = fixtureIndex();
    const [hit] = await index.searchDocs('quokka');
    assert.equal(hit!.path, 'docs/reference/long-page');
    assert.match(hit!.snippet, /\*\*quokka\*\*/);
    // From "The rare part", not the opening of the page, and without markdown markup.
    assert.match(hit!.snippet, /Here the \*\*quokka\*\* lives, next to a link text and a code span/);
    assert.doesNotMatch(hit!.snippet, /Opening words|hidden-target|`|\||\n/);
    assert.ok(hit!.snippet.split(' ').length <= 30, hit!.snippet);

    const [table] = await index.searchDocs('wombat');
    assert.match(table!.snippet, /animal \*\*wombat\*\*/);
  });

  test('the last word is a prefix, and words are stemmed', async () => {
    const index = fixtureIndex();
    assert.equal(paths(await index.searchDocs('retr'))[0], 'docs/reference/retries');
    assert.equal(paths(await index.searchDocs('quok'))[0], 'docs/reference/long-page');
    // "retry" and "retrying" share the stem of "retries".
    assert.equal(paths(await index.searchDocs('retrying backoff'))[0], 'docs/reference/retries');
  });

  test('words joined by hyphens are found together first; a query with one unknown word still finds pages', async () => {
    const index = fixtureIndex();
    const hits = await index.searchDocs('x-service-key');
    assert.deepEqual(paths(hits), ['docs/reference/headers']);
    assert.match(hits[0]!.snippet, /Send the \*\*x-service-key\*\* header/);
    // No page has "zebra": the pages with the other words are better than nothing.
    assert.equal(paths(await index.searchDocs('retries zebra'))[0], 'docs/reference/retries');
    assert.deepEqual(await index.searchDocs('zebra'), []);
  });

  test('accents are folded and other scripts are searchable', async () => {
    const index = fixtureIndex();
    for (const query of ['cafe zurich', 'Café', 'CAFÉ ZÜRICH', 'creme brulee', 'naive', '東京', 'Ελληνικά']) {
      assert.deepEqual(paths(await index.searchDocs(query)), ['docs/reference/unicode'], query);
    }
  });

  test('hostile query strings are never an FTS5 syntax error', async () => {
    const index = fixtureIndex(0);
    for (const query of HOSTILE) {
      // A byte-order mark is white space, as JavaScript sees it: nothing was asked.
      if (query.trim() === '') {
        await rejectsWith(index.searchDocs(query), 'VALIDATION', 'query');
        continue;
      }
      for (const run of [() => index.searchDocs(query), () => index.searchContent(query), () => index.searchContent(query, 'status-page')]) {
        const results = await run();
        assert.ok(Array.isArray(results), JSON.stringify(query));
      }
    }
    // The operators are words like any other, and the words around them still count.
    assert.equal(paths(await index.searchDocs('NEAR(quokka, 2)'))[0], 'docs/reference/long-page');
    assert.equal(paths(await index.searchDocs('quokka AND'))[0], 'docs/reference/long-page');
    assert.equal(paths(await index.searchDocs('title:quokka'))[0], 'docs/reference/long-page');
    assert.equal(paths(await index.searchDocs('"quokka'))[0], 'docs/reference/long-page');
    // Nothing that is a word: nothing found, not everything.
    for (const query of ['"', '*', '-', '😀', '(', '\u200b']) assert.deepEqual(await index.searchDocs(query), [], JSON.stringify(query));
  });

  test('random strings of FTS5 syntax and unicode never fail', async () => {
    const index = fixtureIndex();
    const pool = [
      '"',
      '*',
      '-',
      '+',
      '^',
      ':',
      '(',
      ')',
      '{',
      '}',
      ',',
      "'",
      ' ',
      ' ',
      'NEAR',
      'AND',
      'OR',
      'NOT',
      'quokka',
      'retr',
      'é',
      '\u0301',
      '東',
      '😀',
      '\u0000',
      '\\',
      '/',
      '.',
      '_',
    ];
    const next = seededRandom(42);
    for (let i = 0; i < 300; i++) {
      const query = Array.from({ length: 1 + Math.floor(next() * 12) }, () => pool[Math.floor(next() * pool.length)]).join('');
      if (query.trim() === '') continue;
      assert.ok(Array.isArray(await index.searchContent(query, 'docs')), JSON.stringify(query));
    }
  });

  test('an empty query is VALIDATION naming query; an unknown type is VALIDATION naming type', async () => {
    const index = fixtureIndex();
    for (const query of ['', '   ', '\n\t']) {
      await rejectsWith(index.searchDocs(query), 'VALIDATION', 'query');
      await rejectsWith(index.searchContent(query), 'VALIDATION', 'query');
    }
    await rejectsWith(index.searchDocs(undefined as unknown as string), 'VALIDATION', 'query');
    await rejectsWith(index.searchDocs('quokka', 'status-page' as 'docs'), 'VALIDATION', 'type');
    await rejectsWith(index.searchContent('quokka', 'blog' as 'all'), 'VALIDATION', 'type');
  });
});

// ---- type filters ------------------------------------------------------------------------------

describe('type filters', () => {
  test('search_docs searches reference pages by default, or guides, or the changelog', async () => {
    const index = fixtureIndex();
    assert.deepEqual(paths(await index.searchDocs('quokka')), ['docs/reference/long-page']);
    assert.deepEqual(paths(await index.searchDocs('quokka', 'docs')), ['docs/reference/long-page']);
    const guides = await index.searchDocs('quokka', 'guides');
    assert.deepEqual(
      guides.map((r) => [r.path, r.type, r.url]),
      [['docs/guides/first-steps', 'guides', `${docsUrl}/docs/guides/first-steps`]],
    );
    const changelog = await index.searchDocs('quokka', 'changelog');
    assert.deepEqual(
      changelog.map((r) => [r.path, r.type, r.url]),
      [['docs/changelog', 'changelog', `${docsUrl}/docs/changelog`]],
    );
  });

  test('a file the docs route cannot serve is not indexed', async () => {
    const index = fixtureIndex();
    const all = await index.searchContent('quokka');
    assert.ok(!all.some((r) => /bad/i.test(r.path)), JSON.stringify(paths(all)));
  });

  test('search_content covers every type by default, and one type when asked', async () => {
    const index = fixtureIndex(0);
    const page = await services.pages.create(system, ws, { slug: 'quokka-status', title: 'Quokka Status', description: 'Where the quokka services report' });
    try {
      const all = await index.searchContent('quokka');
      assert.deepEqual(new Set(all.map((r) => r.type)), new Set(['docs', 'guides', 'changelog', 'status-page', 'site']));
      assert.deepEqual(paths(await index.searchContent('quokka', 'status-page')), ['status/quokka-status']);
      assert.deepEqual(paths(await index.searchContent('quokka', 'guides')), ['docs/guides/first-steps']);
      assert.deepEqual(paths(await index.searchContent('quokka', 'changelog')), ['docs/changelog']);
      // The site index names every page, and is a page itself.
      const site = await index.searchContent('quokka status', 'site');
      assert.deepEqual(
        site.map((r) => [r.path, r.type, r.url]),
        [['llms.txt', 'site', `${docsUrl}/llms.txt`]],
      );
      assert.match(site[0]!.snippet, /\*\*Quokka\*\* \*\*Status\*\*/);
    } finally {
      await services.pages.delete(system, ws, page.id);
    }
  });
});

// ---- pages by path -----------------------------------------------------------------------------

describe('pages by path', () => {
  test('a docs page is found by every form of its path', async () => {
    const index = fixtureIndex();
    const forms = [
      'docs/reference/retries',
      'reference/retries',
      '/docs/reference/retries',
      '/reference/retries',
      'reference/retries.md',
      'docs/reference/retries.md',
      '/docs/reference/retries.md',
      'docs/reference/retries/',
      '  Docs/Reference/Retries  ',
      `${docsUrl}/docs/reference/retries`,
      `${docsUrl}/docs/reference/retries#backoff`,
    ];
    for (const form of forms) {
      const page = await index.getDocPage(form);
      assert.deepEqual(
        { ...page, markdown: page.markdown.slice(0, 9) },
        { path: 'docs/reference/retries', title: 'Retries', type: 'docs', url: `${docsUrl}/docs/reference/retries`, markdown: '# Retries' },
        form,
      );
      assert.equal((await index.getContentPage(form)).path, 'docs/reference/retries', form);
    }
    assert.equal((await index.getDocPage('docs/reference/retries')).markdown, FIXTURE['reference/retries.md']);
    for (const form of ['docs', 'docs/', '/docs/', 'index', 'docs/index.md']) assert.equal((await index.getDocPage(form)).path, 'docs/index', form);
    assert.equal((await index.getDocPage('guides/first-steps')).type, 'guides');
    assert.equal((await index.getDocPage('changelog.md')).type, 'changelog');
    // The plans are what a hosted product calls pricing.
    assert.equal((await index.getContentPage('pricing')).path, 'docs/reference/plans');
  });

  test('an unknown path is NOT_FOUND, suggesting the closest paths or the search tool', async () => {
    const index = fixtureIndex();
    const typo = await rejectsWith(index.getDocPage('reference/retrys'), 'NOT_FOUND', 'path');
    assert.match(typo.message, /"reference\/retrys"/);
    assert.match(typo.message, /Closest: docs\/reference\/retries\b/);
    assert.match(typo.message, /search_docs/);
    const partial = await rejectsWith(index.getDocPage('docs/long'), 'NOT_FOUND', 'path');
    assert.match(partial.message, /docs\/reference\/long-page/);
    const nothing = await rejectsWith(index.getDocPage('completely/unrelated/thing'), 'NOT_FOUND', 'path');
    assert.doesNotMatch(nothing.message, /Closest/);
    assert.match(nothing.message, /search_docs/);
    // Climbing out of the docs folder names nothing.
    await rejectsWith(index.getDocPage('../package.json'), 'NOT_FOUND', 'path');
    await rejectsWith(index.getDocPage('reference/Bad_Name'), 'NOT_FOUND', 'path');
    // Pages that are not documentation point at the tool that reads them.
    for (const path of ['llms.txt', 'status/anything']) {
      const error = await rejectsWith(index.getDocPage(path), 'NOT_FOUND', 'path');
      assert.match(error.message, /get_content_page/);
    }
    const content = await rejectsWith(index.getContentPage('blog/launch'), 'NOT_FOUND', 'path');
    assert.match(content.message, /search_content/);
    const status = await rejectsWith(index.getContentPage('status/no-such-page'), 'NOT_FOUND', 'path');
    assert.match(status.message, /search_content/);
  });

  test('an empty path is VALIDATION naming path', async () => {
    const index = fixtureIndex();
    for (const path of ['', '  ', '/', '.md']) {
      await rejectsWith(index.getDocPage(path), 'VALIDATION', 'path');
      await rejectsWith(index.getContentPage(path), 'VALIDATION', 'path');
    }
  });
});

// ---- status pages ------------------------------------------------------------------------------

describe('status pages', () => {
  test('a page appears once created, changes with edits and reports, and goes when deleted', async () => {
    const index = fixtureIndex(0);
    assert.deepEqual(await index.searchContent('platypus', 'status-page'), []);

    const page = await services.pages.create(system, ws, { slug: 'platypus', title: 'Platypus Status', description: 'Burrow services' });
    try {
      await services.pages.addComponent(system, ws, page.id, { name: 'Burrow API', group: 'Backend' });
      const [found] = await index.searchContent('platypus', 'status-page');
      assert.deepEqual(found && { ...found, snippet: undefined }, {
        title: 'Platypus Status',
        type: 'status-page',
        snippet: undefined,
        url: `${svc.apiUrl}/status/platypus`,
        path: 'status/platypus',
      });

      await services.pages.update(system, ws, page.id, { title: 'Echidna Status' });
      assert.deepEqual(paths(await index.searchContent('echidna')), ['status/platypus', 'llms.txt']);
      assert.equal((await index.searchContent('echidna'))[0]!.title, 'Echidna Status');
      assert.ok(!(await index.searchContent('platypus', 'status-page')).some((r) => r.title === 'Platypus Status'));

      await services.reports.create(system, ws, {
        pageId: page.id,
        title: 'Tunnel collapse',
        message: 'The burrow tunnel collapsed under the wombat',
        notify: false,
      });
      const [incident] = await index.searchContent('tunnel collapse', 'status-page');
      assert.equal(incident!.path, 'status/platypus');
      assert.match(incident!.snippet, /\*\*Tunnel\*\* \*\*collapse\*\*/);

      const markdown = (await index.getContentPage('status/platypus')).markdown;
      assert.match(markdown, /^# Echidna Status\n\nBurrow services\n\nCurrent status: \*\*Degraded performance\*\*/);
      assert.match(markdown, /## Components\n\n- Burrow API \(Backend\): Operational/);
      assert.match(markdown, /## Active incidents\n\n### Tunnel collapse\n\nStatus: Investigating\./);
      assert.match(markdown, /Investigating: The burrow tunnel collapsed under the wombat/);

      await services.pages.delete(system, ws, page.id);
      assert.deepEqual(await index.searchContent('echidna', 'status-page'), []);
      assert.doesNotMatch(await index.siteIndex(), /Echidna/);
    } finally {
      // Already gone when the test passed; a failed run leaves no page behind for the others.
      await services.pages.delete(system, ws, page.id).catch(() => undefined);
    }
  });

  test('status pages are indexed again when older than the allowed age, or at once after invalidate()', async () => {
    const lazy = fixtureIndex();
    assert.deepEqual(await lazy.searchContent('kookaburra', 'status-page'), []);
    const page = await services.pages.create(system, ws, { slug: 'kookaburra', title: 'Kookaburra' });
    try {
      // Within the allowed age the index answers from memory, without asking the database.
      assert.deepEqual(await lazy.searchContent('kookaburra', 'status-page'), []);
      lazy.invalidate();
      assert.deepEqual(paths(await lazy.searchContent('kookaburra', 'status-page')), ['status/kookaburra']);

      const quick = fixtureIndex(150);
      assert.deepEqual(paths(await quick.searchContent('kookaburra', 'status-page')), ['status/kookaburra']);
      await services.pages.update(system, ws, page.id, { description: 'Laughing loudly' });
      await sleep(200);
      assert.deepEqual(paths(await quick.searchContent('laughing', 'status-page')), ['status/kookaburra']);
    } finally {
      await services.pages.delete(system, ws, page.id);
    }
  });

  test('get_content_page reads a status page as it is now, even before the index catches up', async () => {
    const lazy = fixtureIndex();
    await lazy.searchContent('anything');
    const page = await services.pages.create(system, ws, { slug: 'numbat', title: 'Numbat' });
    try {
      const { report } = await services.reports.create(system, ws, { pageId: page.id, title: 'Termite shortage', message: 'Looking into it', notify: false });
      await services.reports.resolve(system, ws, report.id, { message: 'Termites are back', notify: false });
      for (const form of ['status/numbat', '/status/numbat/', `${svc.apiUrl}/status/numbat`]) {
        const read = await lazy.getContentPage(form);
        assert.deepEqual(
          { ...read, markdown: undefined },
          { path: 'status/numbat', title: 'Numbat', type: 'status-page', url: `${svc.apiUrl}/status/numbat`, markdown: undefined },
        );
        assert.match(read.markdown, /Current status: \*\*All systems operational\*\*/);
        assert.match(read.markdown, /## Resolved incidents \(last 14 days\)\n\n### Termite shortage\n\nStatus: Resolved\. Opened .*, resolved /);
        assert.match(read.markdown, /Resolved: Termites are back/);
      }
      const typo = await rejectsWith(lazy.getContentPage('status/numbet'), 'NOT_FOUND', 'path');
      assert.match(typo.message, /Closest: status\/numbat/);
    } finally {
      await services.pages.delete(system, ws, page.id);
    }
  });
});

// ---- the site index ----------------------------------------------------------------------------

describe('site index', () => {
  test('llms.txt: title, summary, plans, and a link to every docs page and status page', async () => {
    const index = fixtureIndex(0);
    const page = await services.pages.create(system, ws, { slug: 'wallaby', title: 'Wallaby [Prod]', description: 'Hopping\nservices' });
    try {
      const text = await index.siteIndex();
      const lines = text.split('\n');
      assert.equal(lines[0], '# Statusdesk');
      assert.equal(lines[1], '');
      assert.match(lines[2]!, /^> Statusdesk is a status-monitoring service that runs on your own machine/);
      assert.ok(text.endsWith('\n'));

      const sections = lines.filter((l) => l.startsWith('## '));
      assert.deepEqual(sections, ['## Plans', '## Docs', '## Guides', '## Changelog', '## Status pages', '## Optional']);
      for (const name of planNames) {
        const line = lines.find((l) => l.startsWith(`- ${name}: `));
        assert.ok(line, `a line for ${name}`);
        assert.ok(line.includes(plans[name].frequencies.join(', ').replace(/, (?=[^,]*$)/, ' or ')), line);
        assert.ok(line.includes(`${plans[name].defaultTcpRegionCount} default regions`), line);
      }
      assert.ok(lines.includes(`- [Plans and regions](${docsUrl}/docs/reference/plans): the table of plans and the list of regions`));

      // Every docs page once, in its section, with its one line; the front page first.
      const docLinks = lines.filter((l) => l.startsWith(`- [`) && l.includes(`](${docsUrl}/docs/`) && !l.startsWith('- [Plans and regions]'));
      assert.deepEqual(docLinks.map((l) => /\]\(([^)]+)\)/.exec(l)![1]).sort(), [
        `${docsUrl}/docs/changelog`,
        `${docsUrl}/docs/guides/first-steps`,
        `${docsUrl}/docs/index`,
        `${docsUrl}/docs/reference/headers`,
        `${docsUrl}/docs/reference/long-page`,
        `${docsUrl}/docs/reference/plans`,
        `${docsUrl}/docs/reference/retries`,
        `${docsUrl}/docs/reference/schedules`,
        `${docsUrl}/docs/reference/unicode`,
      ]);
      assert.equal(
        lines[lines.indexOf('## Docs') + 2],
        `- [Fixture documentation](${docsUrl}/docs/index): The front page of a small documentation set used to test search.`,
      );
      assert.ok(lines.includes(`- [Retries](${docsUrl}/docs/reference/retries): How a failed check is tried again before it counts.`));
      // Link text from a page editor cannot break the link; a line break cannot end the item.
      assert.ok(lines.includes(`- [Wallaby \\[Prod\\]](${svc.apiUrl}/status/wallaby): All systems operational. Hopping services`), text);

      assert.equal((await index.getContentPage('llms.txt')).markdown, text);
      assert.deepEqual(
        { ...(await index.getContentPage('/llms.txt')), markdown: undefined },
        { path: 'llms.txt', title: 'Statusdesk site index (llms.txt)', type: 'site', url: `${docsUrl}/llms.txt`, markdown: undefined },
      );
    } finally {
      await services.pages.delete(system, ws, page.id);
    }
    assert.doesNotMatch(await index.siteIndex(), /wallaby/);
    assert.match(await index.siteIndex(), /## Status pages\n\nNo public status pages yet\./);
  });

  test('GET /llms.txt on the API port: plain text, no credential, every shipped docs page and status page', async () => {
    const page = await services.pages.create(system, ws, { slug: 'bilby', title: 'Bilby Status' });
    try {
      const response = await svc.api('/llms.txt');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
      const text = await response.text();
      assert.match(text, /^# Statusdesk\n\n> /);
      const shipped = (await readdir(join(packageRoot, 'docs'), { recursive: true }))
        .filter((f) => f.endsWith('.md'))
        .map((f) => f.replace(/\.md$/, '').split('\\').join('/'));
      assert.ok(shipped.includes('reference/plans'));
      for (const doc of shipped) assert.ok(text.includes(`](${svc.apiUrl}/docs/${doc})`), `links docs/${doc}`);
      assert.ok(text.includes(`- [Bilby Status](${svc.apiUrl}/status/bilby): All systems operational.`), text);

      // Each link of the index works on the same port, without a credential.
      const links = [...text.matchAll(/\]\((http[^)]+)\)/g)].map((m) => m[1]!);
      for (const link of links.filter((l) => l.startsWith(`${svc.apiUrl}/docs/`) || l.startsWith(`${svc.apiUrl}/status/`))) {
        const linked = await fetch(link);
        assert.equal(linked.status, 200, link);
        await linked.arrayBuffer();
      }

      const openapi = (await (await svc.api('/openapi.json')).json()) as { paths: Record<string, { get?: unknown }> };
      assert.ok(openapi.paths['/llms.txt']?.get, 'the OpenAPI document lists /llms.txt');
    } finally {
      await services.pages.delete(system, ws, page.id);
    }
  });
});

// ---- the shipped docs --------------------------------------------------------------------------

describe('the shipped documentation', () => {
  test('finds the plans page first for "plans", and searches fast', async (t) => {
    const index = createContentIndex({ services, docsUrl });
    indexes.push(index);
    assert.equal(paths(await index.searchDocs('plans'))[0], 'docs/reference/plans');
    assert.equal((await index.getDocPage('reference/plans')).title, 'Plans');

    const queries = ['status page component', 'api key revoke', 'grpc health', 'the', 'monitor timeout retry', 'x-service-key', 'NEAR( "'];
    const times: number[] = [];
    for (let round = 0; round < 50; round++) {
      for (const query of queries) {
        const started = performance.now();
        await index.searchDocs(query);
        times.push(performance.now() - started);
      }
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    const p95 = times[Math.floor(times.length * 0.95)]!;
    t.diagnostic(`search latency over ${times.length} searches of the shipped docs: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`);
    assert.ok(median < 10, `median ${median} ms`);
  });
});
