/**
 * Smaller refusals: requests the service turns away, each with the answer the documentation
 * (docs/reference/errors.md) promises and never one that invites a retry.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from './support/harness.ts';

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

/** One gRPC call over h2c to 127.0.0.1; the status and message from the trailers (or a trailers-only answer). */
function grpcCall(path: string, headers: http2.OutgoingHttpHeaders, body: Buffer): Promise<{ status: string | undefined; message: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${new URL(service.apiUrl).port}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    let status: string | undefined;
    let message: string | undefined;
    const take = (fields: http2.IncomingHttpHeaders) => {
      if (fields['grpc-status'] !== undefined) {
        status = String(fields['grpc-status']);
        message = fields['grpc-message'] === undefined ? undefined : decodeURIComponent(String(fields['grpc-message']));
      }
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('error', reject);
    stream.resume();
    stream.on('close', () => {
      session.close();
      resolve({ status, message });
    });
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
