import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';
import { AppError } from '../server/errors.ts';
import { errorAnswer } from '../server/http/errors.ts';
import { createRateLimiter } from '../server/http/rate-limit.ts';
import { toConnectError } from '../server/rpc/errors.ts';
import { startTestService, type TestService } from './support/harness.ts';

/** The rate limit's refusal: LIMIT_EXCEEDED with the seconds to wait. */
const limited = (e: unknown) => e instanceof AppError && e.code === 'LIMIT_EXCEEDED' && Number.isInteger(e.retryAfterSeconds);

describe('the rate limiter', () => {
  test('gives a credential its whole budget at once, then refills it evenly over a minute', () => {
    let t = 0;
    const limiter = createRateLimiter(60, () => t);
    for (let i = 0; i < 60; i++) limiter.take('a');
    assert.throws(
      () => limiter.take('a'),
      (e: unknown) => e instanceof AppError && e.retryAfterSeconds === 1 && e.code === 'LIMIT_EXCEEDED',
    );
    t += 1000; // one call per second comes back
    limiter.take('a');
    assert.throws(() => limiter.take('a'), limited);
  });

  test('counts each credential on its own', () => {
    const limiter = createRateLimiter(2, () => 0);
    limiter.take('a', 2);
    limiter.take('b', 2);
    assert.throws(() => limiter.take('a'), limited);
  });

  test('says how long until enough calls are back for a batch', () => {
    let t = 0;
    const limiter = createRateLimiter(60, () => t);
    limiter.take('a', 60);
    assert.throws(
      () => limiter.take('a', 10),
      (e: unknown) => e instanceof AppError && e.retryAfterSeconds === 10,
    );
    t += 10_000;
    limiter.take('a', 10);
  });

  test('refuses a batch larger than the whole budget, and says to send smaller ones', () => {
    const limiter = createRateLimiter(5, () => 0);
    assert.throws(
      () => limiter.take('a', 6),
      (e: unknown) => e instanceof AppError && e.retryAfterSeconds === 60 && /batch of 6 calls/.test(e.message),
    );
    limiter.take('a', 5);
  });

  test('is off at 0', () => {
    const limiter = createRateLimiter(0);
    for (let i = 0; i < 10_000; i++) limiter.take('a');
  });
});

describe('the seconds to wait: one field of AppError, read once by each edge', () => {
  const waiting = new AppError('LIMIT_EXCEEDED', 'try again later', [], { retryAfterSeconds: 7 });
  const notWaiting = new AppError('LIMIT_EXCEEDED', 'request body is over the limit');

  test('REST and the OAuth paths send it as Retry-After, with their own bodies', () => {
    const rest = errorAnswer('/v1/whoami', 429, waiting, 'request-1', 'http://localhost:3000');
    assert.equal(rest.headers['retry-after'], '7');
    assert.equal(JSON.parse(rest.body).code, 'LIMIT_EXCEEDED');
    const oauth = errorAnswer('/oauth/token', 429, waiting, 'request-1', 'http://localhost:3000');
    assert.equal(oauth.headers['retry-after'], '7');
    assert.equal(JSON.parse(oauth.body).error, 'temporarily_unavailable');
    assert.equal(errorAnswer('/v1/whoami', 413, notWaiting, 'request-1', 'http://localhost:3000').headers['retry-after'], undefined);
  });

  test('ConnectRPC sends it as retry-after metadata with resource_exhausted', () => {
    const refused = toConnectError(waiting);
    assert.equal(refused.code, Code.ResourceExhausted);
    assert.equal(refused.metadata.get('retry-after'), '7');
    assert.equal(toConnectError(notWaiting).metadata.get('retry-after'), null);
  });
});

describe('one budget per credential across REST, RPC and MCP', () => {
  let svc: TestService;
  let key: string;
  let other: string;

  before(async () => {
    svc = await startTestService({ STATUSDESK_RATE_LIMIT: '4' });
    key = (await svc.createKey('read')).secret;
    other = (await svc.createKey('read')).secret;
  });
  after(() => svc.stop());

  test('REST, RPC and MCP calls draw on the same budget; the refusals are 429 with Retry-After on each surface', async () => {
    const monitors = createClient(MonitorService, createConnectTransport({ baseUrl: `${svc.apiUrl}/rpc`, httpVersion: '1.1' }));
    const rpcHeaders = { headers: { 'x-service-key': key } };
    const mcp = (secret: string) =>
      svc.api('/mcp', {
        method: 'POST',
        key: secret,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });

    assert.equal((await svc.api('/v1/whoami', { key })).status, 200);
    await monitors.listMonitors({}, rpcHeaders);
    assert.equal((await mcp(key)).status, 200);
    assert.equal((await svc.api('/v1/whoami', { key })).status, 200);

    const rest = await svc.api('/v1/whoami', { key });
    assert.equal(rest.status, 429);
    assert.match(rest.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(((await rest.json()) as { code: string }).code, 'LIMIT_EXCEEDED');

    await assert.rejects(monitors.listMonitors({}, rpcHeaders), (e: unknown) => {
      assert.ok(e instanceof ConnectError);
      assert.equal(e.code, Code.ResourceExhausted);
      assert.match(e.metadata.get('retry-after') ?? '', /^[1-9]\d*$/);
      return true;
    });

    const refused = await mcp(key);
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(((await refused.json()) as { error: string }).error, 'rate_limited');

    // Another credential of the same workspace has its own budget.
    assert.equal((await svc.api('/v1/whoami', { key: other })).status, 200);
    assert.equal((await mcp(other)).status, 200);
  });
});
