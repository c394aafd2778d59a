import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json and docs/. Found by walking up, because this module runs both
 * from server/ (sources) and from dist/ (the bundle), at different depths.
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Statusdesk package folder');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();

export const VERSION: string = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version;
