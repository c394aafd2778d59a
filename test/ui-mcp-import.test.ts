// Watch your editors' MCP servers, in Chromium against the real service: the servers a fixture
// home's editor files name (one of them a real MCP server over Streamable HTTP, one a command that
// does not exist), a file that is no JSON named, Statusdesk's own entry shown and not offered, and
// a monitor made of the one server picked, and of nothing else.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@connectrpc/connect';
import { MCPTransport, type MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, tempDir, type TestService } from './support/harness.ts';
import { type HttpMcpServer, startHttpMcpServer } from './support/mcp-servers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };

/** A pattern of these texts, as written, in this order. */
const inOrder = (...texts: string[]) => new RegExp(texts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*'));

let service: TestService;
let editors: { path: string; remove(): Promise<void> };
let mcpServer: HttpMcpServer;
let cursorFile: string;
let vscodeFile: string;

before(async () => {
  editors = await tempDir();
  mcpServer = await startHttpMcpServer('v2');
  cursorFile = join(editors.path, 'home', '.cursor', 'mcp.json');
  vscodeFile = join(editors.path, 'home', '.config', 'Code', 'User', 'settings.json');
  mkdirSync(join(cursorFile, '..'), { recursive: true });
  mkdirSync(join(vscodeFile, '..'), { recursive: true });
  mkdirSync(join(editors.path, 'project'));
  writeFileSync(
    cursorFile,
    JSON.stringify({
      mcpServers: {
        docs: { url: mcpServer.url },
        local: { command: 'statusdesk-test-no-such-command', args: ['--serve'], env: { TOKEN: 'kept-out-of-the-page' } },
        statusdesk: { command: 'statusdesk', args: ['mcp'] },
      },
    }),
  );
  writeFileSync(vscodeFile, '{ "mcp": { "servers": ');
  service = await startTestService({}, undefined, { editorFolders: { home: join(editors.path, 'home'), project: join(editors.path, 'project') } });
});
after(async () => {
  await service?.stop();
  await mcpServer?.close();
  await editors?.remove();
});

async function newTestWorkspace(): Promise<{ id: string; name: string; rpc: Client<typeof MonitorService> }> {
  const ws = await newWorkspace(service, 'import');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, name: ws.slug, rpc: monitorRpc(service, secret) };
}

describe("watching your editors' MCP servers", () => {
  test(
    "the servers found are listed with their files and the file that is no JSON; picking the HTTP one makes one monitor of it, reached from the new monitor's MCP type",
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const { page } = await openPage(browser, service, { viewport: { width: 1280, height: 900 } });
        const violations = watchCsp(page);
        await chooseWorkspace(page, { label: ws.name });
        await page.goto(`${service.dashboardUrl}/monitors/new`);
        await page.getByRole('radio', { name: 'MCP server' }).check();
        await page.getByRole('link', { name: 'Find them in your editors' }).click();
        await page.waitForURL(/\/monitors\/import$/);
        await page.getByRole('heading', { name: "Watch your editors' MCP servers" }).waitFor();

        const servers = page.getByRole('group', { name: 'Servers found' });
        await servers.getByRole('checkbox').first().waitFor();
        const docs = servers.getByRole('listitem').filter({ hasText: 'docs' });
        const local = servers.getByRole('listitem').filter({ hasText: 'statusdesk-test-no-such-command' });
        assert.match(await docs.innerText(), inOrder('Cursor', 'user', 'Streamable HTTP', mcpServer.url, cursorFile));
        assert.match(await local.innerText(), /stdio[\s\S]*statusdesk-test-no-such-command --serve/);
        assert.doesNotMatch(await page.locator('main').innerText(), /kept-out-of-the-page/, 'environment values are not shown');
        const itself = servers.getByRole('listitem').filter({ hasText: 'This is Statusdesk' });
        assert.equal(await itself.count(), 1);
        assert.equal(await itself.getByRole('checkbox').count(), 0, 'Statusdesk itself is not offered');
        assert.equal(await servers.getByRole('checkbox').count(), 2);
        const problems = page.getByRole('region', { name: 'Files that could not be read' });
        assert.match(await problems.innerText(), inOrder(`${vscodeFile}: not valid JSON`));

        const watch = page.getByRole('button', { name: 'Watch the selected servers' });
        assert.equal(await watch.isDisabled(), true, 'nothing picked, nothing to watch');
        assert.match(await page.locator('form').innerText(), /Picking a stdio server lets Statusdesk run its command at every check/);
        assert.equal((await ws.rpc.listMonitors({})).mcpMonitors.length, 0, 'listing created nothing');

        await servers.getByRole('checkbox', { name: 'docs' }).check();
        await watch.click();
        await page.waitForURL(`${service.dashboardUrl}/`);
        await page.getByRole('list', { name: 'Monitors' }).getByRole('listitem').filter({ hasText: 'docs' }).waitFor();

        const { mcpMonitors } = await ws.rpc.listMonitors({});
        assert.deepEqual(
          mcpMonitors.map((m) => [m.name, m.transport, m.server, m.periodicity]),
          [['docs', MCPTransport.MCP_TRANSPORT_HTTP, mcpServer.url, Periodicity.PERIODICITY_5M]],
        );
        assert.deepEqual(violations, []);
      }),
  );

  test("an empty overview offers to watch the editors' MCP servers", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.name });
      await page.getByRole('heading', { name: 'No monitors yet' }).waitFor();
      await page.getByRole('link', { name: "Watch your editors' MCP servers" }).click();
      await page.waitForURL(/\/monitors\/import$/);
      await page.getByRole('group', { name: 'Servers found' }).getByRole('checkbox', { name: 'docs' }).waitFor();
    }),
  );
});
