/**
 * Finding the MCP servers of the AI editors (server/mcp-servers/): each editor's real file layout
 * on macOS, Windows and Linux written into a temporary home folder and a project folder, read by
 * discovery, and by the real `statusdesk mcp-servers discover` in a child process pointed at them.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type DiscoveryOptions, discoverMcpServers, type FoundMcpServer, isBridgeCommand, isOwnMcpUrl } from '../server/mcp-servers/discovery.ts';
import { editorFiles } from '../server/mcp-servers/editor-files.ts';
import { monitorInputOf } from '../server/mcp-servers/monitor-input.ts';
import { type CliResult, runCli, tempDir } from './support/harness.ts';

const T = { timeout: 60_000 };

const removals: (() => Promise<void>)[] = [];
after(async () => {
  for (const remove of removals.splice(0)) await remove();
});

/** A home folder and a project folder of their own, removed after the file's tests. */
async function machine(): Promise<{ home: string; project: string; write(path: string, content: unknown): Promise<string> }> {
  const dir = await tempDir();
  removals.push(dir.remove);
  const home = join(dir.path, 'home');
  const project = join(dir.path, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  return {
    home,
    project,
    async write(path, content) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    },
  };
}

/** Every file and folder under `dir` with its size and time: what discovery must leave as it is. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return Promise.all(
    entries.sort().map(async (entry) => {
      const info = await stat(join(dir, entry));
      return `${entry} ${info.size} ${info.mtimeMs}`;
    }),
  );
}

const stdio = (command: string, args: string[] = [], env: Record<string, string> = {}) => ({ command, args, env });

/** The fields of a found server a test compares, in a stable shape. */
const summary = (server: FoundMcpServer) => ({
  name: server.name,
  editor: server.editor,
  scope: server.scope,
  file: server.file,
  transport: server.transport,
  server: server.server,
  args: server.args,
  env: server.env,
  headers: server.headers,
  cwd: server.cwd,
  itself: server.itself,
});

/**
 * A problem with the words of JSON.parse after the position left out: they are V8's, and change
 * between its versions; the file, the line and the column are discovery's.
 */
const ours = ({ file, message }: { file: string; message: string }) => ({ file, message: message.replace(/(column \d+): .+$/, '$1: …') });

/** A text as a regular expression that matches it alone. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const byName = (found: FoundMcpServer[], name: string) => {
  const server = found.find((s) => s.name === name);
  assert.ok(server, `no server named ${name} in ${found.map((s) => s.name).join(', ')}`);
  return server;
};

describe('the files read on each system', () => {
  test('macOS: Application Support for Claude Desktop and VS Code, home-relative files for the rest, the project files last', () => {
    const files = editorFiles({ home: '/Users/ana', platform: 'darwin', cwd: '/Users/ana/app', env: { XDG_CONFIG_HOME: '/elsewhere', APPDATA: '/nope' } });
    assert.deepEqual(
      files.map((f) => [f.editor, f.scope, f.file]),
      [
        ['claude-desktop', 'user', '/Users/ana/Library/Application Support/Claude/claude_desktop_config.json'],
        ['claude-code', 'user', '/Users/ana/.claude.json'],
        ['cursor', 'user', '/Users/ana/.cursor/mcp.json'],
        ['vscode', 'user', '/Users/ana/Library/Application Support/Code/User/settings.json'],
        ['vscode', 'user', '/Users/ana/Library/Application Support/Code/User/mcp.json'],
        ['windsurf', 'user', '/Users/ana/.codeium/windsurf/mcp_config.json'],
        ['claude-code', 'project', '/Users/ana/app/.mcp.json'],
        ['cursor', 'project', '/Users/ana/app/.cursor/mcp.json'],
        ['vscode', 'project', '/Users/ana/app/.vscode/mcp.json'],
      ],
    );
    assert.deepEqual(
      files.filter((f) => f.comments).map((f) => f.file),
      [
        '/Users/ana/Library/Application Support/Code/User/settings.json',
        '/Users/ana/Library/Application Support/Code/User/mcp.json',
        '/Users/ana/app/.vscode/mcp.json',
      ],
    );
  });

  test('Windows: %APPDATA% (else AppData/Roaming under the home folder); Linux: $XDG_CONFIG_HOME when absolute, else ~/.config', () => {
    const appData = (options: Parameters<typeof editorFiles>[0]) => editorFiles(options).find((f) => f.editor === 'claude-desktop')!.file;
    assert.equal(appData({ home: '/h', platform: 'win32', env: { APPDATA: '/h/Roaming' } }), '/h/Roaming/Claude/claude_desktop_config.json');
    assert.equal(appData({ home: '/h', platform: 'win32' }), '/h/AppData/Roaming/Claude/claude_desktop_config.json');
    assert.equal(appData({ home: '/h', platform: 'linux', env: { XDG_CONFIG_HOME: '/xdg' } }), '/xdg/Claude/claude_desktop_config.json');
    assert.equal(appData({ home: '/h', platform: 'linux', env: { XDG_CONFIG_HOME: 'relative' } }), '/h/.config/Claude/claude_desktop_config.json');
    assert.equal(appData({ home: '/h', platform: 'linux' }), '/h/.config/Claude/claude_desktop_config.json');
    const windows = editorFiles({ home: '/h', platform: 'win32', env: { APPDATA: '/h/Roaming' } }).map((f) => f.file);
    assert.ok(windows.includes('/h/Roaming/Code/User/mcp.json'));
    assert.ok(windows.includes('/h/.codeium/windsurf/mcp_config.json'));
    assert.ok(windows.includes('/h/.cursor/mcp.json'));
  });

  test('a project that is the home folder reads ~/.cursor/mcp.json once, as the user file', () => {
    const files = editorFiles({ home: '/h', platform: 'linux', cwd: '/h' }).map((f) => f.file);
    assert.equal(files.filter((f) => f === '/h/.cursor/mcp.json').length, 1);
    assert.ok(files.includes('/h/.mcp.json') && files.includes('/h/.vscode/mcp.json'));
  });
});

describe('discovery', () => {
  test('macOS: every editor, user and project files, stdio and http, each with its source file', T, async () => {
    const m = await machine();
    const support = join(m.home, 'Library', 'Application Support');
    const desktop = await m.write(join(support, 'Claude', 'claude_desktop_config.json'), {
      mcpServers: { files: stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/Users/ana/Documents']) },
      globalShortcut: 'Ctrl+Space',
    });
    const claudeJson = await m.write(join(m.home, '.claude.json'), {
      numStartups: 12,
      mcpServers: { linear: { type: 'http', url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer lin_1' } } },
      projects: {
        '/Users/ana/app': { mcpServers: { db: { type: 'stdio', command: 'uvx', args: ['mcp-server-sqlite', '--db', 'app.db'], env: {} } } },
        '/Users/ana/empty': { allowedTools: [] },
      },
    });
    const projectMcp = await m.write(join(m.project, '.mcp.json'), { mcpServers: { sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp' } } });
    const cursorUser = await m.write(join(m.home, '.cursor', 'mcp.json'), { mcpServers: { github: { url: 'https://api.githubcopilot.com/mcp/' } } });
    const cursorProject = await m.write(join(m.project, '.cursor', 'mcp.json'), {
      mcpServers: { tools: { command: 'node', args: ['tools.js'], cwd: '/Users/ana/app' } },
    });
    const settings = await m.write(
      join(support, 'Code', 'User', 'settings.json'),
      `{
  // the editor's settings, with comments and trailing commas as VS Code allows
  "editor.fontSize": 14,
  "mcp": {
    "servers": {
      /* a block comment */
      "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch",], },
    },
  },
}
`,
    );
    const vscodeUser = await m.write(
      join(support, 'Code', 'User', 'mcp.json'),
      '{\n  // mine\n  "servers": { "notion": { "type": "http", "url": "https://mcp.notion.com/mcp" } },\n}\n',
    );
    const workspace = await m.write(join(m.project, '.vscode', 'mcp.json'), {
      inputs: [],
      servers: { playwright: { type: 'stdio', command: 'npx', args: ['@playwright/mcp@latest'] } },
    });
    const windsurf = await m.write(join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), {
      mcpServers: { zapier: { serverUrl: 'https://actions.zapier.com/mcp/sse', headers: { 'X-Team': 'ops' } } },
    });

    const { found, problems, read } = await discoverMcpServers({ home: m.home, platform: 'darwin', cwd: m.project });
    assert.deepEqual(problems, []);
    assert.deepEqual(read, [desktop, claudeJson, cursorUser, settings, vscodeUser, windsurf, projectMcp, cursorProject, workspace]);
    const none = { args: [], env: {}, headers: {}, cwd: '', itself: false };
    assert.deepEqual(found.map(summary), [
      {
        ...none,
        name: 'files',
        editor: 'claude-desktop',
        scope: 'user',
        file: desktop,
        transport: 'stdio',
        server: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/ana/Documents'],
      },
      {
        ...none,
        name: 'linear',
        editor: 'claude-code',
        scope: 'user',
        file: claudeJson,
        transport: 'http',
        server: 'https://mcp.linear.app/mcp',
        headers: { Authorization: 'Bearer lin_1' },
      },
      {
        ...none,
        name: 'db',
        editor: 'claude-code',
        scope: 'project',
        file: claudeJson,
        transport: 'stdio',
        server: 'uvx',
        args: ['mcp-server-sqlite', '--db', 'app.db'],
      },
      { ...none, name: 'github', editor: 'cursor', scope: 'user', file: cursorUser, transport: 'http', server: 'https://api.githubcopilot.com/mcp/' },
      { ...none, name: 'fetch', editor: 'vscode', scope: 'user', file: settings, transport: 'stdio', server: 'uvx', args: ['mcp-server-fetch'] },
      { ...none, name: 'notion', editor: 'vscode', scope: 'user', file: vscodeUser, transport: 'http', server: 'https://mcp.notion.com/mcp' },
      {
        ...none,
        name: 'zapier',
        editor: 'windsurf',
        scope: 'user',
        file: windsurf,
        transport: 'http',
        server: 'https://actions.zapier.com/mcp/sse',
        headers: { 'X-Team': 'ops' },
      },
      { ...none, name: 'sentry', editor: 'claude-code', scope: 'project', file: projectMcp, transport: 'http', server: 'https://mcp.sentry.dev/mcp' },
      {
        ...none,
        name: 'tools',
        editor: 'cursor',
        scope: 'project',
        file: cursorProject,
        transport: 'stdio',
        server: 'node',
        args: ['tools.js'],
        cwd: '/Users/ana/app',
      },
      { ...none, name: 'playwright', editor: 'vscode', scope: 'project', file: workspace, transport: 'stdio', server: 'npx', args: ['@playwright/mcp@latest'] },
    ]);
    assert.deepEqual(byName(found, 'db').sources, [{ editor: 'claude-code', scope: 'project', file: claudeJson, name: 'db', project: '/Users/ana/app' }]);
  });

  test('Windows: Claude Desktop and VS Code under %APPDATA%, the bridge through cmd /c recognised as Statusdesk itself', T, async () => {
    const m = await machine();
    const roaming = join(m.home, 'AppData', 'Roaming');
    const desktop = await m.write(join(roaming, 'Claude', 'claude_desktop_config.json'), {
      mcpServers: {
        statusdesk: stdio('cmd', ['/c', 'statusdesk', 'mcp'], { SERVICE_API_KEY: 'svc_secret' }),
        memory: stdio('C:\\Program Files\\nodejs\\npx.cmd', ['-y', '@modelcontextprotocol/server-memory']),
      },
    });
    const vscode = await m.write(join(roaming, 'Code', 'User', 'mcp.json'), { servers: { statusdesk: { type: 'http', url: 'http://localhost:3000/mcp' } } });
    const windsurf = await m.write(join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { git: stdio('uvx', ['mcp-server-git']) } });

    const { found, problems } = await discoverMcpServers({
      home: m.home,
      platform: 'win32',
      env: { APPDATA: roaming },
      serviceUrls: ['http://localhost:3000'],
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      found.map((s) => [s.name, s.editor, s.file, s.transport, s.server, s.itself]),
      [
        ['statusdesk', 'claude-desktop', desktop, 'stdio', 'cmd', true],
        ['memory', 'claude-desktop', desktop, 'stdio', 'C:\\Program Files\\nodejs\\npx.cmd', false],
        ['statusdesk', 'vscode', vscode, 'http', 'http://localhost:3000/mcp', true],
        ['git', 'windsurf', windsurf, 'stdio', 'uvx', false],
      ],
    );
    assert.deepEqual(found[0]!.env, { SERVICE_API_KEY: 'svc_secret' }, 'discovery keeps the values; only what the command prints is redacted');
    // Without APPDATA, the same files are found under the home folder's AppData\Roaming.
    assert.equal((await discoverMcpServers({ home: m.home, platform: 'win32' })).found.length, 4);
  });

  test('Linux: ~/.config, or $XDG_CONFIG_HOME, for Claude Desktop and VS Code', T, async () => {
    const m = await machine();
    await m.write(join(m.home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { a: stdio('a-server') } });
    await m.write(join(m.home, '.config', 'Code', 'User', 'settings.json'), { mcp: { servers: { b: { command: 'b-server' } } } });
    const xdg = join(m.home, 'xdg');
    await m.write(join(xdg, 'Claude', 'claude_desktop_config.json'), { mcpServers: { c: stdio('c-server') } });
    await m.write(join(xdg, 'Code', 'User', 'mcp.json'), { servers: { d: { command: 'd-server' } } });

    const names = async (options: DiscoveryOptions) => (await discoverMcpServers(options)).found.map((s) => `${s.editor}:${s.name}`);
    assert.deepEqual(await names({ home: m.home, platform: 'linux' }), ['claude-desktop:a', 'vscode:b']);
    assert.deepEqual(await names({ home: m.home, platform: 'linux', env: { XDG_CONFIG_HOME: xdg } }), ['claude-desktop:c', 'vscode:d']);
    assert.deepEqual(await names({ home: m.home, platform: 'darwin' }), [], 'the Linux folders are not where macOS editors look');
  });

  test('malformed JSON: a problem naming the file, the line and the column; every other file still read; nothing written', T, async () => {
    const m = await machine();
    const cursor = await m.write(
      join(m.home, '.cursor', 'mcp.json'),
      '{\n  "mcpServers": {\n    "a": { "command": "a" }\n    "b": { "command": "b" }\n  }\n}\n',
    );
    // Claude Desktop reads plain JSON: a comment there is a mistake, where VS Code's files allow one.
    const desktop = await m.write(join(m.home, '.config', 'Claude', 'claude_desktop_config.json'), '{\n  // mine\n  "mcpServers": {}\n}\n');
    const truncated = await m.write(join(m.project, '.mcp.json'), '{"mcpServers": {"x": {"command": "x"');
    await m.write(join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { fine: stdio('fine-server') } });
    await m.write(join(m.project, '.vscode', 'mcp.json'), '{\n  // allowed here\n  "servers": { "also-fine": { "command": "ok", }, },\n}');
    const before = [...(await tree(m.home)), ...(await tree(m.project))];

    const { found, problems, read } = await discoverMcpServers({ home: m.home, platform: 'linux', cwd: m.project });
    assert.deepEqual(problems.map(ours), [
      { file: desktop, message: 'not valid JSON at line 2, column 3: …' },
      { file: cursor, message: 'not valid JSON at line 4, column 5: …' },
      { file: truncated, message: 'not valid JSON at line 1, column 37: …' },
    ]);
    assert.match(problems[1]!.message, /: Expected ',' or '}' after property value$/, "V8's words follow the position");
    assert.deepEqual(
      found.map((s) => s.name),
      ['fine', 'also-fine'],
    );
    assert.equal(read.length, 2);
    assert.deepEqual([...(await tree(m.home)), ...(await tree(m.project))], before, 'discovery created or changed no file');
  });

  test('a file of the wrong shape: a problem naming the file and the entry; the good entries of the same file are still found', T, async () => {
    const m = await machine();
    const cursor = await m.write(join(m.home, '.cursor', 'mcp.json'), {
      mcpServers: {
        good: stdio('good-server'),
        empty: {},
        both: { command: 'x', url: 'http://x.test/mcp' },
        socket: { type: 'ws', url: 'ws://x.test' },
        listless: { command: 'x', args: '--flag' },
        nested: { command: 'x', env: { DEEP: { no: 1 } } },
        text: 'npx server',
      },
    });
    const desktop = await m.write(join(m.home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: ['not', 'an', 'object'] });
    const settings = await m.write(join(m.home, '.config', 'Code', 'User', 'settings.json'), { mcp: { servers: { remote: { type: 'http' } } } });
    const windsurf = await m.write(join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { nothing: { disabled: true } } });
    const array = await m.write(join(m.home, '.claude.json'), '[]');

    const { found, problems } = await discoverMcpServers({ home: m.home, platform: 'linux' });
    assert.deepEqual(problems, [
      { file: desktop, message: '"mcpServers" must be an object of servers by name, got an array' },
      { file: array, message: 'must hold a JSON object, got an array' },
      { file: cursor, message: 'server "empty" in mcpServers: has neither "command" nor "url"' },
      { file: cursor, message: 'server "both" in mcpServers: has both "command" and "url": give "type" to say which it is' },
      { file: cursor, message: 'server "socket" in mcpServers: has type "ws": only stdio, http and sse servers are known' },
      { file: cursor, message: 'server "listless" in mcpServers: "args" must be a list of texts' },
      { file: cursor, message: 'server "nested" in mcpServers: "env.DEEP" must be text, got an object' },
      { file: cursor, message: 'server "text" in mcpServers: must be an object, got a string' },
      { file: settings, message: 'server "remote" in mcp.servers: is an http server without a "url" (text)' },
      { file: windsurf, message: 'server "nothing" in mcpServers: has neither "command" nor "serverUrl"' },
    ]);
    assert.deepEqual(
      found.map((s) => s.name),
      ['good'],
    );
  });

  test('duplicates: the same server in several files is found once, with every file and name; a different environment is another server', T, async () => {
    const m = await machine();
    const desktop = await m.write(join(m.home, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: { github: stdio('docker', ['run', '-i', 'ghcr.io/github/github-mcp-server'], { A: '1', B: '2' }) },
    });
    const claudeJson = await m.write(join(m.home, '.claude.json'), {
      mcpServers: { gh: { type: 'stdio', command: 'docker', args: ['run', '-i', 'ghcr.io/github/github-mcp-server'], env: { B: '2', A: '1' } } },
      projects: { '/p': { mcpServers: { github: stdio('docker', ['run', '-i', 'ghcr.io/github/github-mcp-server'], { A: '1', B: '2' }) } } },
    });
    const cursor = await m.write(join(m.home, '.cursor', 'mcp.json'), {
      mcpServers: {
        github: stdio('docker', ['run', '-i', 'ghcr.io/github/github-mcp-server'], { A: '1', B: 'other' }),
        linear: { url: 'https://mcp.linear.app/mcp', headers: { authorization: 'x' } },
      },
    });
    const vscode = await m.write(join(m.home, '.config', 'Code', 'User', 'mcp.json'), {
      servers: { Linear: { type: 'http', url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'x' } } },
    });

    const { found } = await discoverMcpServers({ home: m.home, platform: 'linux' });
    assert.deepEqual(
      found.map((s) => [s.name, s.editor, s.files, s.sources.map((source) => `${source.editor}/${source.scope}/${source.name}`)]),
      [
        ['github', 'claude-desktop', [desktop, claudeJson], ['claude-desktop/user/github', 'claude-code/user/gh', 'claude-code/project/github']],
        ['github', 'cursor', [cursor], ['cursor/user/github']],
        ['linear', 'cursor', [cursor, vscode], ['cursor/user/linear', 'vscode/user/Linear']],
      ],
    );
  });

  test("Statusdesk's own entries: its /mcp on a loopback host at the service's port, and the bridge command, however launched", () => {
    const own = ['http://localhost:3000', 'http://127.0.0.1:3100/'];
    for (const url of ['http://localhost:3000/mcp', 'http://127.0.0.1:3000/mcp/', 'http://[::1]:3100/mcp', 'http://LOCALHOST:3100/mcp']) {
      assert.equal(isOwnMcpUrl(url, own), true, url);
    }
    for (const url of [
      'http://localhost:3001/mcp',
      'http://localhost:3000/',
      'http://localhost:3000/mcp/extra',
      'https://example.com:3000/mcp',
      'http://10.0.0.2:3000/mcp',
      '${env:URL}',
    ]) {
      assert.equal(isOwnMcpUrl(url, own), false, url);
    }
    assert.equal(isOwnMcpUrl('http://localhost:3000/mcp', []), false, 'without the service addresses no URL is taken for its own');
    assert.equal(isOwnMcpUrl('http://localhost/mcp', ['http://127.0.0.1']), true, 'default ports compare as ports');

    for (const [command, args] of [
      ['statusdesk', ['mcp']],
      ['/usr/local/bin/statusdesk', ['mcp', '--api-url', 'http://localhost:3100']],
      ['C:\\Users\\ana\\AppData\\Roaming\\npm\\statusdesk.cmd', ['mcp']],
      ['npx', ['-y', 'statusdesk', 'mcp']],
      ['npx', ['-y', 'statusdesk@0.1.0', 'mcp']],
      ['node', ['/opt/statusdesk/dist/statusdesk.js', 'mcp']],
      ['cmd', ['/c', 'statusdesk', 'mcp']],
    ] as const) {
      assert.equal(isBridgeCommand(command, [...args]), true, `${command} ${args.join(' ')}`);
    }
    for (const [command, args] of [
      ['statusdesk', ['serve']],
      ['statusdesk', []],
      ['npx', ['-y', 'statusdesk-mcp', 'mcp']],
      ['node', ['server.js', 'mcp']],
    ] as const) {
      assert.equal(isBridgeCommand(command, [...args]), false, `${command} ${args.join(' ')}`);
    }
  });

  test('${env:VAR}, ${VAR} and ${input:id} are kept as written, never filled in from this process, with a warning', T, async () => {
    const m = await machine();
    process.env.DISCOVERY_TEST_TOKEN = 'from-the-service-environment';
    removals.push(async () => void delete process.env.DISCOVERY_TEST_TOKEN);
    await m.write(join(m.home, '.cursor', 'mcp.json'), {
      mcpServers: {
        api: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:DISCOVERY_TEST_TOKEN}' } },
        local: stdio('${HOME}/bin/server', ['--token', '${DISCOVERY_TEST_TOKEN}'], { TOKEN: '${env:DISCOVERY_TEST_TOKEN}' }),
      },
    });
    await m.write(join(m.project, '.vscode', 'mcp.json'), {
      inputs: [{ type: 'promptString', id: 'key', password: true }],
      servers: { prompted: { type: 'sse', url: 'https://mcp.example.org/sse', headers: { 'x-api-key': '${input:key}' } } },
    });
    const { found } = await discoverMcpServers({ home: m.home, platform: 'linux', cwd: m.project, env: process.env });
    assert.deepEqual(byName(found, 'api').headers, { Authorization: 'Bearer ${env:DISCOVERY_TEST_TOKEN}' });
    const local = byName(found, 'local');
    assert.deepEqual(
      [local.server, local.args, local.env],
      ['${HOME}/bin/server', ['--token', '${DISCOVERY_TEST_TOKEN}'], { TOKEN: '${env:DISCOVERY_TEST_TOKEN}' }],
    );
    assert.deepEqual(byName(found, 'prompted').headers, { 'x-api-key': '${input:key}' });
    assert.deepEqual(byName(found, 'prompted').warnings, [
      'uses the older HTTP+SSE transport, where a monitor speaks Streamable HTTP',
      'holds ${...} references, kept as written: the editor fills them in, a monitor does not',
    ]);
    assert.ok(local.warnings.some((w) => w.startsWith('holds ${...} references')));
  });

  test('no editor set up: nothing found, no problem; a folder in place of a file is a problem naming it', T, async () => {
    const m = await machine();
    assert.deepEqual(await discoverMcpServers({ home: m.home, platform: 'linux', cwd: m.project }), { found: [], problems: [], read: [] });
    const folder = join(m.home, '.cursor', 'mcp.json');
    await mkdir(folder, { recursive: true });
    assert.deepEqual((await discoverMcpServers({ home: m.home, platform: 'linux' })).problems, [{ file: folder, message: 'cannot be read: it is a folder' }]);
  });
});

describe('a picked server as the input of an mcp monitor', () => {
  test(
    'stdio: the command, its arguments, environment and folder, and allowCommand (the pick is the opt-in); http: the URL and headers, no command',
    T,
    async () => {
      const m = await machine();
      await m.write(join(m.home, '.cursor', 'mcp.json'), {
        mcpServers: {
          local: { command: 'node', args: ['server.js'], env: { KEY: '${env:KEY}' }, cwd: '/srv' },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        },
      });
      const { found } = await discoverMcpServers({ home: m.home, platform: 'linux' });
      assert.deepEqual(monitorInputOf(byName(found, 'local')), {
        name: 'local',
        transport: 'stdio',
        server: 'node',
        headers: {},
        args: ['server.js'],
        env: { KEY: '${env:KEY}' },
        cwd: '/srv',
        allowCommand: true,
      });
      assert.deepEqual(monitorInputOf(byName(found, 'remote')), {
        name: 'remote',
        transport: 'http',
        server: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer t' },
        args: [],
        env: {},
        cwd: '',
        allowCommand: false,
      });
    },
  );
});

describe('statusdesk mcp-servers discover', () => {
  /** The command with its home folder at `home`, nothing of the surrounding shell's editors or service in its way. */
  const discover = (home: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runCli(['mcp-servers', 'discover', ...args], {
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: undefined,
      APPDATA: undefined,
      SERVICE_API_URL: 'http://127.0.0.1:4123',
      SERVICE_API_KEY: undefined,
      ...env,
    });

  /** A machine with a server of each kind, Statusdesk among them, and one malformed file; the paths as this system's editors have them. */
  async function configured() {
    const m = await machine();
    const files = editorFiles({ home: m.home, platform: process.platform, cwd: m.project, env: {} });
    const fileOf = (editor: string, scope: string) => files.find((f) => f.editor === editor && f.scope === scope)!.file;
    const desktop = await m.write(fileOf('claude-desktop', 'user'), {
      mcpServers: {
        statusdesk: stdio('statusdesk', ['mcp'], { SERVICE_API_KEY: 'svc_hidden' }),
        memory: stdio('npx', ['-y', '@modelcontextprotocol/server-memory']),
      },
    });
    const cursor = await m.write(fileOf('cursor', 'user'), {
      mcpServers: {
        own: { url: 'http://127.0.0.1:4123/mcp' },
        memory: stdio('npx', ['-y', '@modelcontextprotocol/server-memory']),
        api: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer hidden', 'X-Team': 'ops', 'x-api-key': '${env:KEY}' } },
      },
    });
    const broken = await m.write(fileOf('vscode', 'project'), '{\n  "servers": { "a" }\n}');
    return { ...m, desktop, cursor, broken };
  }

  test('a table of what was found, with its source files and Statusdesk marked as itself; problems on stderr; exit 0', T, async () => {
    const m = await configured();
    const result = await discover(m.home, ['--project', m.project]);
    assert.equal(result.code, 0, result.stderr);
    const [head, ...rows] = result.stdout.trimEnd().split('\n');
    assert.match(head!, /^NAME\s+EDITOR\s+SCOPE\s+TRANSPORT\s+TARGET\s+SOURCE$/);
    const cells = rows.map((row) => row.split(/\s{2,}/));
    assert.deepEqual(cells, [
      ['statusdesk (itself)', 'claude-desktop', 'user', 'stdio', 'statusdesk mcp', m.desktop],
      ['memory', 'claude-desktop, cursor', 'user', 'stdio', 'npx -y @modelcontextprotocol/server-memory', `${m.desktop}, ${m.cursor}`],
      ['own (itself)', 'cursor', 'user', 'http', 'http://127.0.0.1:4123/mcp', m.cursor],
      ['api', 'cursor', 'user', 'http', 'https://mcp.example.com/mcp', m.cursor],
    ]);
    assert.doesNotMatch(result.stdout + result.stderr, /svc_hidden|Bearer hidden/);
    const said = result.stderr.trimEnd().split('\n');
    assert.match(
      said[0]!,
      new RegExp(`^statusdesk mcp-servers discover: ${escaped(m.broken)}: not valid JSON \\(comments and trailing commas allowed\\) at line 2, column 20: \\S`),
    );
    assert.equal(said.at(-1), '4 servers in 2 files, 2 of them Statusdesk itself; nothing was run.');
  });

  test('--json: servers with their sources, environment values and credential headers redacted, references as written; problems; read files', T, async () => {
    const m = await configured();
    const result = await discover(m.home, ['--project', m.project, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const body = JSON.parse(result.stdout) as { servers: FoundMcpServer[]; problems: { file: string; message: string }[]; read: string[] };
    assert.deepEqual(
      body.servers.map((s) => [s.name, s.itself, s.files.length]),
      [
        ['statusdesk', true, 1],
        ['memory', false, 2],
        ['own', true, 1],
        ['api', false, 1],
      ],
    );
    assert.deepEqual(byName(body.servers, 'statusdesk').env, { SERVICE_API_KEY: '[redacted]' });
    assert.deepEqual(byName(body.servers, 'api').headers, { Authorization: '[redacted]', 'X-Team': 'ops', 'x-api-key': '${env:KEY}' });
    assert.deepEqual(body.problems.map(ours), [{ file: m.broken, message: 'not valid JSON (comments and trailing commas allowed) at line 2, column 20: …' }]);
    assert.deepEqual(body.read, [m.desktop, m.cursor]);
    assert.match(result.stderr, /not valid JSON/);
  });

  test('another service address: the same URL is no longer Statusdesk itself', T, async () => {
    const m = await configured();
    const body = JSON.parse((await discover(m.home, ['--project', m.project, '--json', '--api-url', 'http://127.0.0.1:4999'])).stdout);
    assert.equal(byName(body.servers, 'own').itself, false);
    assert.equal(byName(body.servers, 'statusdesk').itself, true);
  });

  test('nothing set up: exit 0 and a note; only malformed files: exit 1; a --project that is no folder: a usage error', T, async () => {
    const m = await machine();
    const empty = await discover(m.home, ['--project', m.project]);
    assert.deepEqual([empty.code, empty.stdout], [0, '']);
    assert.equal(empty.stderr, 'No MCP configuration of Claude Desktop, Claude Code, Cursor, VS Code or Windsurf was found.\n');

    const file = editorFiles({ home: m.home, platform: process.platform, env: {} }).find((f) => f.editor === 'windsurf')!.file;
    await m.write(file, '{"mcpServers": ');
    const broken = await discover(m.home, ['--project', m.project]);
    assert.equal(broken.code, 1);
    assert.equal(broken.stdout, '');
    assert.match(broken.stderr, new RegExp(`^statusdesk mcp-servers discover: ${escaped(file)}: not valid JSON: \\S`));

    const nowhere = await discover(m.home, ['--project', join(m.project, 'missing')]);
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /^statusdesk mcp-servers discover: --project must be a folder, got ".*missing"\n/);
    await rm(file);
  });
});
