// The setup texts of "Connect an AI editor" (renderer/src/editors.ts): each editor's command,
// file and install link in the format the editor reads, for OAuth and for a key.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  base64,
  claudeCodeCommand,
  claudeDesktopConfigFile,
  cursorConfigFile,
  cursorInstallLink,
  EDITORS,
  editorSetup,
  loginCommand,
  shellArgument,
  vscodeConfigFile,
  vscodeInstallLink,
} from '../renderer/src/editors.ts';

const local = { apiUrl: 'http://localhost:3000', mcpUrl: 'http://localhost:3000/mcp' };
const elsewhere = { apiUrl: 'http://localhost:3100', mcpUrl: 'http://localhost:3100/mcp' };
const oauth = { kind: 'oauth' } as const;
const SECRET = 'svc_AbC-123_xyz';
const key = { kind: 'key', secret: SECRET } as const;

/** The JSON a Cursor install link carries, and its name. */
function cursorLink(href: string): { name: string | null; config: unknown } {
  const prefix = 'cursor://anysphere.cursor-deeplink/mcp/install?';
  assert.ok(href.startsWith(prefix), href);
  const params = new URLSearchParams(href.slice(prefix.length));
  return { name: params.get('name'), config: JSON.parse(Buffer.from(params.get('config')!, 'base64').toString('utf8')) };
}

/** The JSON a VS Code install link carries. */
function vscodeLink(href: string): unknown {
  const prefix = 'vscode:mcp/install?';
  assert.ok(href.startsWith(prefix), href);
  return JSON.parse(decodeURIComponent(href.slice(prefix.length)));
}

describe('editor setup texts', () => {
  test('Claude Code: claude mcp add over HTTP to the MCP address; a key goes in --header after the address', () => {
    assert.equal(claudeCodeCommand(local, oauth), 'claude mcp add --transport http statusdesk http://localhost:3000/mcp');
    assert.equal(claudeCodeCommand(elsewhere, key), `claude mcp add --transport http statusdesk http://localhost:3100/mcp --header "x-service-key: ${SECRET}"`);
  });

  test('shell arguments: bare when safe, double quotes when nothing in them is special, else single quotes', () => {
    assert.equal(shellArgument('http://127.0.0.1:3000/mcp'), 'http://127.0.0.1:3000/mcp');
    assert.equal(shellArgument('x-service-key: svc_1'), '"x-service-key: svc_1"');
    assert.equal(shellArgument(`it's $HOME`), `'it'\\''s $HOME'`);
  });

  test('Cursor: mcpServers.statusdesk with url, and headers only with a key; the install link is base64 of the same server', () => {
    assert.deepEqual(JSON.parse(cursorConfigFile(local, oauth)), { mcpServers: { statusdesk: { url: 'http://localhost:3000/mcp' } } });
    assert.deepEqual(JSON.parse(cursorConfigFile(local, key)), {
      mcpServers: { statusdesk: { url: 'http://localhost:3000/mcp', headers: { 'x-service-key': SECRET } } },
    });
    assert.deepEqual(cursorLink(cursorInstallLink(local, oauth)), { name: 'statusdesk', config: { url: 'http://localhost:3000/mcp' } });
    assert.deepEqual(cursorLink(cursorInstallLink(elsewhere, key)), {
      name: 'statusdesk',
      config: { url: 'http://localhost:3100/mcp', headers: { 'x-service-key': SECRET } },
    });
    assert.ok(!cursorInstallLink(local, oauth).includes('svc_'), 'an OAuth link holds no key');
  });

  test('VS Code: servers.statusdesk of type http; the install link is the URL-encoded server with its name', () => {
    assert.deepEqual(JSON.parse(vscodeConfigFile(local, oauth)), { servers: { statusdesk: { type: 'http', url: 'http://localhost:3000/mcp' } } });
    assert.deepEqual(vscodeLink(vscodeInstallLink(local, oauth)), { name: 'statusdesk', type: 'http', url: 'http://localhost:3000/mcp' });
    assert.deepEqual(vscodeLink(vscodeInstallLink(local, key)), {
      name: 'statusdesk',
      type: 'http',
      url: 'http://localhost:3000/mcp',
      headers: { 'x-service-key': SECRET },
    });
    assert.doesNotMatch(vscodeInstallLink(local, key).slice('vscode:mcp/install?'.length), /[{}" ]/, 'the JSON is URL-encoded');
  });

  test('Claude Desktop: the stdio bridge statusdesk mcp, with the address only when it is not the default and the key only when there is one', () => {
    assert.deepEqual(JSON.parse(claudeDesktopConfigFile(local, oauth)), { mcpServers: { statusdesk: { command: 'statusdesk', args: ['mcp'] } } });
    assert.deepEqual(JSON.parse(claudeDesktopConfigFile(elsewhere, key)), {
      mcpServers: { statusdesk: { command: 'statusdesk', args: ['mcp'], env: { SERVICE_API_URL: 'http://localhost:3100', SERVICE_API_KEY: SECRET } } },
    });
    assert.equal(loginCommand(local), 'statusdesk login');
    assert.equal(loginCommand(elsewhere), 'statusdesk login --api-url http://localhost:3100');
  });

  test('base64 of text beyond Latin-1 is of its UTF-8 bytes', () => {
    assert.equal(Buffer.from(base64('réseau ✓'), 'base64').toString('utf8'), 'réseau ✓');
  });

  test('every editor has steps; only a key setup holds the secret, and only links of a key setup say they carry it', () => {
    for (const { id } of EDITORS) {
      const withOauth = editorSetup(id, local, oauth);
      const withKey = editorSetup(id, local, key);
      assert.ok(withOauth.steps.length > 0 && withKey.steps.length > 0, id);
      assert.ok(!JSON.stringify(withOauth).includes(SECRET), `${id}: the OAuth setup holds no secret`);
      assert.ok(
        withKey.steps.some((step) => step.snippet?.text.includes(SECRET)),
        `${id}: the key setup holds the secret`,
      );
      assert.equal(withOauth.installLink?.carriesSecret ?? false, false, id);
    }
    assert.equal(editorSetup('cursor', local, key).installLink?.carriesSecret, true);
    assert.equal(editorSetup('vscode', local, key).installLink?.carriesSecret, true);
    assert.equal(editorSetup('claude-code', local, key).installLink, undefined);
    assert.equal(editorSetup('claude-desktop', local, key).installLink, undefined);
    assert.match(editorSetup('claude-desktop', local, oauth).steps[0]!.snippet!.text, /^statusdesk login$/);
  });
});
