import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { withLocalOwner } from './support/database.ts';
import { errorCodes } from '../server/errors.ts';
import { assertErrorEnvelope, dashboardSession, json, startTestService, type TestService } from './support/harness.ts';

const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request whose body the test writes itself: a declared length it never fully sends, or a
 * chunked body. Resolves on the answer, which may come before the body is done; write errors
 * after the service has answered (the service stops reading) are expected and ignored.
 */
function send(url: string, method: string, headers: Record<string, string>, write: (req: http.ClientRequest) => void): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    write(req);
  });
}

/** Writes `total` bytes of `fill` in 64 KiB chunks without a Content-Length (so chunked), then ends. */
function writeChunked(total: number, fill = 'x'): (req: http.ClientRequest) => void {
  return (req) => {
    const chunk = Buffer.alloc(64 * 1024, fill);
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  };
}

function assertRawError(response: RawResponse, status: number, code: string, message: string | RegExp, docsBase: string) {
  assert.equal(response.status, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = JSON.parse(response.body);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'docs', 'message', 'requestId']);
  assert.equal(body.code, code);
  if (typeof message === 'string') assert.equal(body.message, message);
  else assert.match(body.message, message);
  assert.equal(body.requestId, response.headers['x-request-id']);
  assert.match(body.requestId, UUID);
  assert.equal(body.docs, `${docsBase}/docs/reference/errors#${code.toLowerCase()}`);
}

let service: TestService;
/** The headers of the signed-in dashboard page: both halves of the session and its origin. */
let session: Record<string, string>;
let keysUrl: string;

before(async () => {
  service = await startTestService();
  session = await dashboardSession(service);
  keysUrl = `${service.dashboardUrl}/api/workspaces/1/keys`;
});
after(() => service.stop());

async function keyCount(): Promise<number> {
  const response = await fetch(keysUrl, { headers: session });
  assert.equal(response.status, 200);
  return (await json(response)).keys.length;
}

describe('401 UNAUTHORIZED on the REST API', () => {
  test('without any credential', async () => {
    await assertErrorEnvelope(
      await service.api('/v1/whoami'),
      401,
      'UNAUTHORIZED',
      /^missing credentials: send an API key in the x-service-key header, or an OAuth access token as Authorization: Bearer$/,
      service.apiUrl,
    );
  });

  test('with an unknown svc_ key, a malformed key or an empty key', async () => {
    for (const key of ['svc_' + 'A'.repeat(43), 'svc_short', 'not-a-key', 'svc_oat_' + 'A'.repeat(43), 'x'.repeat(300)]) {
      const response = await service.api('/v1/whoami', { headers: { 'x-service-key': key } });
      await assertErrorEnvelope(
        response,
        401,
        'UNAUTHORIZED',
        /^the x-service-key header does not hold a live API key \(unknown or revoked\)$/,
        service.apiUrl,
      );
    }
    const empty = await service.api('/v1/whoami', { headers: { 'x-service-key': '' } });
    await assertErrorEnvelope(empty, 401, 'UNAUTHORIZED', /x-service-key/, service.apiUrl);
  });

  test('with a key that was revoked while the service runs', async () => {
    const { id, secret } = await service.createKey('write');
    assert.equal((await service.api('/v1/whoami', { key: secret })).status, 200);
    const revoked = await withLocalOwner(service.dataDir, (services, owner) => services.keys.revoke(owner, id));
    assert.equal(revoked.id, id);
    assert.match(revoked.revokedAt ?? '', /^\d{4}-\d\d-\d\dT/);
    await assertErrorEnvelope(
      await service.api('/v1/whoami', { key: secret }),
      401,
      'UNAUTHORIZED',
      /^the x-service-key header does not hold a live API key \(unknown or revoked\)$/,
      service.apiUrl,
    );
  });

  test('with only an OAuth-style bearer token', async () => {
    await assertErrorEnvelope(
      await service.api('/v1/whoami', { headers: { authorization: 'Bearer svc_oat_x' } }),
      401,
      'UNAUTHORIZED',
      /^the bearer token is not a live access token for this resource/,
      service.apiUrl,
    );
  });

  test('the x-service-key header decides when a bearer token is also sent', async () => {
    const { id, secret } = await service.createKey('read');
    const both = await service.api('/v1/whoami', { key: secret, headers: { authorization: 'Bearer svc_oat_bogus' } });
    assert.equal(both.status, 200);
    assert.deepEqual((await json(both)).actor, { type: 'apiKey', keyId: id, scopes: ['read'] });

    const badKey = await service.api('/v1/whoami', { key: 'svc_' + 'B'.repeat(43), headers: { authorization: 'Bearer svc_oat_bogus' } });
    await assertErrorEnvelope(badKey, 401, 'UNAUTHORIZED', /x-service-key header does not hold a live API key/, service.apiUrl);
  });
});

describe('404 NOT_FOUND', () => {
  test('an unknown path on the API port', async () => {
    await assertErrorEnvelope(await service.api('/nope'), 404, 'NOT_FOUND', /^no route for GET \/nope$/, service.apiUrl);
  });

  test('an unknown /v1 path asks for credentials first, then is 404', async () => {
    await assertErrorEnvelope(await service.api('/v1/nope'), 401, 'UNAUTHORIZED', /missing credentials/, service.apiUrl);
    const { secret } = await service.createKey('read');
    await assertErrorEnvelope(await service.api('/v1/nope', { key: secret }), 404, 'NOT_FOUND', /^no route for GET \/v1\/nope$/, service.apiUrl);
  });

  test('an unknown path on the dashboard port, with docs links to the API port', async () => {
    await assertErrorEnvelope(await fetch(`${service.dashboardUrl}/nope`), 404, 'NOT_FOUND', /^no route for GET \/nope$/, service.apiUrl);
  });
});

describe('x-request-id', () => {
  test('every error carries a fresh request id in the header and the body', async () => {
    const { secret } = await service.createKey('read');
    const responses = [
      await service.api('/v1/whoami'),
      await service.api('/v1/whoami', { key: 'svc_unknown_key_value' }),
      await service.api('/nope'),
      await service.api('/v1/nope', { key: secret }),
      await fetch(`${service.dashboardUrl}/api/session`),
      await fetch(keysUrl, { method: 'POST', headers: { ...session, 'content-type': 'application/json' }, body: '{' }),
      await fetch(`${service.apiUrl}/v1/whoami`, { headers: { origin: 'http://evil.example' } }),
    ];
    const ids = new Set<string>();
    for (const response of responses) {
      assert.ok(response.status >= 400, String(response.status));
      const header = response.headers.get('x-request-id');
      assert.match(header ?? '', UUID);
      assert.equal((await json(response)).requestId, header);
      ids.add(header!);
    }
    assert.equal(ids.size, responses.length);
  });

  test('successful answers carry one too', async () => {
    const { secret } = await service.createKey('read');
    const response = await service.api('/v1/whoami', { key: secret });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('x-request-id') ?? '', UUID);
  });

  test('a well-formed caller id is echoed in the header and the envelope', async () => {
    for (const given of ['abcdefgh', 'trace.0123_ABC-xyz', 'a'.repeat(64)]) {
      const response = await service.api('/v1/whoami', { headers: { 'x-request-id': given } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('x-request-id'), given);
      assert.equal((await json(response)).requestId, given);
    }
    const dashboard = await fetch(`${service.dashboardUrl}/api/session`, { headers: { 'x-request-id': 'dash-req-0001' } });
    assert.equal(dashboard.status, 401);
    assert.equal(dashboard.headers.get('x-request-id'), 'dash-req-0001');
    assert.equal((await json(dashboard)).requestId, 'dash-req-0001');
  });

  test('a malformed caller id is replaced by a fresh one', async () => {
    for (const given of ['short', 'a'.repeat(65), 'has space in it', 'slash/or:colon', 'semi;colon-x']) {
      const response = await service.api('/v1/whoami', { headers: { 'x-request-id': given } });
      assert.equal(response.status, 401);
      const header = response.headers.get('x-request-id');
      assert.match(header ?? '', UUID, given);
      assert.equal((await json(response)).requestId, header);
    }
  });
});

describe('error documentation', () => {
  test('the docs link of an error resolves on the API port to markdown with a section for the code', async () => {
    const body = await json(await service.api('/v1/whoami'));
    const link = new URL(body.docs);
    assert.equal(link.origin, service.apiUrl);
    assert.equal(link.pathname, '/docs/reference/errors');
    assert.equal(link.hash, '#unauthorized');
    const page = await fetch(body.docs);
    assert.equal(page.status, 200, 'docs/reference/errors.md must exist');
    assert.match(page.headers.get('content-type') ?? '', /^text\/markdown/);
    const text = await page.text();
    assert.match(text, /^# Errors/);
    assert.match(text, /^## UNAUTHORIZED$/m);
  });

  test('every error code has its own section, so every docs anchor lands', async () => {
    const text = await (await service.api('/docs/reference/errors')).text();
    for (const code of errorCodes) assert.match(text, new RegExp(`^## ${code}$`, 'm'), code);
  });

  test('a docs path that does not exist, or climbs out of the folder, is 404', async () => {
    await assertErrorEnvelope(await service.api('/docs/reference/nope'), 404, 'NOT_FOUND', /^no documentation page at reference\/nope$/, service.apiUrl);
    await assertErrorEnvelope(await service.api('/docs/..%2Fpackage'), 404, 'NOT_FOUND', /^no documentation page at /, service.apiUrl);
    await assertErrorEnvelope(await service.api('/docs/Reference/Errors'), 404, 'NOT_FOUND', /^no documentation page at /, service.apiUrl);
  });
});

describe('request bodies over 1 MiB', () => {
  const dashboardPost = (headers: Record<string, string>, write: (req: http.ClientRequest) => void) =>
    send(keysUrl, 'POST', { 'content-type': 'application/json', ...headers }, write);

  test('a declared Content-Length over the limit is 413 LIMIT_EXCEEDED before the body is read', async () => {
    for (const extra of [{}, session] as Record<string, string>[]) {
      const response = await dashboardPost({ 'content-length': String(MiB + 1), ...extra }, (req) => req.write('{"name":"'));
      assertRawError(response, 413, 'LIMIT_EXCEEDED', `request body of ${MiB + 1} bytes is over the limit of ${MiB} bytes`, service.apiUrl);
    }
    const huge = await dashboardPost({ 'content-length': String(50 * MiB), ...session }, (req) => req.write('{'));
    assertRawError(huge, 413, 'LIMIT_EXCEEDED', `request body of ${50 * MiB} bytes is over the limit of ${MiB} bytes`, service.apiUrl);
  });

  test('the API port keeps the same limit', async () => {
    const response = await send(`${service.apiUrl}/v1/whoami`, 'POST', { 'content-length': String(2 * MiB) }, (req) => req.write('x'));
    assertRawError(response, 413, 'LIMIT_EXCEEDED', `request body of ${2 * MiB} bytes is over the limit of ${MiB} bytes`, service.apiUrl);
  });

  test('a body of exactly 1 MiB is read (and here refused only as bad JSON)', async () => {
    const response = await dashboardPost({ 'content-length': String(MiB), ...session }, (req) => req.end(Buffer.alloc(MiB, 'x')));
    assertRawError(response, 400, 'VALIDATION', 'the request body is not valid JSON', service.apiUrl);
  });

  test('a chunked body without Content-Length that grows over the limit is 413 LIMIT_EXCEEDED', async () => {
    const before = await keyCount();
    const response = await dashboardPost(session, writeChunked(MiB + 1));
    assertRawError(response, 413, 'LIMIT_EXCEEDED', `request body is over the limit of ${MiB} bytes`, service.apiUrl);
    const large = await dashboardPost(session, writeChunked(3 * MiB));
    assertRawError(large, 413, 'LIMIT_EXCEEDED', `request body is over the limit of ${MiB} bytes`, service.apiUrl);
    assert.equal(await keyCount(), before);
  });

  test('a chunked body under the limit is read as usual', async () => {
    const json = JSON.stringify({ name: 'chunked', scope: 'read' });
    const response = await dashboardPost(session, (req) => {
      req.write(json.slice(0, 10));
      req.end(json.slice(10));
    });
    assert.equal(response.status, 201, response.body);
    assert.equal(JSON.parse(response.body).key.name, 'chunked');
  });
});

describe('malformed JSON', () => {
  test('a signed-in POST with a body that is not JSON is 400 VALIDATION and creates nothing', async () => {
    const before = await keyCount();
    for (const body of ['{"name":"x","scope":"read"', '', 'name=x&scope=read', "{'name': 'x'}"]) {
      const response = await fetch(keysUrl, { method: 'POST', headers: { ...session, 'content-type': 'application/json' }, body });
      const envelope = await assertErrorEnvelope(response, 400, 'VALIDATION', /^the request body is not valid JSON$/, service.apiUrl);
      assert.equal(envelope.violations, undefined);
    }
    assert.equal(await keyCount(), before);
  });

  test('without a session the same body is 401, not 400', async () => {
    const response = await fetch(keysUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    await assertErrorEnvelope(response, 401, 'UNAUTHORIZED', /^not signed in/, service.apiUrl);
  });
});
