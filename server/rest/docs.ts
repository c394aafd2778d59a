import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from '@hono/zod-openapi';
import type { ContentIndex } from '../content/content-index.ts';
import { DOC_PATH } from '../content/content-paths.ts';
import { AppError } from '../errors.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { packageRoot } from '../package-root.ts';
import { ErrorEnvelopeSchema, hostRefusedResponse } from './schemas.ts';

const DOCS_DIR = join(packageRoot, 'docs');

/**
 * The page a `/docs/…` request names. The router decodes a path but for its reserved characters,
 * and a client generated from the OpenAPI document encodes the one parameter whole
 * (`/docs/reference%2Ferrors`), so the rest of the path is decoded here. What it decodes to still
 * has to be a page name (DOC_PATH: no `..`, no `%`), so an encoded slash reaches no more than a
 * plain one does. A path that does not decode is no page.
 */
function docPathOf(requestPath: string): string {
  const rest = requestPath.slice('/docs/'.length);
  let path: string;
  try {
    path = decodeURIComponent(rest);
  } catch {
    path = rest;
  }
  return path.replace(/\/$/, '') || 'index';
}

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
    description:
      'The path may span segments, e.g. reference/errors, sent as they are or with each slash encoded (reference%2Ferrors, as generated clients send a path parameter). No credential needed.',
    tags: ['Documentation'],
    operationId: 'getDocPage',
    security: [],
    request: { params: z.object({ path: z.string().regex(DOC_PATH).openapi({ example: 'reference/errors' }) }) },
    responses: {
      200: { description: 'The page.', content: { 'text/markdown': { schema: z.string() } } },
      ...hostRefusedResponse,
      404: { description: 'No such page.', content: { 'application/json': { schema: ErrorEnvelopeSchema } } },
    },
  });
  app.get('/docs/*', async (c) => {
    const path = docPathOf(c.req.path);
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
    operationId: 'getSiteIndex',
    security: [],
    responses: {
      200: { description: 'The index, as markdown in the llms.txt form.', content: { 'text/plain': { schema: z.string() } } },
      ...hostRefusedResponse,
    },
  });
  app.get('/llms.txt', async (c) => c.body(await content.siteIndex(), 200, { 'content-type': 'text/plain; charset=utf-8' }));
}
