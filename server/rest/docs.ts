import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { packageRoot } from '../package-root.ts';

const DOCS_DIR = join(packageRoot, 'docs');
/** Lower-case words and hyphens per segment: nothing that can climb out of the docs folder. */
const DOC_PATH = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;

/** The product's own documentation, as markdown, at /docs/<path> (the error envelope links here). */
export function registerDocs(app: HonoApp): void {
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
}
