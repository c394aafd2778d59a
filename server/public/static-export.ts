import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PublicPage, summaryJson } from '../domain/pages/public-view.ts';
import { renderAtomFeed } from './atom-feed.ts';
import { PAGE_SCRIPT, PAGE_SCRIPT_FILE } from './page-script.ts';
import { renderStatusPage } from './status-page.ts';

/**
 * A static copy of a status page, for publishing on any web host: index.html (no form, relative
 * links), the script beside it (page.js: local times, and refreshing when the copy is exported
 * again), feed.atom and summary.json. Each file is written beside itself and renamed into place,
 * so a folder that is being served never shows half a file.
 */
export async function exportStaticPage(page: PublicPage, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const files: [name: string, content: string][] = [
    ['index.html', renderStatusPage(page, { mode: 'static' })],
    ['feed.atom', renderAtomFeed(page, `${page.url.replace(/\/+$/, '')}/feed.atom`)],
    ['summary.json', `${JSON.stringify(summaryJson(page), null, 2)}\n`],
    // Last, as the page's extra: the page is complete without it.
    [PAGE_SCRIPT_FILE, PAGE_SCRIPT],
  ];
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(outDir, name);
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, content, 'utf8');
    await rename(partial, path);
    written.push(path);
  }
  return written;
}
