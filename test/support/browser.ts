import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type LaunchOptions, type Locator, type Page } from 'playwright-core';
import type { TestService } from './harness.ts';

/** Where a Chromium is looked for, in order, before Playwright's own download. */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags for a quiet headless browser in a container: no sandbox, GPU, updates or sync. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** Every page action and wait gives up after this long, so a broken screen fails instead of hanging. */
export const ACTION_TIMEOUT_MS = 15_000;

/**
 * A Chromium executable: `CHROMIUM_PATH`, then the system's, then the one `playwright-core
 * install chromium` keeps in its cache. Undefined when there is none.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH) return existsSync(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  const system = CHROMIUM_CANDIDATES.find((path) => existsSync(path));
  if (system) return system;
  try {
    const cached = chromium.executablePath();
    return cached && existsSync(cached) ? cached : undefined;
  } catch {
    return undefined;
  }
}

/** "Chromium 156.0.8078.79 ..." of an executable, or undefined when it does not answer. */
export function chromiumVersion(path: string): string | undefined {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: set CHROMIUM_PATH, install chromium, or run node scripts/ensure-chromium.ts');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000, ...options });
}

/** A fresh one-time sign-in link for the owner, as a restart of the service would print. */
export async function signInLink(service: TestService): Promise<string> {
  // Imported here so that finding a browser (scripts/ensure-chromium.ts) loads no service code.
  const { withLocalOwner } = await import('./database.ts');
  const token = await withLocalOwner(service.dataDir, async (services, owner) => services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0));
  return `${service.dashboardUrl}/signin?token=${token}`;
}

/** A browser context with bounded timeouts, optionally signed in (the link lands on `/`). */
export async function openPage(
  browser: Browser,
  service: TestService,
  options: BrowserContextOptions & { signedIn?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const { signedIn = true, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...contextOptions });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  if (signedIn) await page.goto(await signInLink(service));
  return { context, page };
}

/** One browser for `run`, always closed. */
export async function withBrowser(run: (browser: Browser) => Promise<void>): Promise<void> {
  const browser = await launchChromium();
  try {
    await run(browser);
  } finally {
    await browser.close();
  }
}

/** Collects the Content-Security-Policy violations a page reports. */
export function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Waits (bounded) until `control` has the focus: a form moves it once its refusal is drawn. The
 * predicate is a function, evaluated once: a string would be evaluated again at each animation
 * frame, which the dashboard's Content-Security-Policy (no 'unsafe-eval') refuses.
 */
export async function focusReaches(control: Locator): Promise<void> {
  const element = await control.elementHandle();
  await control.page().waitForFunction((el) => el !== null && el === el.ownerDocument.activeElement, element);
}

/** Marks the document open in `page`, so that `assertSameDocument` can tell it was not reloaded or left. */
export async function markDocument(page: Page): Promise<void> {
  await page.evaluate('window.__sameDocument = true');
}

export async function assertSameDocument(page: Page): Promise<void> {
  assert.equal(await page.evaluate('window.__sameDocument === true'), true, 'the page was reloaded or left');
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.2 A and AA violations of the page as it is now, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const { axe, document } = globalThis as unknown as {
      document: unknown;
      axe: { run(context: unknown, options: object): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> };
    };
    const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
    const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/**
 * Chooses a workspace in the dashboard's switcher as a person does: in a narrow window the
 * switcher sits behind the menu button, which is opened first and closed again after.
 */
export async function chooseWorkspace(page: Page, option: string | { label: string }): Promise<void> {
  const opened = await openMenu(page);
  await page.getByLabel('Current workspace').selectOption(option);
  const menuButton = page.locator('button.menu-button');
  if (opened && (await menuButton.getAttribute('aria-expanded')) === 'true') await menuButton.click();
}

/** Goes to a screen by its link in the main navigation, opening the menu first in a narrow window. */
export async function goToScreen(page: Page, link: string): Promise<void> {
  await openMenu(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
}

/** Opens the menu when the window is narrow enough to hide it behind its button; whether it did. */
async function openMenu(page: Page): Promise<boolean> {
  const menuButton = page.locator('button.menu-button');
  await page.getByLabel('Current workspace').waitFor({ state: 'attached' });
  if (!(await menuButton.isVisible()) || (await menuButton.getAttribute('aria-expanded')) === 'true') return false;
  await menuButton.click();
  return true;
}

const THEMES = ['light', 'dark'] as const;
const WIDTHS = [1280, 390] as const;

/**
 * axe's findings on the page as it is, in the light and the dark theme, 1280 and 390 px wide, each
 * line naming where; the page is left at its size in the light theme.
 */
export async function axeInBothThemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  const size = page.viewportSize()!;
  for (const scheme of THEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: size.height });
      found.push(...(await axeViolations(page)).map((v) => `${scheme} ${width}px: ${v}`));
    }
  }
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/**
 * Light and dark, wide and phone-sized: the page passes axe and scrolls no sideways in each, and
 * each is kept as a picture (`prefix`-scheme-width, when SCREENSHOTS_DIR is set). Back to light at
 * 1280 px afterwards.
 */
export async function inEveryLook(page: Page, prefix: string): Promise<void> {
  for (const scheme of THEMES) {
    for (const width of WIDTHS) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await axeViolations(page), [], `axe, ${prefix}, ${scheme}, ${width} px`);
      assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${prefix}: no sideways scroll at ${width} px`);
      await screenshot(page, `${prefix}-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * A screenshot of the page (or of `target`, a part of it) into SCREENSHOTS_DIR as `name`.png when
 * it is set, to look at a screen after changing it; nothing otherwise.
 */
export async function screenshot(page: Page, name: string, target?: Locator): Promise<void> {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.png`;
  await (target ? target.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
}

/**
 * Full-page screenshots in both themes at both widths, into SCREENSHOTS_DIR when it is set (to look
 * at a screen after changing it); nothing otherwise.
 */
export async function screenshotsInBothThemes(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const size = page.viewportSize()!;
  for (const scheme of THEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 860 });
      await page.screenshot({ path: `${dir}/${name}-${scheme}-${width}.png`, fullPage: true });
    }
  }
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'light' });
}
