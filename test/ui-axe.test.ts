// Accessibility of every screen, as axe-core checks it against WCAG 2.0, 2.1 and 2.2, levels A and
// AA, in Chromium against the real service: each screen with data in it (monitors with a check, a
// status page with a report, a channel, a private location, a key, a connected app and a waiting
// consent request) and the first run's empty screens, each tab of a status page, the settings, the
// not-found screen, the menu a narrow window opens and the public status page, in the light and the
// dark theme, 1280 and 390 px wide. The UI is finished only when this passes; a violation that
// cannot be fixed where it stands is listed in KNOWN with why.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createClient, MCPTransport, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { openPage, withBrowser } from './support/browser.ts';
import { newWorkspace, tempDir } from './support/harness.ts';
import { startTcpListener } from './support/grpc-peers.ts';
import { BEHAVIOUR_ENV, type HttpMcpServer, STDIO_SERVER_SCRIPT, startHttpMcpServer, toolsWithDescription } from './support/mcp-servers.ts';
import {
  authorizeUrl,
  connectClient,
  type OAuthTestService,
  pkce,
  randomState,
  type Receiver,
  registerClient,
  startOAuthService,
  startReceiver,
} from './support/oauth-peers.ts';

/** WCAG 2.0, 2.1 and 2.2, levels A and AA, as axe-core tags its rules. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];
const THEMES = ['light', 'dark'] as const;
/**
 * The rules whose outcome a theme changes: the themes differ in colours only (the same document,
 * other custom properties), so the second theme is checked by these, and the first by every rule.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];
const WIDTHS = [
  { width: 1280, height: 860 },
  { width: 390, height: 844 },
] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Violations known and accepted for now, each with its reason: matched by rule, and optionally by
 * screen and by a target selector. A violation outside this list fails the test, and so does an
 * entry that no longer matches anything (the fix landed: remove it).
 */
interface KnownViolation {
  rule: string;
  screens?: string[];
  target?: RegExp;
  reason: string;
}
const KNOWN: KnownViolation[] = [];

/** What axe-core says of one rule (the parts read here). */
interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; any: { message: string }[]; all: { message: string }[]; none: { message: string }[] }[];
}

/** The page's globals the functions run in it use (this file is type-checked without the DOM's types). */
interface PageGlobals {
  axe?: { run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }> };
  document: { querySelector(selector: string): unknown };
  history: { pushState(state: null, unused: string, url: string): void };
  dispatchEvent(event: unknown): void;
  PopStateEvent: new (type: string) => unknown;
  requestAnimationFrame(callback: () => void): void;
}

interface Found {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
  details: string[];
}

interface Screen {
  name: string;
  path: string;
  /** The level-1 heading the screen shows once drawn. */
  heading: string | RegExp;
  /** Text of the seeded data the screen shows once loaded, if any. */
  shows?: string;
  /** More of it, found otherwise. */
  alsoShows?: (page: Page) => Locator;
  /** The workspace the screen is of, chosen in the sidebar: the slug of one, or undefined for the seeded one. */
  workspace?: string;
  /** What a person does on the screen before it is checked (a choice that shows more of it). */
  prepare?: (page: Page) => Promise<void>;
}

let service: OAuthTestService;
let client: StatusdeskClient;
let receiver: Receiver;
let tcp: { port: number; close(): Promise<void> };
let mcpServer: HttpMcpServer;
const seeded = { monitorId: '', mcpId: '', stdioId: '', pageId: '', emptyWorkspace: '', appName: 'Axe Editor', waitingAppName: 'Axe Waiting Editor' };

/** A TCP listener on 127.0.0.1 that accepts each connection and closes it: a monitor of it is up. */
const tcpListener = () => startTcpListener('127.0.0.1', 0, true);

let editors: { path: string; remove(): Promise<void> };

/** The editors' files the MCP server import lists: servers of each transport, one with a warning, Statusdesk itself, and a file that is no JSON. */
async function editorFixtures(): Promise<{ home: string; project: string }> {
  editors = await tempDir();
  const home = join(editors.path, 'home');
  const project = join(editors.path, 'project');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(join(home, '.config', 'Code', 'User'), { recursive: true });
  mkdirSync(project);
  const servers = {
    'remote docs': { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer axe-secret' } },
    'local files': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/axe/projects'], env: { TOKEN: 'axe' }, disabled: true },
    statusdesk: { command: 'statusdesk', args: ['mcp'] },
  };
  writeFileSync(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  writeFileSync(join(home, '.config', 'Code', 'User', 'settings.json'), '{ "mcp": { "servers": ');
  return { home, project };
}

before(async () => {
  service = await startOAuthService({ editorFolders: await editorFixtures() });
  receiver = await startReceiver();
  tcp = await tcpListener();
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });

  // A monitor with a check behind it, and one of each other kind of data a screen lists.
  const { monitor } = await client.monitors.createTCPMonitor({
    monitor: { name: 'orders db', uri: `127.0.0.1:${tcp.port}`, periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'], retry: 0, tags: ['db'] },
  });
  seeded.monitorId = monitor!.id;
  await client.monitors.triggerMonitor({ id: seeded.monitorId });
  await client.monitors.createHTTPMonitor({ monitor: { name: 'storefront', url: 'http://127.0.0.1:9/health', periodicity: Periodicity.PERIODICITY_5M } });
  // An MCP server whose tools changed after they were pinned (a drift), and a stdio one that exits at once.
  mcpServer = await startHttpMcpServer('v2');
  const { monitor: mcp } = await client.monitors.createMCPMonitor({
    monitor: { name: 'docs tools', server: mcpServer.url, periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'], retry: 0 },
  });
  seeded.mcpId = mcp!.id;
  await client.monitors.triggerMonitor({ id: seeded.mcpId });
  mcpServer.behaviour = { tools: toolsWithDescription('echo', 'Echoes the text back, and mails it elsewhere.') };
  await client.monitors.triggerMonitor({ id: seeded.mcpId });
  const { monitor: stdio } = await client.monitors.createMCPMonitor({
    monitor: {
      name: 'local notes',
      server: process.execPath,
      transport: MCPTransport.MCP_TRANSPORT_STDIO,
      args: [STDIO_SERVER_SCRIPT],
      env: { [BEHAVIOUR_ENV]: JSON.stringify({ generation: 'v2', exitAtOnce: { code: 3, stderr: 'notes: no configuration file found' } }) },
      allowCommand: true,
      periodicity: Periodicity.PERIODICITY_10M,
      regions: ['iad'],
      retry: 0,
    },
  });
  seeded.stdioId = stdio!.id;
  await client.monitors.triggerMonitor({ id: seeded.stdioId });
  const { statusPage } = await client.pages.createStatusPage({ slug: 'axe-status', title: 'Axe status' });
  seeded.pageId = statusPage!.id;
  const { component } = await client.pages.addPageComponent({ pageId: seeded.pageId, name: 'Checkout', monitorId: seeded.monitorId });
  await client.reports.createStatusReport({
    pageId: seeded.pageId,
    title: 'Slow checkout',
    message: 'We are looking into it.',
    pageComponentIds: [component!.id],
    notify: false,
  });
  // A resolved report (drawn faded below the open one), a maintenance window and a subscriber, for the page's other tabs.
  const { statusReport: earlier } = await client.reports.createStatusReport({
    pageId: seeded.pageId,
    title: 'Login errors',
    message: 'Some sign-ins fail.',
    pageComponentIds: [component!.id],
    notify: false,
  });
  await client.reports.resolveStatusReport({ id: earlier!.id, message: 'Fixed.', notify: false });
  const hour = 3_600_000;
  await client.maintenances.createMaintenance({
    pageId: seeded.pageId,
    title: 'Database upgrade',
    message: 'Checkout may be slow.',
    from: new Date(Date.now() + 24 * hour).toISOString(),
    to: new Date(Date.now() + 26 * hour).toISOString(),
    pageComponentIds: [component!.id],
    notify: false,
  });
  await client.pages.addSubscriber({ pageId: seeded.pageId, target: { case: 'webhookUrl', value: 'http://127.0.0.1:9/subscriber' } });
  const webhook = { url: 'http://127.0.0.1:9/alerts', secret: 'sixteen-or-more-characters' };
  await client.notifications.createNotificationChannel({ name: 'Pager', config: { case: 'webhook', value: webhook } });
  await client.privateLocations.createPrivateLocation({ name: 'office', metadata: { floor: '2' } });
  await service.createKey('read');
  // A connected app (approved), and another waiting for the owner's decision (made in the browser below).
  await connectClient(service, receiver, { name: seeded.appName });
  // A workspace with nothing in it yet, for the screens a first run shows.
  seeded.emptyWorkspace = (await newWorkspace(service, 'axe-empty')).slug;
});
after(async () => {
  await service?.stop();
  await receiver?.close();
  await tcp?.close();
  await mcpServer?.close();
  await editors?.remove();
});

/** Waits until the screen is drawn with its data: its heading, the seeded text, nothing loading. */
async function ready(page: Page, screen: Screen): Promise<void> {
  await page.getByRole('heading', { name: screen.heading, level: 1 }).waitFor();
  if (screen.shows) await page.getByText(screen.shows, { exact: true }).first().waitFor();
  if (screen.alsoShows) await screen.alsoShows(page).waitFor();
  await screen.prepare?.(page);
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('.loading') === null);
}

/** axe-core's violations of the page as it is now: of every WCAG A and AA rule, or of `rules` of them. */
async function violations(page: Page, rules?: string[]): Promise<Found[]> {
  if (!(await page.evaluate(() => (globalThis as unknown as PageGlobals).axe !== undefined))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ tags, rules }) => {
      const { axe, document } = globalThis as unknown as PageGlobals;
      const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: tags };
      const result = await axe!.run(document, { runOnly, resultTypes: ['violations'] });
      return result.violations.map((v) => ({
        rule: v.id,
        impact: v.impact ?? 'unknown',
        help: v.help,
        targets: v.nodes.map((node) => node.target.map(String).join(' ')),
        // What axe measured at each target (a contrast ratio and its colours, say), to fix it without running axe again.
        details: v.nodes.map((node) => [...node.any, ...node.all, ...node.none].map((check) => check.message).join('; ')),
      }));
    },
    { tags: WCAG_TAGS, rules },
  );
}

interface Reported extends Found {
  screen: string;
  theme: string;
  width: number;
}

/** Checks `screen` (already open) in both themes at both widths; returns what axe found there. */
async function checkScreen(page: Page, screen: Screen): Promise<Reported[]> {
  const found: Reported[] = [];
  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      // The new layout and colours are drawn before axe reads them.
      await page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            const { requestAnimationFrame } = globalThis as unknown as PageGlobals;
            requestAnimationFrame(() => requestAnimationFrame(resolve));
          }),
      );
      const rules = theme === THEMES[0] ? undefined : COLOUR_RULES;
      for (const violation of await violations(page, rules)) found.push({ ...violation, screen: screen.name, theme, width: viewport.width });
    }
  }
  return found;
}

const isKnown = (known: KnownViolation, v: Reported, target: string) =>
  known.rule === v.rule && (!known.screens || known.screens.includes(v.screen)) && (!known.target || known.target.test(target));

function describeViolations(list: Reported[]): string {
  return list
    .map((v) => {
      const where = v.targets.map((target, i) => `    ${target}: ${v.details[i]}`).join('\n');
      return `- ${v.screen} · ${v.theme} · ${v.width} px: ${v.rule} (${v.impact}) ${v.help}\n${where}`;
    })
    .join('\n');
}

describe('accessibility (axe-core, WCAG 2.2 AA)', () => {
  test('every screen passes in both themes at 1280 and 390 px', { timeout: 300_000 }, () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { reducedMotion: 'reduce' });
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

      // The consent screen of an app that asks to connect, reached as an editor sends the browser.
      const { client_id } = await registerClient(service.apiUrl, [receiver.redirectUri()], seeded.waitingAppName);
      await page.goto(
        authorizeUrl(service.apiUrl, {
          response_type: 'code',
          client_id,
          redirect_uri: receiver.redirectUri(),
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          scope: 'read',
          state: randomState(),
        }),
      );
      const consent: Screen = { name: 'consent', path: '', heading: `Allow ${seeded.waitingAppName} to use Statusdesk?` };
      await ready(page, consent);
      const found = await checkScreen(page, consent);

      const screens: Screen[] = [
        // A first run: a workspace with nothing in it yet says what to do.
        { name: 'overview of an empty workspace', path: '/', workspace: seeded.emptyWorkspace, heading: 'Overview', shows: 'No monitors yet' },
        {
          name: 'status pages of an empty workspace',
          path: '/pages',
          workspace: seeded.emptyWorkspace,
          heading: 'Status pages',
          alsoShows: (page) => page.locator('.placeholder, .empty').first(),
        },
        {
          name: 'notifications of an empty workspace',
          path: '/notifications',
          workspace: seeded.emptyWorkspace,
          heading: 'Notifications',
          alsoShows: (page) => page.locator('.placeholder, .empty').first(),
        },
        { name: 'overview', path: '/', heading: 'Overview', shows: 'orders db' },
        {
          name: 'monitor detail',
          path: `/monitors/${seeded.monitorId}`,
          heading: 'orders db',
          alsoShows: (page) => page.getByRole('region', { name: 'Recent checks' }).getByRole('table'),
        },
        { name: 'new monitor', path: '/monitors/new', heading: 'New monitor' },
        { name: 'edit monitor', path: `/monitors/${seeded.monitorId}/edit`, heading: 'Edit orders db' },
        {
          name: 'MCP monitor detail with a drift',
          path: `/monitors/${seeded.mcpId}`,
          heading: 'docs tools',
          alsoShows: (page) => page.getByRole('alert').filter({ hasText: 'This server changed its tools' }),
        },
        {
          name: 'MCP monitor detail of a stdio server that exited',
          path: `/monitors/${seeded.stdioId}`,
          heading: 'local notes',
          alsoShows: (page) => page.getByRole('region', { name: 'Standard error of the server' }),
        },
        {
          name: 'new MCP monitor (http)',
          path: '/monitors/new?type=mcp',
          heading: 'New monitor',
          alsoShows: (page) => page.getByLabel('Server', { exact: true }),
        },
        {
          name: 'new MCP monitor (stdio)',
          path: '/monitors/new?type=mcp',
          heading: 'New monitor',
          alsoShows: (page) => page.getByLabel('Server', { exact: true }),
          prepare: async (page) => {
            await page.getByRole('group', { name: 'Transport' }).getByRole('radio', { name: 'stdio' }).check();
            await page.getByLabel('Allow running this command', { exact: true }).waitFor();
          },
        },
        {
          name: "watch your editors' MCP servers",
          path: '/monitors/import',
          heading: "Watch your editors' MCP servers",
          alsoShows: (page) => page.getByRole('region', { name: 'Files that could not be read' }),
          // A server picked, so the button is drawn enabled.
          prepare: (page) => page.getByRole('checkbox', { name: 'remote docs' }).check(),
        },
        { name: 'edit MCP monitor (stdio)', path: `/monitors/${seeded.stdioId}/edit`, heading: 'Edit local notes' },
        { name: 'status pages', path: '/pages', heading: 'Status pages', shows: 'Axe status' },
        { name: 'status page components', path: `/pages/${seeded.pageId}`, heading: 'Axe status', shows: 'Checkout' },
        { name: 'status page preview', path: `/pages/${seeded.pageId}?tab=preview`, heading: 'Axe status', shows: 'Checkout' },
        {
          name: 'status page reports',
          path: `/pages/${seeded.pageId}?tab=reports`,
          heading: 'Axe status',
          shows: 'Slow checkout',
          alsoShows: (page) => page.getByText('Login errors', { exact: true }).first(),
        },
        {
          name: 'status page maintenance',
          path: `/pages/${seeded.pageId}?tab=maintenance`,
          heading: 'Axe status',
          alsoShows: (page) => page.getByRole('tabpanel', { name: 'Maintenance' }).getByText('Database upgrade', { exact: true }).first(),
        },
        {
          name: 'status page subscribers',
          path: `/pages/${seeded.pageId}?tab=subscribers`,
          heading: 'Axe status',
          alsoShows: (page) => page.getByRole('tabpanel', { name: 'Subscribers' }).getByRole('table'),
        },
        {
          name: 'status page export',
          path: `/pages/${seeded.pageId}?tab=export`,
          heading: 'Axe status',
          alsoShows: (page) => page.getByRole('tabpanel', { name: 'Export' }),
        },
        { name: 'notifications', path: '/notifications', heading: 'Notifications', shows: 'Pager' },
        { name: 'locations', path: '/locations', heading: 'Locations', shows: 'office' },
        {
          name: 'audit log',
          path: '/audit',
          heading: 'Audit log',
          alsoShows: (page) => page.getByRole('list', { name: 'Audit entries' }).getByRole('listitem').first(),
        },
        {
          name: 'audit log with an entry opened',
          path: '/audit',
          heading: 'Audit log',
          alsoShows: (page) => page.getByRole('list', { name: 'Audit entries' }).getByRole('listitem').first(),
          // Its fields before and after, a table that must fit a phone too.
          prepare: async (page) => {
            await page.getByRole('list', { name: 'Audit entries' }).getByRole('listitem').first().getByRole('button', { expanded: false }).first().click();
            await page.getByRole('list', { name: 'Audit entries' }).getByRole('table').first().waitFor();
          },
        },
        { name: 'connect an editor', path: '/connect', heading: 'Connect an AI editor' },
        { name: 'API keys', path: '/settings/general/api-keys', heading: 'API Keys', shows: 'read key' },
        {
          name: 'connected apps',
          path: '/settings/integrations/connected-apps',
          heading: 'Connected apps',
          shows: seeded.appName,
          // The request waiting for a decision, with its form.
          alsoShows: (page) => page.getByRole('article', { name: seeded.waitingAppName }),
        },
        { name: 'email settings', path: '/settings/general/email', heading: 'Email' },
        { name: 'not found', path: '/no/such/screen', heading: 'Page not found' },
      ];
      await page.goto(`${service.dashboardUrl}/`);
      const seededWorkspace = await page.getByLabel('Current workspace').inputValue();
      let workspace = seededWorkspace;
      for (const screen of screens) {
        // Another workspace is chosen as a person does, in the sidebar of a wide window.
        const wanted = screen.workspace
          ? await page.getByLabel('Current workspace').locator('option', { hasText: screen.workspace }).getAttribute('value')
          : seededWorkspace;
        if (wanted !== workspace) {
          await page.setViewportSize(WIDTHS[0]);
          await page.getByLabel('Current workspace').selectOption(wanted!);
          workspace = wanted!;
        }
        // Moved to as the browser's Back and Forward move: in the same document, which keeps axe-core loaded.
        await page.evaluate((path) => {
          const browser = globalThis as unknown as PageGlobals;
          browser.history.pushState(null, '', path);
          browser.dispatchEvent(new browser.PopStateEvent('popstate'));
        }, screen.path);
        await ready(page, screen);
        found.push(...(await checkScreen(page, screen)));
      }

      // The menu a narrow window opens with its button (hidden in a wide one): checked open, in both themes.
      await page.setViewportSize(WIDTHS[1]);
      await page.getByRole('button', { name: /^Menu/ }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
        for (const violation of await violations(page, theme === THEMES[0] ? undefined : COLOUR_RULES)) {
          found.push({ ...violation, screen: 'menu opened', theme, width: WIDTHS[1].width });
        }
      }

      // The public status page, as a visitor sees it (a document of its own, served on the API port).
      const publicPage: Screen = { name: 'public status page', path: '', heading: 'Axe status', shows: 'Checkout' };
      await page.goto(`${service.apiUrl}/status/axe-status`);
      await ready(page, publicPage);
      found.push(...(await checkScreen(page, publicPage)));

      const unexpected: Reported[] = [];
      const used = new Set<KnownViolation>();
      for (const violation of found) {
        const left = violation.targets
          .map((target, i) => ({ target, detail: violation.details[i]! }))
          .filter(({ target }) => {
            const known = KNOWN.find((k) => isKnown(k, violation, target));
            if (known) used.add(known);
            return !known;
          });
        if (left.length > 0) unexpected.push({ ...violation, targets: left.map((l) => l.target), details: left.map((l) => l.detail) });
      }
      assert.equal(unexpected.length, 0, `axe-core found WCAG A/AA violations:\n${describeViolations(unexpected)}`);
      const stale = KNOWN.filter((known) => !used.has(known));
      assert.deepEqual(stale, [], 'these known violations no longer occur: remove them from KNOWN');
    }),
  );
});
