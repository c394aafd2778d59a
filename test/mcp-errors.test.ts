/**
 * MCP tool errors (SPEC 7) as both SDK majors read them. NOT_FOUND, VALIDATION, CONFLICT,
 * LIMIT_EXCEEDED and PRECONDITION_FAILED are tool results with isError and a readable message;
 * the 1.x client (`@modelcontextprotocol/sdk`, the MCP Inspector's and most editors') checks any
 * structuredContent against the tool's outputSchema even on an error, so an error result must
 * carry none, or the client throws -32602 and the message never reaches the user.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { AppError, type ErrorCode } from '../server/errors.ts';
import { startTestService, type TestService } from './support/harness.ts';
import {
  assertRpcError,
  connectMcp,
  connectMcpV1,
  INVALID_PARAMS,
  legacyRequest,
  MODERN_ERA,
  ok,
  postMcp,
  type SdkConnection,
  toolError,
  V1_ERA,
} from './support/mcp-client.ts';

const system: Actor = { type: 'system', surface: 'cli' };

let svc: TestService;
let writeKey: { id: string; secret: string };
let pageId: string;
let tcpId: number;
let httpId: number;

before(
  async () => {
    svc = await startTestService();
    const ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
    writeKey = await svc.createKey('write');
    pageId = (await svc.services.pages.create(system, ws, { slug: 'errors-acme', title: 'Acme' })).id;
    tcpId = Number((await svc.services.monitors.create(system, ws, 'tcp', { name: 'db', uri: 'db.internal:5432', periodicity: '1m' })).id);
    httpId = Number((await svc.services.monitors.create(system, ws, 'http', { name: 'api', url: 'http://127.0.0.1:9/health', periodicity: '1m' })).id);
  },
  { timeout: 60_000 },
);

after(async () => {
  await svc?.stop();
});

/** Each SDK major in each era it speaks; every connection lists the tools first, as editors do. */
const CLIENTS: { label: string; connect(): Promise<SdkConnection> }[] = [
  { label: `1.x SDK (${V1_ERA})`, connect: () => connectMcpV1(svc.apiUrl, writeKey.secret) },
  { label: `2.x client (${V1_ERA})`, connect: async () => ({ sdk: '2.x', ...(await connectMcp(svc.apiUrl, V1_ERA, writeKey.secret)) }) },
  { label: `2.x client (${MODERN_ERA})`, connect: async () => ({ sdk: '2.x', ...(await connectMcp(svc.apiUrl, MODERN_ERA, writeKey.secret)) }) },
];

/** The error cases the service reaches on its own, with the message each must carry. */
const CASES: { name: string; tool: string; args: () => Record<string, unknown>; code: ErrorCode; message: RegExp }[] = [
  { name: 'an unknown monitor', tool: 'get_monitor', args: () => ({ monitorId: 999 }), code: 'NOT_FOUND', message: /999/ },
  {
    name: 'a report on an unknown page',
    tool: 'create_status_report',
    args: () => ({ pageId: 'no-such-page', title: 'x', message: 'y', notify: false }),
    code: 'NOT_FOUND',
    message: /no-such-page/,
  },
  { name: 'an unknown docs page', tool: 'get_doc_page', args: () => ({ path: 'docs/reference/no-such-page' }), code: 'NOT_FOUND', message: /no-such-page/ },
  {
    name: 'response logs of a TCP monitor',
    tool: 'list_response_logs',
    args: () => ({ monitorId: tcpId }),
    code: 'VALIDATION',
    message: /^id: .*HTTP monitors only/,
  },
  { name: 'an update that names no field', tool: 'update_status_report', args: () => ({ statusReportId: '999' }), code: 'VALIDATION', message: /./ },
  {
    name: 'a window that ends before it starts',
    tool: 'create_maintenance',
    args: () => ({ pageId, title: 'x', from: '2031-11-22T22:00:00Z', to: '2031-11-21T22:00:00Z', notify: false }),
    code: 'VALIDATION',
    message: /\bto\b/,
  },
];

for (const client of CLIENTS) {
  describe(`tool errors through the ${client.label}`, { timeout: 60_000 }, () => {
    let connection: SdkConnection;
    before(async () => {
      connection = await client.connect();
    });
    after(async () => {
      await connection?.close();
    });

    for (const c of CASES) {
      test(`${c.tool}: ${c.name} is an isError result the client reads: ${c.code}`, async () => {
        toolError(await connection.call(c.tool, c.args()), c.code, c.message);
      });
    }

    test('the codes the tools rarely reach (CONFLICT, LIMIT_EXCEEDED, PRECONDITION_FAILED) arrive the same way', async () => {
      const monitors = svc.services.monitors;
      const get = monitors.get;
      try {
        for (const code of ['CONFLICT', 'LIMIT_EXCEEDED', 'PRECONDITION_FAILED', 'NOT_FOUND', 'VALIDATION'] as const) {
          monitors.get = async () => {
            throw new AppError(code, `field: refused as ${code}`, [{ field: 'field', rule: `refused as ${code}` }]);
          };
          const error = toolError(await connection.call('get_monitor', { monitorId: httpId }), code);
          assert.equal(error.message, `field: refused as ${code}`);
        }
      } finally {
        monitors.get = get;
      }
      // The other codes stay JSON-RPC errors.
      monitors.get = async () => {
        throw new AppError('FORBIDDEN', 'not yours');
      };
      try {
        await assertRpcError(connection.call('get_monitor', { monitorId: httpId }), -32003, 'FORBIDDEN', /not yours/);
      } finally {
        monitors.get = get;
      }
    });

    test('after an error the same client still gets checked results, and input-schema refusals stay -32602', async () => {
      toolError(await connection.call('get_monitor', { monitorId: 999 }), 'NOT_FOUND');
      const { monitor } = ok(await connection.call('get_monitor', { monitorId: tcpId }));
      assert.equal(monitor.monitorId, tcpId);
      await assertRpcError(connection.call('get_monitor', { monitorId: 'x' }), INVALID_PARAMS, 'VALIDATION');
      await assertRpcError(connection.call('create_status_report', { pageId, title: 'x', message: 'y' }), INVALID_PARAMS, 'VALIDATION', /notify/);
    });
  });
}

describe('tool errors on the wire', { timeout: 60_000 }, () => {
  test('an error result is isError with one text content "CODE: message", and no structuredContent', async () => {
    const answer = await postMcp(svc.apiUrl, legacyRequest('tools/call', { name: 'get_monitor', arguments: { monitorId: 999 } }), {
      'x-service-key': writeKey.secret,
    });
    assert.equal(answer.status, 200, answer.text);
    const [message] = answer.messages;
    assert.ok(message?.result, answer.text);
    assert.deepEqual(Object.keys(message.result).sort(), ['content', 'isError']);
    assert.equal(message.result.isError, true);
    assert.deepEqual(message.result.content, [{ type: 'text', text: 'NOT_FOUND: monitor 999 does not exist in this workspace' }]);
  });

  test('params that are missing where required, or not an object, are -32602 naming params, not an internal error', async () => {
    const headers = { 'x-service-key': writeKey.secret };
    const cases = [
      { jsonrpc: '2.0', id: 'a', method: 'initialize' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call' },
      { jsonrpc: '2.0', id: 'c', method: 'resources/read' },
      { jsonrpc: '2.0', id: 'd', method: 'tools/list', params: 'all' },
      { jsonrpc: '2.0', id: 'e', method: 'tools/call', params: [1, 2] },
      { jsonrpc: '2.0', id: 'f', method: 'initialize', params: null },
    ];
    for (const body of cases) {
      const answer = await postMcp(svc.apiUrl, body, headers);
      assert.equal(answer.status, 200, answer.text);
      const [message] = answer.messages;
      assert.equal(message?.id, body.id, answer.text);
      assert.equal(message.error?.code, INVALID_PARAMS, answer.text);
      assert.match(message.error.message, /params/);
      assert.doesNotMatch(answer.text, /invalid_type|expected/);
    }
    // In a batch, the malformed request is -32602 and the others are not run.
    const batch = await postMcp(
      svc.apiUrl,
      [
        { jsonrpc: '2.0', id: 'h', method: 'initialize' },
        { jsonrpc: '2.0', id: 'i', method: 'tools/list' },
      ],
      headers,
    );
    assert.equal(batch.status, 200, batch.text);
    const answers = JSON.parse(batch.text);
    assert.deepEqual(
      answers.map((a: any) => [a.id, a.error?.code]),
      [
        ['h', INVALID_PARAMS],
        ['i', -32600],
      ],
    );
    // tools/list takes no params at all: leaving them out is fine.
    const list = await postMcp(svc.apiUrl, { jsonrpc: '2.0', id: 'g', method: 'tools/list' }, headers);
    assert.ok(list.messages[0]?.result?.tools, list.text);
  });

  test('every client major reads the same error', async () => {
    const seen: unknown[] = [];
    for (const client of CLIENTS) {
      const connection = await client.connect();
      try {
        seen.push(await Promise.all(CASES.map(async (c) => toolError(await connection.call(c.tool, c.args()), c.code))));
      } finally {
        await connection.close();
      }
    }
    for (const other of seen.slice(1)) assert.deepEqual(other, seen[0]);
  });
});
