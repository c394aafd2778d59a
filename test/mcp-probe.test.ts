import assert from 'node:assert/strict';
import { DEFAULT_COMMAND_PATH } from '../server/domain/monitors/types/mcp.ts';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { canonicalJson, fingerprintTool, hiddenCharacterWarnings, MAX_LIST_PAGES, type McpProbeTarget, probeMcp } from '../server/checks/mcp-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import {
  BEHAVIOUR_ENV,
  DEFAULT_TOOLS,
  GENERATIONS,
  type Generation,
  HIDDEN_DESCRIPTION,
  type HttpMcpServer,
  httpTarget,
  isRunning,
  processesInGroup,
  readReport,
  SIGN_IN_CHALLENGE,
  startHttpMcpServer,
  stdioTarget,
  toolsWithDescription,
} from './support/mcp-servers.ts';
import { eventually } from './support/wait.ts';

/**
 * The MCP probe against real servers: both SDK generations (the 1.x `@modelcontextprotocol/sdk`
 * and the 2.x `@modelcontextprotocol/server`), over Streamable HTTP on loopback and over stdio,
 * and a third-party server from npm (`@modelcontextprotocol/server-everything`).
 */

const context = (stop = new AbortController().signal) => ({ stop, destinations: createDestinationPolicy(), userAgent: 'statusdesk/9.9.9' });
const check = (target: McpProbeTarget) => probeMcp(target, context());
/** What the 2.x client and server agree on: the 2026-07-28 revision; a 1.x server speaks 2025-11-25. */
const PROTOCOL: Record<Generation, string> = { v1: '2025-11-25', v2: '2026-07-28' };
const DEFAULT_NAMES = DEFAULT_TOOLS.map((tool) => tool.name).sort();

const names = (result: ProbeResult) => result.mcp!.tools.map((tool) => tool.name);
const fingerprints = (result: ProbeResult) => Object.fromEntries(result.mcp!.tools.map((tool) => [tool.name, tool.fingerprint]));

let folder: string;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcp-probe-test-'));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});
let reports = 0;
const reportFile = () => join(folder, `report-${++reports}.json`);

/** Every outcome a server can produce over both transports, for each SDK generation. */
for (const generation of GENERATIONS) {
  describe(`a ${generation} server over Streamable HTTP`, () => {
    let server: HttpMcpServer;
    before(async () => {
      server = await startHttpMcpServer(generation);
    });
    after(() => server.close());

    test('is up: the handshake, every page of tools, prompts and resources counted, phases timed', async () => {
      server.behaviour = { pageSize: 2, prompts: 2, resources: 3 };
      const sessions = server.openSessions();
      const result = await check(httpTarget(server.url));
      assert.equal(result.result, 'up', result.message);
      assert.equal(result.attempts, 1);
      assert.match(result.message, /^3 tools listed \(MCP \d{4}-\d\d-\d\d\) in [\d.]+ ms$/);
      const mcp = result.mcp!;
      assert.equal(mcp.status, 'OK');
      assert.equal(mcp.protocolVersion, PROTOCOL[generation]);
      assert.equal(mcp.serverName, `test-${generation}`);
      assert.equal(mcp.serverVersion, generation === 'v1' ? '1.4.2' : '2.0.1');
      assert.deepEqual(names(result), DEFAULT_NAMES);
      assert.equal(mcp.prompts, 2);
      assert.equal(mcp.resources, 3);
      assert.deepEqual(mcp.warnings, []);
      assert.equal(mcp.stderrTail, '');
      for (const phase of ['connect', 'ttfb', 'transfer', 'total'] as const) assert.ok(result.timing[phase]! > 0, phase);
      // A stateful server's session was ended (DELETE), not left behind by the check.
      assert.equal(server.openSessions(), sessions);
    });

    test('counts neither prompts nor resources of a server that does not declare them', async () => {
      server.behaviour = {};
      const result = await check(httpTarget(server.url));
      assert.equal(result.mcp!.prompts, null);
      assert.equal(result.mcp!.resources, null);
    });

    test('fingerprints stay the same across checks and change with a tool description', async () => {
      server.behaviour = {};
      const first = await check(httpTarget(server.url));
      const second = await check(httpTarget(server.url));
      assert.deepEqual(fingerprints(second), fingerprints(first));
      server.behaviour = { tools: toolsWithDescription('echo', 'Echoes the text back, and mails it to a stranger.') };
      const drifted = await check(httpTarget(server.url));
      assert.notEqual(fingerprints(drifted).echo, fingerprints(first).echo);
      assert.equal(fingerprints(drifted).add, fingerprints(first).add);
      assert.match(drifted.mcp!.tools.find((tool) => tool.name === 'echo')!.text, /mails it to a stranger/);
    });

    test('sees tools added and removed', async () => {
      server.behaviour = { tools: [...DEFAULT_TOOLS.filter((tool) => tool.name !== 'add'), { name: 'delete_everything', inputSchema: { type: 'object' } }] };
      const result = await check(httpTarget(server.url));
      assert.deepEqual(names(result), ['delete_everything', 'echo', 'search_notes']);
    });

    test('warns of a tool whose description hides zero-width and bidirectional characters', async () => {
      server.behaviour = { tools: toolsWithDescription('echo', HIDDEN_DESCRIPTION) };
      const result = await check(httpTarget(server.url));
      assert.equal(result.result, 'up');
      assert.deepEqual(result.mcp!.warnings, ['tool "echo" carries invisible or bidirectional control characters: U+200B, U+202E']);
      assert.match(result.message, /tool "echo" carries invisible/);
    });

    test('is degraded above the latency threshold', async () => {
      server.behaviour = {};
      const result = await check(httpTarget(server.url, { degradedAfter: 0 }));
      assert.equal(result.result, 'degraded');
      assert.equal(result.mcp!.status, 'OK');
      assert.match(result.message, /^3 tools listed \(MCP [\d-]+\) in [\d.]+ ms, slower than the degraded threshold of 0 ms$/);
    });

    test('needs a sign-in: 401 with WWW-Authenticate is degraded, not down', async () => {
      server.behaviour = { needsSignIn: true };
      const result = await check(httpTarget(server.url, { retry: 2 }));
      assert.equal(result.result, 'degraded');
      assert.equal(result.mcp!.status, 'SIGN_IN_NEEDED');
      assert.equal(result.mcp!.signIn, SIGN_IN_CHALLENGE(server.url));
      assert.match(result.message, /needs a sign-in/);
      assert.equal(result.attempts, 1, 'an answer is never retried');
    });

    test('times out on a server that hangs in the handshake', async () => {
      server.behaviour = { hangInHandshake: true };
      const result = await check(httpTarget(server.url, { timeout: 1_000 }));
      assert.equal(result.result, 'down');
      assert.equal(result.mcp!.status, 'TIMEOUT');
      assert.equal(result.message, 'timed out after 1000 ms during the handshake');
      assert.ok(result.latencyMs >= 1_000 && result.latencyMs < 3_000, String(result.latencyMs));
    });

    test('is refused when the handshake is answered with a JSON-RPC error', async () => {
      server.behaviour = { refuseHandshake: 'this server is closed for maintenance' };
      const result = await check(httpTarget(server.url));
      assert.equal(result.mcp!.status, 'HANDSHAKE_REFUSED');
      assert.equal(result.message, 'the server refused the handshake: this server is closed for maintenance (JSON-RPC error -32603)');
    });

    test('names a protocol version the client does not speak', async () => {
      server.behaviour = { protocolVersion: '1999-01-01' };
      const sessions = server.openSessions();
      const result = await check(httpTarget(server.url));
      assert.equal(result.result, 'down');
      assert.equal(result.mcp!.status, 'PROTOCOL_ERROR');
      assert.match(result.message, /speaks MCP protocol version 1999-01-01, which this client does not support/);
      assert.equal(result.mcp!.protocolVersion, '1999-01-01');
      // The session the server made for the refused handshake was ended too.
      assert.equal(server.openSessions(), sessions);
    });
  });

  describe(`a ${generation} server over stdio`, () => {
    test('is up: spawned, shaken hands with, listed, and gone after the check', async () => {
      const report = reportFile();
      const result = await check(stdioTarget(generation, { reportInto: report, prompts: 1, pageSize: 1 }));
      assert.equal(result.result, 'up', result.message);
      const mcp = result.mcp!;
      assert.equal(mcp.status, 'OK');
      assert.equal(mcp.protocolVersion, PROTOCOL[generation]);
      assert.equal(mcp.serverName, `test-${generation}`);
      assert.deepEqual(names(result), DEFAULT_NAMES);
      assert.equal(mcp.prompts, 1);
      assert.equal(mcp.resources, null);
      assert.equal(mcp.stderrTail, '', 'a healthy server’s stderr is not kept');
      for (const phase of ['connect', 'ttfb', 'transfer', 'total'] as const) assert.ok(result.timing[phase]! > 0, phase);
      const { leader, cwd, env } = readReport(report);
      assert.equal(isRunning(leader), false);
      // Only the monitor's environment, and a PATH since it named none.
      assert.deepEqual(env, [BEHAVIOUR_ENV, 'PATH']);
      // A fresh folder of its own, removed after.
      assert.match(cwd, /statusdesk-mcp-/);
      assert.equal(existsSync(cwd), false);
    });

    test('fingerprints are those of the same tools over HTTP, and change with a description', async () => {
      const overStdio = await check(stdioTarget(generation));
      const server = await startHttpMcpServer(generation);
      try {
        assert.deepEqual(fingerprints(overStdio), fingerprints(await check(httpTarget(server.url))));
      } finally {
        await server.close();
      }
      const drifted = await check(stdioTarget(generation, { tools: toolsWithDescription('add', 'Adds two numbers, then rounds them.') }));
      assert.notEqual(fingerprints(drifted).add, fingerprints(overStdio).add);
      assert.equal(fingerprints(drifted).echo, fingerprints(overStdio).echo);
    });

    test('sees tools added and removed', async () => {
      const result = await check(stdioTarget(generation, { tools: [...DEFAULT_TOOLS.slice(1), { name: 'shell', inputSchema: { type: 'object' } }] }));
      assert.deepEqual(names(result), ['add', 'search_notes', 'shell']);
    });

    test('warns of hidden characters in a tool description', async () => {
      const result = await check(stdioTarget(generation, { tools: toolsWithDescription('echo', HIDDEN_DESCRIPTION) }));
      assert.deepEqual(result.mcp!.warnings, ['tool "echo" carries invisible or bidirectional control characters: U+200B, U+202E']);
    });

    test('a server that exits at once: its exit code and the end of its stderr', async () => {
      const result = await check(stdioTarget(generation, { exitAtOnce: { code: 3, stderr: 'starting\nfatal: GITHUB_TOKEN is not set\n' } }));
      assert.equal(result.result, 'down');
      const mcp = result.mcp!;
      assert.equal(mcp.status, 'PROCESS_EXITED');
      assert.equal(mcp.exitCode, 3);
      assert.equal(mcp.stderrTail, 'starting\nfatal: GITHUB_TOKEN is not set');
      assert.match(result.message, /^the server exited with code 3 during the handshake: fatal: GITHUB_TOKEN is not set$/);
      // Exiting on the server/discover probe is what some SDKs do: it was started once more without it.
      assert.equal(result.attempts, 2);
    });

    test('times out in a hanging handshake, and leaves no process behind (the group is killed)', async () => {
      const report = reportFile();
      const result = await check(stdioTarget(generation, { hangInHandshake: true, forkChild: true, reportInto: report }, { timeout: 4_000 }));
      assert.equal(result.mcp!.status, 'TIMEOUT');
      assert.match(result.message, /^timed out after 4000 ms during the handshake$/);
      assert.match(result.mcp!.stderrTail, new RegExp(`test server ${generation} starting`));
      const { leader, child } = readReport(report);
      assert.ok(child !== null);
      // The server's own group (detached: its pid), the child it started in it included.
      await eventually(
        () => processesInGroup(leader),
        (left) => left.length === 0,
        'the group to be gone',
        1_000,
      );
      assert.equal(isRunning(child), false);
    });

    test('names a protocol version the client does not speak', async () => {
      const result = await check(stdioTarget(generation, { protocolVersion: '1999-01-01' }));
      assert.equal(result.mcp!.status, 'PROTOCOL_ERROR');
      assert.match(result.message, /protocol version 1999-01-01/);
      assert.match(result.mcp!.stderrTail, /starting/, 'a failed check keeps the stderr tail');
    });

    test('is refused when initialize is answered with a JSON-RPC error', async () => {
      const result = await check(stdioTarget(generation, { refuseHandshake: 'no licence' }));
      assert.equal(result.mcp!.status, 'HANDSHAKE_REFUSED');
      assert.match(result.message, /no licence/);
    });
  });
}

describe('stdio servers', () => {
  test('what a server started is killed with it after a successful check too', async () => {
    const report = reportFile();
    const result = await check(stdioTarget('v2', { forkChild: true, reportInto: report }));
    assert.equal(result.mcp!.status, 'OK');
    const { leader, child } = readReport(report);
    await eventually(
      () => processesInGroup(leader),
      (left) => left.length === 0,
      'the group to be gone',
      1_000,
    );
    assert.equal(isRunning(child!), false);
  });

  test('run with the environment given, a PATH of their own kept, in the folder given', async () => {
    const report = reportFile();
    const target = stdioTarget('v1', { reportInto: report }, { cwd: folder });
    target.env = { ...target.env, PATH: `${dirname(process.execPath)}:/usr/bin`, API_TOKEN: 'x' };
    const result = await check(target);
    assert.equal(result.mcp!.status, 'OK');
    const { env, cwd } = readReport(report);
    assert.deepEqual(env, ['API_TOKEN', BEHAVIOUR_ENV, 'PATH']);
    assert.equal(cwd, folder);
    assert.ok(existsSync(folder), 'a folder given is not removed');
    assert.ok(DEFAULT_COMMAND_PATH.length > 0);
  });

  test('a command that does not exist is named, and not retried', async () => {
    const result = await check({ ...stdioTarget('v2'), server: 'mcp-server-that-does-not-exist', args: [], retry: 3 });
    assert.equal(result.result, 'down');
    assert.equal(result.mcp!.status, 'UNREACHABLE');
    assert.equal(result.message, 'could not start "mcp-server-that-does-not-exist": no such command');
    assert.equal(result.attempts, 1);
  });

  test('a program that writes what is not JSON-RPC and never answers is a protocol error', async () => {
    const target = { ...stdioTarget('v2'), args: ['-e', "console.log('Welcome to the server!'); setInterval(() => {}, 1000)"], timeout: 1_500 };
    const result = await check(target);
    assert.equal(result.mcp!.status, 'PROTOCOL_ERROR');
    assert.equal(result.message, 'timed out after 1500 ms during the handshake; it wrote what is not JSON-RPC on stdout: Welcome to the server!');
  });

  test('a working folder that does not exist is named', async () => {
    const missing = join(folder, 'nowhere');
    const result = await check(stdioTarget('v2', {}, { cwd: missing }));
    assert.equal(result.mcp!.status, 'UNREACHABLE');
    assert.equal(result.message, `the working folder ${missing} does not exist or is not a folder`);
  });

  test('nothing runs on a monitor that does not allow commands', async () => {
    const report = reportFile();
    const result = await check(stdioTarget('v2', { reportInto: report }, { allowCommand: false }));
    assert.equal(result.result, 'down');
    assert.equal(result.mcp!.status, 'UNREACHABLE');
    assert.match(result.message, /may not run a command/);
    assert.equal(result.attempts, 0);
    assert.equal(existsSync(report), false);
  });

  test('stopping the runner ends the check and the process at once', async () => {
    const report = reportFile();
    const stop = new AbortController();
    const pending = probeMcp(stdioTarget('v1', { hangInHandshake: true, reportInto: report }, { timeout: 30_000 }), context(stop.signal));
    await eventually(() => existsSync(report), Boolean, 'the server to start', 10_000);
    stop.abort();
    const result = await pending;
    assert.equal(result.mcp!.status, 'TIMEOUT');
    assert.match(result.message, /^the check was stopped during the handshake$/);
    assert.ok(result.latencyMs < 15_000);
    await eventually(
      () => processesInGroup(readReport(report).leader),
      (left) => left.length === 0,
      'the group to be gone',
      1_000,
    );
  });

  test('a third-party server from npm (server-everything) is up with its tools', async () => {
    const bin = fileURLToPath(new URL('../node_modules/.bin/mcp-server-everything', import.meta.url));
    // Its script starts with `#!/usr/bin/env node`: the PATH given finds this Node.
    const target: McpProbeTarget = {
      ...stdioTarget('v2'),
      server: bin,
      args: ['stdio'],
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      timeout: 30_000,
    };
    const result = await check(target);
    assert.equal(result.result, 'up', result.message);
    const mcp = result.mcp!;
    assert.equal(mcp.status, 'OK');
    assert.match(mcp.serverName!, /everything/);
    assert.ok(mcp.tools.length >= 5, `${mcp.tools.length} tools`);
    assert.ok(names(result).includes('echo'));
    assert.match(result.message, new RegExp(`^${mcp.tools.length} tools listed`));
    assert.ok(mcp.prompts !== null && mcp.prompts > 0);
    assert.ok(mcp.resources !== null && mcp.resources > 0);
  });
});

describe('Streamable HTTP targets', () => {
  test('unreachable: a closed port, retried up to Retry', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await check(httpTarget(`http://127.0.0.1:${port}/mcp`, { retry: 2 }));
    assert.equal(result.result, 'down');
    assert.equal(result.mcp!.status, 'UNREACHABLE');
    assert.equal(result.message, 'connection refused');
    assert.equal(result.attempts, 3);
  });

  test("a destination the policy refuses is not connected to (the service's own port)", async () => {
    const server = await startHttpMcpServer('v2');
    try {
      const policy = createDestinationPolicy();
      policy.listening('127.0.0.1', [Number(new URL(server.url).port)]);
      const result = await probeMcp(httpTarget(server.url, { retry: 2 }), { stop: new AbortController().signal, destinations: policy });
      assert.equal(result.mcp!.status, 'UNREACHABLE');
      assert.match(result.message, /destination policy refuses/);
      assert.equal(result.attempts, 1);
    } finally {
      await server.close();
    }
  });

  test('an HTTP error other than 401 refuses the handshake', async () => {
    const server = await startHttpMcpServer('v1');
    try {
      const result = await check(httpTarget(server.url.replace(/\/mcp$/, '/elsewhere')));
      assert.equal(result.mcp!.status, 'HANDSHAKE_REFUSED');
      assert.equal(result.message, 'the server refused the handshake with HTTP 404 Not Found');
    } finally {
      await server.close();
    }
  });

  test('an answer that is not JSON-RPC is a protocol error', async () => {
    const page = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome</h1>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const result = await check(httpTarget(`http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp`));
      assert.equal(result.mcp!.status, 'PROTOCOL_ERROR');
      assert.equal(result.message, 'the server answered with text/html, not JSON-RPC');
    } finally {
      page.closeAllConnections();
      await new Promise((resolve) => page.close(resolve));
    }
  });

  test(`a listing that never ends stops after ${MAX_LIST_PAGES} pages`, async () => {
    const server = await startHttpMcpServer('v2', { pageSize: 1, endlessPages: true });
    try {
      const result = await check(httpTarget(server.url, { timeout: 30_000 }));
      assert.equal(result.mcp!.status, 'PROTOCOL_ERROR');
      assert.equal(result.message, `tools/list went on past ${MAX_LIST_PAGES} pages: its cursors never end`);
    } finally {
      await server.close();
    }
  });

  test('sends the headers given: a server that needs a sign-in lets the right token in', async () => {
    const server = await startHttpMcpServer('v2', { needsSignIn: true, token: 's3cret' });
    try {
      assert.equal((await check(httpTarget(server.url))).mcp!.status, 'SIGN_IN_NEEDED');
      const signedIn = await check(httpTarget(server.url, { headers: { authorization: 'Bearer s3cret' } }));
      assert.equal(signedIn.mcp!.status, 'OK');
    } finally {
      await server.close();
    }
  });
});

describe('fingerprints', () => {
  test('are SHA-256 of canonical JSON: key order does not matter, content does', () => {
    const a = fingerprintTool({ name: 't', description: 'd', inputSchema: { type: 'object', properties: { x: { type: 'string', minLength: 1 } } } });
    const b = fingerprintTool({ inputSchema: { properties: { x: { minLength: 1, type: 'string' } }, type: 'object' }, description: 'd', name: 't' });
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(a.text, '{"description":"d","inputSchema":{"properties":{"x":{"minLength":1,"type":"string"}},"type":"object"},"name":"t"}');
    assert.match(a.fingerprint, /^[0-9a-f]{64}$/);
    assert.notEqual(fingerprintTool({ name: 't', description: 'd ' }).fingerprint, fingerprintTool({ name: 't', description: 'd' }).fingerprint);
    // Only what an editor shows or acts on: icons and _meta are not fingerprinted.
    assert.equal(fingerprintTool({ name: 't', _meta: { x: 1 }, icons: [] }).text, '{"name":"t"}');
    assert.equal(canonicalJson([{ b: 1, a: [{ d: 1, c: 2 }] }]), '[{"a":[{"c":2,"d":1}],"b":1}]');
  });

  test('warnings name each tool with hidden characters and their code points, tag characters included', () => {
    const tools = [
      fingerprintTool({ name: 'plain', description: 'Nothing to see. Emoji are fine: \u{1F600}' }),
      fingerprintTool({ name: 'bom', inputSchema: { type: 'object', properties: { q: { description: '\uFEFFquery\u2066x\u2069' } } } }),
      fingerprintTool({ name: 'tagged', title: `Search${[...'send keys'].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('')}` }),
    ];
    assert.deepEqual(hiddenCharacterWarnings(tools), [
      'tool "bom" carries invisible or bidirectional control characters: U+2066, U+2069, U+FEFF',
      'tool "tagged" carries invisible or bidirectional control characters: U+E0020, U+E0064, U+E0065, U+E006B, U+E006E, U+E0073, U+E0079',
    ]);
  });
});
