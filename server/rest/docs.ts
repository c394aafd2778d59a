import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from '@hono/zod-openapi';
import type { ContentIndex } from '../content/content-index.ts';
import { DOC_PATH } from '../content/content-paths.ts';
import { AppError } from '../errors.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { packageRoot } from '../package-root.ts';
import { ErrorEnvelopeSchema } from './schemas.ts';

const DOCS_DIR = join(packageRoot, 'docs');

/**
 * The product's own documentation, as markdown, at /docs/<path> (the error envelope links here),
 * and the site index at /llms.txt.
 */
export function registerDocs(app: HonoApp, content: ContentIndex): void {
  // Documented by hand in the registry: the page path spans several segments, which an OpenAPI
  // route template cannot match, so the handler below is a plain wildcard route.
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/docs/{path}',
    summary: 'A page of the product documentation, as markdown',
    description: 'The path may span segments, e.g. reference/errors. No credential needed.',
    tags: ['Documentation'],
    request: { params: z.object({ path: z.string().regex(DOC_PATH).openapi({ example: 'reference/errors' }) }) },
    responses: {
      200: { description: 'The page.', content: { 'text/markdown': { schema: z.string() } } },
      404: { description: 'No such page.', content: { 'application/json': { schema: ErrorEnvelopeSchema } } },
    },
  });
  app.get('/docs/*', async (c) => {
    const path = c.req.path.slice('/docs/'.length).replace(/\/$/, '') || 'index';
    if (!DOC_PATH.test(path)) throw new AppError('NOT_FOUND', `no documentation page at ${path}`);
    try {
      const text = await readFile(join(DOCS_DIR, `${path}.md`), 'utf8');
      return c.body(text, 200, { 'content-type': 'text/markdown; charset=utf-8' });
    } catch {
      throw new AppError('NOT_FOUND', `no documentation page at ${path}`);
    }
  });

  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/llms.txt',
    summary: 'The site index (llms.txt)',
    description: 'Product context, the plans, and a link to every documentation page and public status page. No credential needed.',
    tags: ['Documentation'],
    responses: {
      200: { description: 'The index, as markdown in the llms.txt form.', content: { 'text/plain': { schema: z.string() } } },
    },
  });
  app.get('/llms.txt', async (c) => c.body(await content.siteIndex(), 200, { 'content-type': 'text/plain; charset=utf-8' }));
}
