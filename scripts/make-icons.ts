// The desktop app's icons in build/: the app icon (512 px) and the tray's four states (32 px),
// drawn as SVG and rendered to PNG by Chromium. Run again after changing a drawing:
// node scripts/make-icons.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { packageRoot } from '../server/package-root.ts';
import { CHROMIUM_ARGS, findChromium } from '../test/support/browser.ts';

const PULSE = 'M3 12h4l3-7 4 14 3-7h4';

/** The brand mark: the pulse line on a rounded square. */
const appIcon = (size: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24">
    <rect x="1" y="1" width="22" height="22" rx="5.5" fill="#4f46e5"/>
    <path d="${PULSE}" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" transform="translate(2.4 2.4) scale(0.8)"/>
  </svg>`;

/** A tray state: the pulse in the state's colour, readable on light and dark menu bars. */
const trayIcon = (size: number, colour: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24">
    <circle cx="12" cy="12" r="11" fill="${colour}"/>
    <path d="${PULSE}" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round" transform="translate(3 3) scale(0.75)"/>
  </svg>`;

const icons: [string, string, number][] = [
  ['icon.png', appIcon(512), 512],
  ['tray-up.png', trayIcon(32, '#15803d'), 32],
  ['tray-degraded.png', trayIcon(32, '#b45309'), 32],
  ['tray-down.png', trayIcon(32, '#c62828'), 32],
  ['tray-unknown.png', trayIcon(32, '#62626d'), 32],
];

const out = join(packageRoot, 'build');
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: CHROMIUM_ARGS });
try {
  for (const [name, svg, size] of icons) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await page.screenshot({ path: join(out, name), omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
    process.stdout.write(`build/${name}\n`);
  }
} finally {
  await browser.close();
}
