import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Context } from 'hono';
import { UI_ROUTES } from '../../contract/dashboard.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { packageRoot } from '../package-root.ts';

/** Paths the UI's router draws; each is answered with index.html. */
export { UI_ROUTES };

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Vite names every emitted file by its content hash, so a name never changes meaning. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A file name as Vite emits it: no folders, no dot files, nothing to climb out with. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The encodings the build writes beside each script and style, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/** Whether an Accept-Encoding header accepts `coding` (named, and not with q=0). */
function accepts(header: string, coding: string): boolean {
  return header.split(',').some((part) => {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    return name === coding && !params.some((p) => /^q=0(?:\.0*)?$/.test(p));
  });
}

const assetHeaders = (type: string) => ({
  'content-type': type,
  'cache-control': IMMUTABLE,
  'x-content-type-options': 'nosniff',
  // A cache keeps the encodings apart.
  vary: 'accept-encoding',
});

export interface UiOptions {
  /** The built UI; `dist/renderer` of the package unless a test says otherwise. */
  root?: string;
}

/** The built index.html; undefined when the UI is not built. */
export async function readIndexHtml(root = join(packageRoot, 'dist', 'renderer')): Promise<string | undefined> {
  try {
    return await readFile(join(root, 'index.html'), 'utf8');
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The UI on the dashboard port: the built files under `/assets/*`, and index.html for the
 * router's paths. Registered last, so every API and sign-in route keeps its own answer.
 */
export function registerUi(app: HonoApp, options: UiOptions = {}): void {
  const root = options.root ?? join(packageRoot, 'dist', 'renderer');
  // Hashed files never change, so each is read once (and a missing one looked for once).
  const assets = new Map<string, Uint8Array | null>();
  const asset = async (file: string): Promise<Uint8Array | undefined> => {
    if (!assets.has(file)) {
      try {
        assets.set(file, await readFile(join(root, 'assets', file)));
      } catch {
        if (!(await exists(root))) return undefined;
        assets.set(file, null);
      }
    }
    return assets.get(file) ?? undefined;
  };

  const notBuilt = (c: Context<AppEnv>) => {
    c.header('cache-control', 'no-store');
    return c.text('The Statusdesk UI is not built: run npm run build.\n', 503);
  };

  app.get('/assets/*', async (c) => {
    const name = c.req.path.slice('/assets/'.length);
    const type = CONTENT_TYPES[extname(name).toLowerCase()];
    if (!ASSET_NAME.test(name) || !type) throw new AppError('NOT_FOUND', `no file ${c.req.path}`);
    // The build writes brotli and gzip copies of scripts and styles; a browser gets the best it accepts.
    const accepted = c.req.header('accept-encoding') ?? '';
    for (const encoding of ENCODINGS) {
      if (!accepts(accepted, encoding.name)) continue;
      const bytes = await asset(`${name}${encoding.suffix}`);
      if (bytes) return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { ...assetHeaders(type), 'content-encoding': encoding.name });
    }
    const bytes = await asset(name);
    if (bytes) return c.body(bytes as Uint8Array<ArrayBuffer>, 200, assetHeaders(type));
    if (!(await exists(root))) return notBuilt(c);
    throw new AppError('NOT_FOUND', `no file ${c.req.path}`);
  });

  // index.html is read on each request: it is small, and names the assets of the latest build.
  const index = async (c: Context<AppEnv>) => {
    const html = await readIndexHtml(root);
    if (html === undefined) return notBuilt(c);
    return c.html(html, 200, { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  };
  for (const route of UI_ROUTES) app.get(route, index);

  // Any other address a browser opens (a mistyped or outdated link) gets the app too, with 404: its
  // router draws the not-found screen inside the dashboard, with the way back. Calls of the API and
  // requests for files keep their JSON refusal.
  app.get('*', async (c) => {
    const path = c.req.path;
    const wantsPage = (c.req.header('accept') ?? '').includes('text/html');
    if (!wantsPage || NOT_PAGES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return c.notFound();
    const html = await readIndexHtml(root);
    if (html === undefined) return notBuilt(c);
    return c.html(html, 404, { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  });
}

/** Where the dashboard's port answers programs, never with a page. */
const NOT_PAGES = ['/api', '/rpc', '/assets', '/oauth', '/mcp', '/signin'];
