import { readdir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import SQLite from 'better-sqlite3';
import type { Actor } from '../domain/actor.ts';
import type { PublicPage } from '../domain/pages/public-view.ts';
import type { Services } from '../services.ts';
import { invalid } from '../domain/validation.ts';
import { AppError } from '../errors.ts';
import { packageRoot } from '../package-root.ts';
import { canonicalPath, closestPaths, DOC_PATH, SITE_INDEX_PATH } from './content-paths.ts';
import { parseMarkdown } from './markdown-text.ts';
import { searchExpression } from './search-query.ts';
import { renderSiteIndex, type SiteLink } from './site-index.ts';
import { statusPageMarkdown, statusPageSummary } from './status-markdown.ts';

const docTypes = ['docs', 'guides', 'changelog'] as const;
export type DocType = (typeof docTypes)[number];
const contentTypes = ['docs', 'guides', 'changelog', 'status-page', 'site'] as const;
export type ContentType = (typeof contentTypes)[number];

export interface SearchResult {
  title: string;
  type: ContentType;
  /** Words around the matches, each match in `**`; at most a few dozen words. */
  snippet: string;
  url: string;
  path: string;
}

export interface ContentPage {
  path: string;
  title: string;
  type: ContentType;
  url: string;
  markdown: string;
}

export interface ContentIndexOptions {
  /** Status pages are listed and read through these (only public views, never a workspace's data). */
  services: Pick<Services, 'workspaces' | 'pages' | 'publicPages'>;
  /** Base of documentation addresses and of the site index: {docsUrl}/docs/..., {docsUrl}/llms.txt. */
  docsUrl: string;
  /** The service's own address, named in the site index; by default `docsUrl`. */
  apiUrl?: string;
  /** The markdown documentation; by default the docs/ folder shipped with the app. */
  docsDir?: string;
  /** Status pages older than this are indexed again before a search that includes them. */
  statusMaxAgeMs?: number;
}

/** Few enough to read, enough to choose from. */
const RESULT_LIMIT = 10;
const SNIPPET_TOKENS = 24;
const STATUS_MAX_AGE_MS = 5_000;
/** Titles decide ranking most, section headings next, then the body (bm25 weights, in column order). */
const WEIGHTS = { path: 0, type: 0, title: 10, headings: 4, body: 1 };
/** Status pages are public: listing them needs no one's permission, and nothing here changes data. */
const CONTENT_READER: Actor = { type: 'system', surface: 'rest' };

interface Entry extends ContentPage {
  rowid: number;
  sectionRowids: number[];
  /** One line for the site index. */
  description: string;
}

function docTypeOf(relativePath: string): DocType {
  if (relativePath === 'changelog') return 'changelog';
  if (relativePath.startsWith('guides/')) return 'guides';
  return 'docs';
}

/**
 * The search behind search_docs, get_doc_page, search_content, get_content_page and the site
 * index (llms.txt): the bundled documentation, every public status page and the site index
 * itself, in an FTS5 index of its own in memory. The docs ship with the app and are read once;
 * status pages change, so they are indexed again when a search that includes them finds them
 * older than `statusMaxAgeMs`, or after `invalidate()`.
 */
export function createContentIndex(options: ContentIndexOptions) {
  const { services, docsUrl } = options;
  const apiUrl = options.apiUrl ?? docsUrl;
  const docsDir = options.docsDir ?? join(packageRoot, 'docs');
  const statusMaxAgeMs = options.statusMaxAgeMs ?? STATUS_MAX_AGE_MS;

  /**
   * The FTS5 database, made by the first call that needs it: a service that never searches or
   * serves a document holds no index.
   */
  function openIndex() {
    const db = new SQLite(':memory:');
    // Pages are ranked whole; snippets are cut from their best-matching section, because cutting
    // one costs time in proportion to the text it is cut from, and whole reference pages are long.
    // Porter stemming lets "monitoring" find "monitors"; diacritics are folded so "cafe" finds "café".
    const tokenizer = `tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3'`;
    db.exec(`CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, type UNINDEXED, title, headings, body, ${tokenizer})`);
    db.exec(`CREATE VIRTUAL TABLE sections USING fts5(path UNINDEXED, body, ${tokenizer})`);
    const insertPage = db.prepare<[string, string, string, string, string]>('INSERT INTO pages (path, type, title, headings, body) VALUES (?, ?, ?, ?, ?)');
    const insertSection = db.prepare<[string, string]>('INSERT INTO sections (path, body) VALUES (?, ?)');
    const deletePage = db.prepare<[number]>('DELETE FROM pages WHERE rowid = ?');
    const deleteSection = db.prepare<[number]>('DELETE FROM sections WHERE rowid = ?');
    const rankPages = db.prepare<{ expression: string; types: string }>(`
      SELECT path FROM pages
      WHERE pages MATCH @expression AND (@types = 'all' OR instr(@types, ',' || type || ',') > 0)
      ORDER BY bm25(pages, ${Object.values(WEIGHTS).join(', ')})
      LIMIT ${RESULT_LIMIT}`);
    const rankSections = db.prepare<{ expression: string; paths: string }>(`
      SELECT rowid AS id, path FROM sections
      WHERE sections MATCH @expression AND path IN (SELECT value FROM json_each(@paths))
      ORDER BY bm25(sections)`);
    const snippets = db.prepare<{ expression: string; ids: string }>(`
      SELECT path, snippet(sections, 1, '**', '**', '…', ${SNIPPET_TOKENS}) AS snippet FROM sections
      WHERE sections MATCH @expression AND rowid IN (SELECT value FROM json_each(@ids))`);
    return { db, insertPage, insertSection, deletePage, deleteSection, rankPages, rankSections, snippets };
  }
  let index: ReturnType<typeof openIndex> | undefined;
  const sql = () => {
    if (closed) throw new Error('the content index is closed');
    return (index ??= openIndex());
  };

  const pages = new Map<string, Entry>();
  let docsLoaded: Promise<void> | undefined;
  /** Bumped by invalidate(): an index made before it may miss the change. */
  let generation = 0;
  /** Refreshes begun so far; the last finished one began as `indexed`. */
  let begun = 0;
  let indexed = { generation: -1, number: 0, startedAt: -Infinity };
  let refreshing: Promise<void> | undefined;
  let closed = false;

  function put(page: ContentPage, description: string, parts = parseMarkdown(page.markdown)): void {
    drop(page.path);
    const { lastInsertRowid } = sql().insertPage.run(page.path, page.type, page.title, parts.headings.join('\n'), parts.text);
    const sectionRowids = parts.sections.map((text) => Number(sql().insertSection.run(page.path, text).lastInsertRowid));
    pages.set(page.path, { ...page, description, rowid: Number(lastInsertRowid), sectionRowids });
  }

  function drop(path: string): void {
    const old = pages.get(path);
    if (!old) return;
    sql().deletePage.run(old.rowid);
    for (const id of old.sectionRowids) sql().deleteSection.run(id);
    pages.delete(path);
  }

  async function loadDocs(): Promise<void> {
    let files: string[];
    try {
      files = (await readdir(docsDir, { recursive: true })).filter((f) => f.endsWith('.md')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const read = await Promise.all(files.map(async (file) => ({ file, markdown: await readFile(join(docsDir, file), 'utf8') })));
    sql().db.transaction(() => {
      for (const { file, markdown } of read) {
        const rel = file.split(sep).join('/').replace(/\.md$/, '');
        // A file the docs route could not serve would be a result whose link is broken.
        if (!DOC_PATH.test(rel)) continue;
        const parts = parseMarkdown(markdown);
        const title = parts.title ?? rel.slice(rel.lastIndexOf('/') + 1).replace(/-/g, ' ');
        const description = parts.description ?? (parts.headings.length > 0 ? `Sections: ${parts.headings.slice(0, 5).join(', ')}` : '');
        put({ path: `docs/${rel}`, title, type: docTypeOf(rel), url: `${docsUrl}/docs/${rel}`, markdown }, description, parts);
      }
    })();
  }

  function docs(): Promise<void> {
    docsLoaded ??= loadDocs().catch((error: unknown) => {
      docsLoaded = undefined;
      throw error;
    });
    return docsLoaded;
  }

  async function listSlugs(): Promise<string[]> {
    const workspaces = await services.workspaces.list(CONTENT_READER);
    const lists = await Promise.all(workspaces.map((ws) => services.pages.list(CONTENT_READER, Number(ws.id))));
    return lists
      .flat()
      .map((p) => p.slug)
      .sort();
  }

  /** The public view of `slug`, or undefined when the page is gone (deleted since it was listed). */
  async function viewOf(slug: string): Promise<PublicPage | undefined> {
    try {
      return await services.publicPages.view(slug);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  const byType = (type: ContentType): SiteLink[] =>
    [...pages.values()].filter((p) => p.type === type).map((p) => ({ title: p.title, url: p.url, description: p.description }));

  function siteMarkdown(): string {
    const plansUrl = pages.get('docs/reference/plans')?.url;
    // The documentation's front page leads its section.
    const docLinks = [...pages.values()].filter((p) => p.type === 'docs').sort((a, b) => Number(b.path === 'docs/index') - Number(a.path === 'docs/index'));
    return renderSiteIndex({
      apiUrl,
      plansUrl,
      docs: docLinks.map((p) => ({ title: p.title, url: p.url, description: p.description })),
      guides: byType('guides'),
      changelog: byType('changelog'),
      statusPages: byType('status-page'),
    });
  }

  async function refreshStatusPages(): Promise<void> {
    const started = { generation, number: ++begun, startedAt: performance.now() };
    await docs();
    const slugs = await listSlugs();
    const views = await Promise.all(slugs.map(viewOf));
    if (closed) throw new Error('the content index is closed');
    sql().db.transaction(() => {
      const present = new Set<string>();
      for (const view of views) {
        if (!view) continue;
        const path = `status/${view.slug}`;
        present.add(path);
        const markdown = statusPageMarkdown(view);
        const old = pages.get(path);
        // Unchanged pages keep their rows: most refreshes find nothing new.
        if (old && old.markdown === markdown && old.title === view.title && old.url === view.url) continue;
        put({ path, title: view.title, type: 'status-page', url: view.url, markdown }, statusPageSummary(view));
      }
      for (const page of [...pages.values()]) if (page.type === 'status-page' && !present.has(page.path)) drop(page.path);
      const site = siteMarkdown();
      if (pages.get(SITE_INDEX_PATH)?.markdown !== site) {
        put({ path: SITE_INDEX_PATH, title: 'Statusdesk site index (llms.txt)', type: 'site', url: `${docsUrl}/llms.txt`, markdown: site }, '');
      }
    })();
    indexed = started;
  }

  /**
   * Brings status pages up to date for a caller who asks now: the index must have begun after the
   * last invalidate(), and no longer than `statusMaxAgeMs` before the call (with 0, after it).
   * Callers meanwhile share one refresh; one that began too early for a caller is followed by
   * another.
   */
  async function statusPagesFresh(): Promise<void> {
    if (closed) throw new Error('the content index is closed');
    const askedAt = performance.now();
    const wanted = generation;
    const before = begun;
    // Counted, not timed, for "after": a refresh begun in the same instant as the call may have
    // read the database before the caller's own change was written.
    const fresh = () => indexed.number > before || (indexed.generation >= wanted && statusMaxAgeMs > 0 && indexed.startedAt >= askedAt - statusMaxAgeMs);
    while (!fresh()) {
      refreshing ??= refreshStatusPages().finally(() => (refreshing = undefined));
      await refreshing;
    }
  }

  function validQuery(query: unknown): string {
    if (typeof query !== 'string' || query.trim() === '') throw invalid('query', 'is required: the words to look for');
    return query;
  }

  function validType<T extends string>(type: unknown, allowed: readonly T[]): T {
    if (typeof type !== 'string' || !(allowed as readonly string[]).includes(type)) throw invalid('type', `must be one of ${allowed.join(', ')}`);
    return type as T;
  }

  function rank(expression: string, types: readonly ContentType[] | 'all'): string[] {
    const rows = sql().rankPages.all({ expression, types: types === 'all' ? 'all' : `,${types.join(',')},` }) as { path: string }[];
    return rows.map((row) => row.path);
  }

  function find(query: string, types: readonly ContentType[] | 'all'): SearchResult[] {
    const expression = searchExpression(query);
    if (!expression) return [];
    let paths = rank(expression.all, types);
    let marked = `(${expression.all}) OR (${expression.any})`;
    // A question in plain words rarely has every word on one page; the best partial matches are
    // more use than nothing.
    if (paths.length === 0) {
      paths = rank(expression.any, types);
      marked = expression.any;
    }
    if (paths.length === 0) return [];
    // The best section of each page by any of the words; its snippet marks whole phrases where
    // the query had them, and single words elsewhere.
    const best = new Map<string, number>();
    for (const row of sql().rankSections.all({ expression: expression.any, paths: JSON.stringify(paths) }) as { id: number; path: string }[]) {
      if (!best.has(row.path)) best.set(row.path, row.id);
    }
    const cut = new Map<string, string>();
    for (const row of sql().snippets.all({ expression: marked, ids: JSON.stringify([...best.values()]) }) as { path: string; snippet: string }[]) {
      cut.set(row.path, row.snippet.replace(/\s+/g, ' ').trim());
    }
    return paths.map((path) => {
      const page = pages.get(path)!;
      return { title: page.title, type: page.type, snippet: cut.get(path) ?? page.description, url: page.url, path };
    });
  }

  function notFoundMessage(input: string, path: string, known: Iterable<string>, searchTool: string): string {
    const near = closestPaths(path, known);
    const hint = near.length > 0 ? `Closest: ${near.join(', ')}; or find pages with ${searchTool}.` : `Find pages with ${searchTool}.`;
    return `path: no page at ${JSON.stringify(input.trim())}. ${hint}`;
  }

  function validPath(path: unknown): string {
    if (typeof path !== 'string' || canonicalPath(path) === '') throw invalid('path', 'is required, e.g. docs/reference/mcp-server');
    return path;
  }

  const docPaths = () => [...pages.values()].filter((p) => (docTypes as readonly string[]).includes(p.type)).map((p) => p.path);
  const publicPage = ({ path, title, type, url, markdown }: ContentPage): ContentPage => ({ path, title, type, url, markdown });

  return {
    /** Documentation pages of one type (docs, guides or changelog) matching `query`, best first. */
    async searchDocs(query: string, type: DocType = 'docs'): Promise<SearchResult[]> {
      const text = validQuery(query);
      const wanted = validType(type, docTypes);
      await docs();
      return find(text, [wanted]);
    },

    /** One documentation page (docs, guides or changelog), as markdown. */
    async getDocPage(path: string): Promise<ContentPage> {
      const input = validPath(path);
      await docs();
      const canonical = canonicalPath(input);
      const page = pages.get(canonical);
      if (page && (docTypes as readonly string[]).includes(page.type)) return publicPage(page);
      if (canonical.startsWith('status/') || canonical === SITE_INDEX_PATH) {
        throw new AppError('NOT_FOUND', `path: ${canonical} is not a documentation page; read it with get_content_page`);
      }
      throw new AppError('NOT_FOUND', notFoundMessage(input, canonical, docPaths(), 'search_docs'));
    },

    /** Every public page (docs, guides, changelog, status pages, the site index) matching `query`, best first. */
    async searchContent(query: string, type: ContentType | 'all' = 'all'): Promise<SearchResult[]> {
      const text = validQuery(query);
      const wanted = validType(type, ['all', ...contentTypes] as const);
      await docs();
      if (wanted === 'all' || wanted === 'status-page' || wanted === 'site') await statusPagesFresh();
      return find(text, wanted === 'all' ? 'all' : [wanted]);
    },

    /** Any public page by path: docs/..., status/<slug> or llms.txt, as markdown. */
    async getContentPage(path: string): Promise<ContentPage> {
      const input = validPath(path);
      await docs();
      const canonical = canonicalPath(input);
      if (canonical === SITE_INDEX_PATH) {
        await statusPagesFresh();
        return publicPage(pages.get(SITE_INDEX_PATH)!);
      }
      if (canonical.startsWith('status/')) {
        // Read from the page itself, not the index: what was just published shows at once.
        const slug = canonical.slice('status/'.length);
        const view = await viewOf(slug);
        if (view) return { path: `status/${view.slug}`, title: view.title, type: 'status-page', url: view.url, markdown: statusPageMarkdown(view) };
      } else {
        const page = pages.get(canonical);
        if (page) return publicPage(page);
      }
      // Suggestions name the pages there are now, not as last indexed.
      const known = [...docPaths(), SITE_INDEX_PATH, ...(await listSlugs()).map((slug) => `status/${slug}`)];
      throw new AppError('NOT_FOUND', notFoundMessage(input, canonical, known, 'search_content'));
    },

    /** The site index, llms.txt: product context, plans and a link to every public page. */
    async siteIndex(): Promise<string> {
      await statusPagesFresh();
      return pages.get(SITE_INDEX_PATH)!.markdown;
    },

    /** Status pages are indexed again before the next search that includes them. */
    invalidate(): void {
      generation++;
    },

    /** Frees the index. Calls afterwards fail. */
    close(): void {
      if (closed) return;
      closed = true;
      index?.db.close();
    },
  };
}

export type ContentIndex = ReturnType<typeof createContentIndex>;
