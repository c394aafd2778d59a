// Makes sure the browser tests have a Chromium: the one named by CHROMIUM_PATH, the system's, or
// Playwright's; failing those, Playwright's download, then (as root on Debian or Ubuntu) apt.
// Prints one line saying what it found or did; exits non-zero when there is still none.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumVersion, findChromium } from '../test/support/browser.ts';

function using(path: string, how: string): never {
  const version = chromiumVersion(path);
  console.log(`chromium: ${how}${path}${version ? ` (${version})` : ''}`);
  process.exit(0);
}

function attempt(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 5 * 60_000 });
  return result.status === 0;
}

if (process.env.CHROMIUM_PATH && !existsSync(process.env.CHROMIUM_PATH)) {
  console.error(`chromium: CHROMIUM_PATH names ${process.env.CHROMIUM_PATH}, which does not exist`);
  process.exit(1);
}

const found = findChromium();
if (found) using(found, 'using ');

const tried: string[] = [];
if (attempt('npx', ['--no-install', 'playwright-core', 'install', 'chromium'])) {
  const downloaded = findChromium();
  if (downloaded) using(downloaded, 'downloaded by Playwright to ');
}
tried.push('npx playwright-core install chromium');

const isRoot = process.getuid?.() === 0;
const hasApt = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (isRoot && hasApt) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'pipe'], env, timeout: 10 * 60_000 });
  const install =
    update.status === 0 &&
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 'ignore', 'pipe'], env, timeout: 20 * 60_000 });
  tried.push('apt-get install chromium');
  if (install && install.status === 0) {
    const installed = findChromium();
    if (installed) using(installed, 'installed from apt: ');
  }
}

console.error(
  `chromium: none found (CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome, Playwright's cache) and ${tried.join(', then ')} failed. ` +
    'Install Chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable; the browser tests need one.',
);
process.exit(1);
