import { z } from 'zod';
import { defineTool, READ } from './tool.ts';

const query = z.string().min(1).max(500).describe('Words to look for.');
const hit = z.object({ title: z.string(), snippet: z.string(), url: z.string(), path: z.string().describe('For get_doc_page or get_content_page.') });
const page = z.object({ path: z.string(), title: z.string(), url: z.string(), markdown: z.string() });

/** The four public content tools: any credential, any scope, any plan. */
export const contentTools = [
  defineTool({
    name: 'search_docs',
    title: 'Search the documentation',
    description:
      'Ranked search over the Statusdesk documentation: reference pages (type docs, the default), guides, or the changelog. Returns title, snippet, url and path.',
    access: 'public',
    annotations: READ,
    input: z.strictObject({ query, type: z.enum(['docs', 'guides', 'changelog']).default('docs').describe('docs (default), guides or changelog.') }),
    output: z.object({ results: z.array(hit) }),
    async run({ content }, args) {
      return { results: (await content.searchDocs(args.query, args.type)).map(({ title, snippet, url, path }) => ({ title, snippet, url, path })) };
    },
  }),
  defineTool({
    name: 'get_doc_page',
    title: 'Get a documentation page',
    description: 'The markdown of one documentation, guide or changelog page, by the path search_docs gave (e.g. docs/reference/mcp-server).',
    access: 'public',
    annotations: READ,
    input: z.strictObject({ path: z.string().min(1).max(300).describe('e.g. docs/reference/mcp-server or docs/guides/getting-started.') }),
    output: page,
    async run({ content }, args) {
      const { path, title, url, markdown } = await content.getDocPage(args.path);
      return { path, title, url, markdown };
    },
  }),
  defineTool({
    name: 'search_content',
    title: 'Search every public page',
    description:
      'Ranked search over every public page: documentation, guides, changelog, status pages and the site index. Returns title, type, snippet, url and path.',
    access: 'public',
    annotations: READ,
    input: z.strictObject({
      query,
      type: z
        .enum(['all', 'docs', 'guides', 'changelog', 'status-page', 'site'])
        .default('all')
        .describe('all (default), docs, guides, changelog, status-page or site.'),
    }),
    output: z.object({ results: z.array(hit.extend({ type: z.string() })) }),
    async run({ content }, args) {
      return {
        results: (await content.searchContent(args.query, args.type)).map(({ title, type, snippet, url, path }) => ({ title, type, snippet, url, path })),
      };
    },
  }),
  defineTool({
    name: 'get_content_page',
    title: 'Get a public page',
    description: 'The markdown of one public page by its path: llms.txt (the site index with the plans), status/<slug>, or a docs path.',
    access: 'public',
    annotations: READ,
    input: z.strictObject({ path: z.string().min(1).max(300).describe('e.g. llms.txt, status/<slug> or docs/guides/ai-editors.') }),
    output: page.extend({ type: z.string() }),
    async run({ content }, args) {
      const { path, title, type, url, markdown } = await content.getContentPage(args.path);
      return { path, title, type, url, markdown };
    },
  }),
];
