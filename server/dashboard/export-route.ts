import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { zipSync } from 'fflate';
import { DASHBOARD_API } from '../../contract/dashboard.ts';
import { exportStaticPage } from '../public/static-export.ts';
import type { HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { workspaceIdOf } from './route-params.ts';

/**
 * The static copy of a status page as a zip file: the files `statusdesk pages export` writes, made
 * by the same code, in a private temporary folder outside the data folder that is removed before
 * the answer leaves. A POST, since it comes from a button of the dashboard's own page; it changes
 * nothing, so reading the page is all it needs.
 */
export function registerExportRoute(app: HonoApp, options: DashboardAppOptions): void {
  const { services } = options;
  app.post(DASHBOARD_API.exportPage.path, async (c) => {
    const page = await services.pages.get(c.get('actor'), workspaceIdOf(c), c.req.param('pageId'));
    const view = await services.publicPages.view(page.slug);
    const folder = await mkdtemp(join(tmpdir(), 'statusdesk-export-'));
    let zip: Uint8Array;
    try {
      const files = await exportStaticPage(view, folder);
      const entries = await Promise.all(files.map(async (file) => [basename(file), new Uint8Array(await readFile(file))] as const));
      zip = zipSync(Object.fromEntries(entries), { level: 6 });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${page.slug}-status-page.zip"`,
      'cache-control': 'no-store',
    });
  });
}
