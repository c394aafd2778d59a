/**
 * Smaller refusals: requests the service turns away, each with the answer the documentation
 * (docs/reference/errors.md) promises and never one that invites a retry.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PublicMaintenance, PublicPage } from '../server/domain/pages/public-view.ts';
import { exportStaticPage } from '../server/public/static-export.ts';
import { renderAtomFeed } from '../server/public/atom-feed.ts';
import { STATUS_PAGE_CSP } from '../server/public/html-document.ts';
import { renderStatusPage } from '../server/public/status-page.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { unfinishedPost } from './support/raw-http.ts';

let service: TestService;
let key: string;

before(async () => {
  service = await startTestService();
  key = (await service.createKey('read')).secret;
});
after(() => service.stop());

const LIST_MONITORS = '/monitor.v1.MonitorService/ListMonitors';
/** Field 1, length-delimited, whose length varint never ends: no message of any type. */
const NOT_PROTOBUF = Buffer.from([0x0a, 0xff]);

/** A gRPC message frame: uncompressed flag, big-endian length, the bytes. */
function grpcFrame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/**
 * One gRPC call over h2c to 127.0.0.1: the status and message of its trailers (or of a
 * trailers-only answer), taken as soon as they come, even while the body is still being sent.
 */
function grpcCall(path: string, headers: http2.OutgoingHttpHeaders, body: Buffer): Promise<{ status: string; message: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${new URL(service.apiUrl).port}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const take = (fields: http2.IncomingHttpHeaders) => {
      if (fields['grpc-status'] === undefined) return;
      const message = fields['grpc-message'];
      resolve({ status: String(fields['grpc-status']), message: message === undefined ? undefined : decodeURIComponent(String(message)) });
      session.destroy();
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('error', () => {});
    stream.on('close', () => reject(new Error('the stream closed without a gRPC status')));
    stream.resume();
    stream.end(body);
  });
}

describe('malformed request messages', () => {
  test('a binary Connect request that is not a valid message is 400 invalid_argument, not internal', async () => {
    for (const body of [NOT_PROTOBUF, Buffer.from([0x08]), Buffer.from([0xff, 0xff, 0xff])]) {
      const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/proto', 'x-service-key': key },
        body,
      });
      assert.equal(response.status, 400);
      const error = (await response.json()) as { code: string; message: string };
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, /^the request is not a valid monitor\.v1\.ListMonitorsRequest message \(.+\)$/);
    }
  });

  test('a timeout of 0 is deadline_exceeded before the body is read, whatever the body, not internal', async () => {
    for (const body of [Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.alloc(0)]) {
      const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/proto', 'connect-timeout-ms': '0', 'x-service-key': key },
        body,
      });
      const text = await response.text();
      assert.equal(response.status, 504, text);
      assert.deepEqual(JSON.parse(text), { code: 'deadline_exceeded', message: 'the deadline passed before the request was read (a timeout of 0)' });
    }
    const answer = await grpcCall(LIST_MONITORS, { 'x-service-key': key, 'grpc-timeout': '0m' }, grpcFrame(NOT_PROTOBUF));
    assert.equal(answer.status, '4', answer.message);
  });

  test('a Connect body that names a content-encoding it is not in is 400 invalid_argument, not internal', async () => {
    for (const [type, encoding, body] of [
      ['application/proto', 'br', Buffer.from([0x0a, 0x01, 0x31])],
      ['application/proto', 'gzip', Buffer.from([0xff, 0xff, 0xff])],
      ['application/json', 'gzip', Buffer.from('{')],
    ] as const) {
      const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
        method: 'POST',
        headers: { 'content-type': type, 'content-encoding': encoding, 'x-service-key': key },
        body,
      });
      const text = await response.text();
      assert.equal(response.status, 400, `${type} ${encoding}: ${text}`);
      assert.equal(JSON.parse(text).code, 'invalid_argument');
    }
  });

  test('a gRPC request that is not a valid message is status 3 INVALID_ARGUMENT, under /rpc and at the standard path', async () => {
    for (const path of [LIST_MONITORS, `/rpc${LIST_MONITORS}`]) {
      const answer = await grpcCall(path, { 'x-service-key': key }, grpcFrame(NOT_PROTOBUF));
      assert.equal(answer.status, '3', `${path}: ${answer.message}`);
      assert.match(answer.message ?? '', /^the request is not a valid monitor\.v1\.ListMonitorsRequest message/);
    }
    // The control: a valid (empty) message is served.
    const ok = await grpcCall(LIST_MONITORS, { 'x-service-key': key }, grpcFrame(Buffer.alloc(0)));
    assert.equal(ok.status, '0', ok.message);
  });

  test('a Connect JSON request that is not valid JSON, or names an unknown field, is 400 invalid_argument', async () => {
    for (const body of ['{"pageSize":', '[1]', '{"noSuchField":1}', 'not json']) {
      const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': key },
        body,
      });
      assert.equal(response.status, 400, body);
      const error = (await response.json()) as { code: string; message: string };
      assert.equal(error.code, 'invalid_argument', body);
      assert.match(error.message, /^cannot decode message monitor\.v1\.ListMonitorsRequest from JSON/, body);
    }
  });
});

describe('request bodies over 1 MiB on ConnectRPC', () => {
  const MiB = 1024 * 1024;
  /** A body of `total` zero bytes in 64 KiB chunks, with no declared length (chunked on HTTP/1.1). */
  const stream = (total: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent < total; sent += 64 * 1024) controller.enqueue(new Uint8Array(Math.min(64 * 1024, total - sent)));
        controller.close();
      },
    });

  test('a chunked Connect body that grows over the limit is 400 invalid_argument naming the limit, not resource_exhausted', async () => {
    for (const type of ['application/proto', 'application/json']) {
      const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
        method: 'POST',
        headers: { 'content-type': type, 'x-service-key': key },
        body: stream(MiB + 64 * 1024),
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 400, type);
      assert.equal(response.headers.get('retry-after'), null);
      assert.deepEqual(await response.json(), { code: 'invalid_argument', message: `request body is over the limit of ${MiB} bytes` });
    }
  });

  test('a gRPC message over the limit is status 3 INVALID_ARGUMENT naming the limit, not RESOURCE_EXHAUSTED', async () => {
    const answer = await grpcCall(LIST_MONITORS, { 'x-service-key': key }, grpcFrame(Buffer.alloc(2 * MiB)));
    assert.equal(answer.status, '3', answer.message);
    assert.equal(answer.message, `request body is over the limit of ${MiB} bytes`);
  });

  test('a Connect request that declares a Content-Length over the limit is 413 LIMIT_EXCEEDED before its body is read', async () => {
    const response = await fetch(`${service.apiUrl}/rpc${LIST_MONITORS}`, {
      method: 'POST',
      headers: { 'content-type': 'application/proto', 'x-service-key': key },
      body: new Uint8Array(MiB + 1),
    });
    assert.equal(response.status, 413);
    const error = (await response.json()) as { code: string; message: string };
    assert.equal(error.code, 'LIMIT_EXCEEDED');
    assert.equal(error.message, `request body of ${MiB + 1} bytes is over the limit of ${MiB} bytes`);
  });
});

describe('HTTP/2 header blocks', () => {
  /**
   * One h2c GET of /openapi.json with an `x-padding` header of `size` bytes, sent at once or only
   * after the server's SETTINGS have arrived: the status, or the code the stream was reset with.
   */
  function h2Get(size: number, waitForSettings: boolean): Promise<{ status?: number; rstCode?: number }> {
    return new Promise((resolve, reject) => {
      const session = http2.connect(`http://127.0.0.1:${new URL(service.apiUrl).port}`);
      session.on('error', reject);
      const send = () => {
        const stream = session.request({ ':path': '/openapi.json', 'x-padding': 'a'.repeat(size) });
        let status: number | undefined;
        stream.on('response', (headers) => (status = Number(headers[':status'])));
        stream.on('error', () => {});
        stream.resume();
        stream.on('close', () => {
          session.close();
          resolve(status === undefined ? { rstCode: stream.rstCode } : { status });
        });
        stream.end();
      };
      if (waitForSettings) session.once('remoteSettings', send);
      else send();
    });
  }

  test('a header block over the HTTP/1.1 limit (20 KB) is refused on h2c, one of 10 KB passes', async () => {
    for (const waitForSettings of [false, true]) {
      assert.deepEqual(await h2Get(10 * 1024, waitForSettings), { status: 200 }, `waitForSettings ${waitForSettings}`);
      const refused = await h2Get(20 * 1024, waitForSettings);
      assert.ok(
        refused.status === 431 || refused.rstCode === http2.constants.NGHTTP2_ENHANCE_YOUR_CALM,
        `waitForSettings ${waitForSettings}: ${JSON.stringify(refused)}`,
      );
    }
  });

  test('the server advertises the HTTP/1.1 limit as its SETTINGS_MAX_HEADER_LIST_SIZE', async () => {
    const session = http2.connect(`http://127.0.0.1:${new URL(service.apiUrl).port}`);
    try {
      const settings = await new Promise<http2.Settings>((resolve, reject) => {
        session.once('remoteSettings', resolve);
        session.once('error', reject);
      });
      assert.equal(settings.maxHeaderListSize, 16 * 1024);
    } finally {
      session.close();
    }
  });
});

describe('/mcp with a chunked body', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const mcpHeaders = (credential: Record<string, string>) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...credential,
  });

  /**
   * A POST to /mcp without a Content-Length (so chunked) that sends `first` and then nothing until
   * `finish`; its answer must come within `withinMs`.
   */
  test('no credential or a dead one, with a chunked body that stalls after one chunk: the 401 comes at once', async () => {
    const credentials: Record<string, string>[] = [
      {},
      { 'x-service-key': 'svc_not_a_live_key_0000000000000000' },
      { authorization: 'Bearer svc_oat_not_a_live_token' },
    ];
    for (const credential of credentials) {
      const post = unfinishedPost(Number(new URL(service.apiUrl).port), '/mcp', mcpHeaders(credential), body.slice(0, 10), 5_000);
      try {
        const response = await post.answer;
        assert.equal(response.status, 401, response.text);
        assert.match(String(response.headers.get('www-authenticate')), /^Bearer resource_metadata="/);
        assert.equal(JSON.parse(response.text).error, 'invalid_token');
      } finally {
        post.destroy();
      }
    }
  });

  test('a live key with a chunked body is answered once the body is complete', async () => {
    const post = unfinishedPost(Number(new URL(service.apiUrl).port), '/mcp', mcpHeaders({ 'x-service-key': key }), body.slice(0, 10), 10_000);
    try {
      const early = await Promise.race([post.answer.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 300, 'waiting'))]);
      assert.equal(early, 'waiting', 'a live key was answered before its body was sent');
      post.finish(body.slice(10));
      const response = await post.answer;
      assert.equal(response.status, 200, response.text);
    } finally {
      post.destroy();
    }
  });

  test('a live key with a chunked body that grows over 1 MiB is 413 LIMIT_EXCEEDED', async () => {
    const MiB = 1024 * 1024;
    const post = unfinishedPost(Number(new URL(service.apiUrl).port), '/mcp', mcpHeaders({ 'x-service-key': key }), '[' + ' '.repeat(MiB), 10_000);
    try {
      const response = await post.answer;
      assert.equal(response.status, 413, response.text);
      const error = JSON.parse(response.text);
      assert.equal(error.code, 'LIMIT_EXCEEDED');
      assert.equal(error.message, `request body is over the limit of ${MiB} bytes`);
    } finally {
      post.destroy();
    }
  });
});

/** A page view as the renderers get it, with `maintenances` upcoming. */
function pageView(generatedAt: string, upcoming: PublicMaintenance[] = []): PublicPage {
  return {
    id: '7',
    slug: 'acme',
    title: 'Acme',
    description: '',
    url: 'http://localhost:3000/status/acme',
    generatedAt,
    state: 'operational',
    components: [],
    activeReports: [],
    pastReports: [],
    activeMaintenances: [],
    upcomingMaintenances: upcoming,
    subscribable: true,
  };
}

/** The decoded content of the page's CSP meta tag, or undefined without one. */
function metaPolicy(html: string): string | undefined {
  const match = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  return match?.[1]!
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

describe('the static export without response headers', () => {
  test('refuses scripts, fetches and inline styles it was not built with: its CSP is a meta tag, the live policy without frame-ancestors', async () => {
    const out = await mkdtemp(join(tmpdir(), 'statusdesk-export-'));
    try {
      await exportStaticPage(pageView('2026-11-21T12:00:00.000Z'), out);
      const index = await readFile(join(out, 'index.html'), 'utf8');
      const policy = metaPolicy(index);
      assert.ok(policy, 'index.html has no Content-Security-Policy meta tag');
      const expected = STATUS_PAGE_CSP.split('; ').filter((d) => !d.startsWith('frame-ancestors'));
      assert.deepEqual(policy.split('; '), expected);
      assert.ok(expected.includes("default-src 'none'") && expected.some((d) => d.startsWith("style-src 'sha256-")));
      // Before anything it governs: the first element after the charset.
      assert.ok(index.indexOf('<meta http-equiv="Content-Security-Policy"') < index.indexOf('<style>'));
      assert.match(index, /<meta charset="utf-8">\s*<meta http-equiv="Content-Security-Policy"/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  test('the live page keeps its policy in the header only, frame-ancestors included', async () => {
    assert.equal(metaPolicy(renderStatusPage(pageView('2026-11-21T12:00:00.000Z'), { mode: 'live' })), undefined);
    assert.match(STATUS_PAGE_CSP, /frame-ancestors 'none'/);
  });
});

describe('the Atom feed', () => {
  const window = (id: string, from: string, to: string): PublicMaintenance => ({
    id,
    title: `Upgrade ${id}`,
    message: '',
    from,
    to,
    active: false,
    components: [],
  });
  /** The text of every `<updated>`, the feed's first, then each entry's. */
  const updatedTimes = (feed: string) => [...feed.matchAll(/<updated>([^<]*)<\/updated>/g)].map((m) => m[1]!);

  test('refuses an updated time in the future: an upcoming maintenance is updated at most when the feed is rendered', () => {
    const generated = '2026-11-21T12:00:00.000Z';
    const feed = renderAtomFeed(
      pageView(generated, [window('m1', '2026-11-22T02:00:00Z', '2026-11-22T04:00:00Z'), window('m2', '2026-12-01T00:00:00Z', '2026-12-01T01:00:00Z')]),
      'http://localhost:3000/status/acme/feed.atom',
    );
    const times = updatedTimes(feed);
    assert.equal(times.length, 3, feed);
    for (const time of times) assert.ok(Date.parse(time) <= Date.parse(generated), `${time} is after ${generated}`);
    assert.deepEqual(times, ['2026-11-21T12:00:00Z', '2026-11-21T12:00:00Z', '2026-11-21T12:00:00Z']);
  });

  test('a window whose start has come keeps its start as its updated time', () => {
    const feed = renderAtomFeed(
      pageView('2026-11-21T12:00:00.000Z', [window('m1', '2026-11-21T11:00:00Z', '2026-11-21T13:00:00Z')]),
      'http://localhost:3000/status/acme/feed.atom',
    );
    assert.deepEqual(updatedTimes(feed), ['2026-11-21T11:00:00Z', '2026-11-21T11:00:00Z']);
  });
});
