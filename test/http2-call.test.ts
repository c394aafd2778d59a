import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { after, describe, test } from 'node:test';
import { ConnectionFailure, Deadline } from '../server/checks/connection.ts';
import { CompressionError, encodeHeaders, HpackDecoder } from '../server/checks/hpack.ts';
import { type Headers, Http2Connection } from '../server/checks/http2-call.ts';
import { until } from './support/wait.ts';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('HPACK', () => {
  test('the Huffman-coded requests of RFC 7541 C.4 decode, the dynamic table carrying from block to block', () => {
    const decoder = new HpackDecoder();
    assert.deepEqual(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ]);
    assert.deepEqual(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['cache-control', 'no-cache'],
    ]);
    assert.deepEqual(decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
  });

  test('a table shrunk to 256 bytes evicts its oldest entries (RFC 7541 C.6.1 and C.6.2)', () => {
    const decoder = new HpackDecoder();
    // 3fe101: a size update to 256, the table size the RFC's example assumes.
    const first = decoder.decode(
      hex('3fe101 4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3'),
    );
    assert.deepEqual(first, [
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ]);
    // ":status 307" takes the place of ":status 302", the oldest: index 64 is gone.
    assert.deepEqual(decoder.decode(hex('4883 640e ff c1 c0 bf')), [
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ]);
    assert.throws(() => decoder.decode(hex('c2')), CompressionError, 'the evicted entry is not in the table');
  });

  test('broken blocks are compression errors: a cut string, an unknown index, bad padding, the EOS code, a table past 4096 bytes', () => {
    for (const block of ['418c f1e3', 'ff00', '0081 ff 0161', '0084 ffff ffff 0161', '3fe21f']) {
      assert.throws(() => new HpackDecoder().decode(hex(block)), CompressionError, block);
    }
  });

  test('what the encoder writes, the decoder reads back, bytes above 127 too', () => {
    const headers: Headers = [
      [':path', '/grpc.health.v1.Health/Check'],
      ['x-long', 'v'.repeat(300)],
      ['x-latin1', 'caf\u00e9 \u00ff'],
    ];
    assert.deepEqual(new HpackDecoder().decode(encodeHeaders(headers)), headers);
  });
});

/** A node:http2 (nghttp2) server: its encoder indexes and Huffman-codes as real servers do. */
async function nodeHttp2Server(handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void) {
  const server = http2.createServer();
  server.on('stream', handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A TCP server that answers each connection with `frames` once the client's first bytes arrive, recording what it got. */
async function frameServer(frames: (received: Buffer) => Buffer[]) {
  const received: Buffer[] = [];
  const server = net.createServer((socket) => {
    let answered = false;
    socket.on('data', (chunk) => {
      received.push(chunk);
      if (!answered) {
        answered = true;
        for (const bytes of frames(chunk)) socket.write(bytes);
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}
const SETTINGS = frame(4, 0, 0);

async function connect(port: number, deadline: Deadline): Promise<Http2Connection> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  await once(socket, 'connect');
  return Http2Connection.open(socket, deadline);
}

const REQUEST: Headers = [
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', '/echo'],
  [':authority', 'localhost'],
];

describe('an HTTP/2 call', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  test("answer headers and trailers of random text from nghttp2's encoder read the same as node:http2 sent them", async () => {
    const sent: Headers[] = [];
    const server = await nodeHttp2Server((stream) => {
      // Printable ASCII with some bytes above 127: Huffman-coded where that is shorter, indexed on repeat.
      const value = (n: number) =>
        Array.from({ length: n }, (_, i) => String.fromCharCode(i % 9 === 8 ? 128 + ((n * i) % 128) : 32 + ((n * 7 + i * 13) % 95))).join('');
      const headers: Headers = Array.from({ length: 12 }, (_, i) => [`x-field-${i % 5}`, value(5 + i * 11)]);
      const trailers: Headers = [
        ['x-trailer', value(40)],
        ['x-field-1', headers[1]![1]],
      ];
      sent.push(headers, trailers);
      stream.respond({ ':status': 200, ...Object.fromEntries(groupByName(headers)) }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(Object.fromEntries(groupByName(trailers))));
      stream.end('hello');
    });
    closers.push(server.close);
    const deadline = new Deadline(5_000);
    const connection = await connect(server.port, deadline);
    try {
      const answer = await connection.call(REQUEST, Buffer.from('x'), deadline);
      assert.deepEqual(answer.headers[0], [':status', '200']);
      assert.deepEqual(sorted(answer.headers.slice(1).filter(([name]) => name.startsWith('x-'))), sorted(sent[0]!));
      assert.deepEqual(sorted(answer.trailers), sorted(sent[1]!));
      assert.equal(answer.body.toString(), 'hello');
      assert.ok(answer.respondedAt > 0);
    } finally {
      connection.close();
      deadline.clear();
    }
  });

  test('every byte a header value may hold reads back from nghttp2, Huffman-coded, over HEADERS and CONTINUATION', async () => {
    // Surrounded by 'a' (5 bits), each byte makes a value that nghttp2 Huffman-codes, being shorter so.
    const bytes = [9, ...Array.from({ length: 95 }, (_, i) => 32 + i), ...Array.from({ length: 128 }, (_, i) => 128 + i)];
    const sent: Headers = bytes.map((byte) => [`x-byte-${byte}`, `${'a'.repeat(40)}${String.fromCharCode(byte)}${'a'.repeat(40)}`]);
    const server = await nodeHttp2Server((stream) => {
      stream.respond({ ':status': 200, ...Object.fromEntries(sent) });
      stream.end();
    });
    closers.push(server.close);
    const deadline = new Deadline(5_000);
    const connection = await connect(server.port, deadline);
    try {
      const answer = await connection.call(REQUEST, Buffer.alloc(0), deadline);
      assert.deepEqual(sorted(answer.headers.filter(([name]) => name.startsWith('x-byte-'))), sorted(sent));
    } finally {
      connection.close();
      deadline.clear();
    }
  });

  test('a request header block past one frame goes out as HEADERS and CONTINUATION, and arrives whole', async () => {
    let got: http2.IncomingHttpHeaders | undefined;
    const server = await nodeHttp2Server((stream, headers) => {
      got = headers;
      stream.respond({ ':status': 200 });
      stream.end();
    });
    closers.push(server.close);
    const deadline = new Deadline(5_000);
    const connection = await connect(server.port, deadline);
    try {
      const big = 'b'.repeat(6_000);
      await connection.call([...REQUEST, ['x-a', big], ['x-b', big], ['x-c', big]], Buffer.alloc(0), deadline);
      assert.equal(got?.['x-c'], big);
      assert.equal(got?.['x-a'], big);
    } finally {
      connection.close();
      deadline.clear();
    }
  });

  test('PING is answered, 1xx headers are skipped, padding is dropped and CONTINUATION is joined', async () => {
    const headerBlock = encodeHeaders([
      [':status', '200'],
      ['content-type', 'application/grpc'],
      ['x-part', 'joined'],
    ]);
    const padded = (payload: Buffer, padding: number) => Buffer.concat([Buffer.from([padding]), payload, Buffer.alloc(padding)]);
    const server = await frameServer(() => [
      SETTINGS,
      frame(6, 0, 0, Buffer.from('12345678')),
      frame(1, 0x4, 1, encodeHeaders([[':status', '100']])),
      frame(1, 0x8, 1, padded(headerBlock.subarray(0, 10), 3)),
      frame(9, 0x4, 1, headerBlock.subarray(10)),
      frame(0, 0x8, 1, padded(Buffer.from('data'), 4)),
      frame(1, 0x5 | 0x20, 1, Buffer.concat([Buffer.alloc(5), encodeHeaders([['grpc-status', '0']])])),
    ]);
    closers.push(server.close);
    const deadline = new Deadline(5_000);
    const connection = await connect(server.port, deadline);
    try {
      const answer = await connection.call(REQUEST, Buffer.alloc(0), deadline);
      assert.deepEqual(answer.headers, [
        [':status', '200'],
        ['content-type', 'application/grpc'],
        ['x-part', 'joined'],
      ]);
      assert.deepEqual(answer.trailers, [['grpc-status', '0']]);
      assert.equal(answer.body.toString(), 'data');
      await until(() => Buffer.concat(server.received).includes(frame(6, 1, 0, Buffer.from('12345678'))), 'the PING came back with ACK');
    } finally {
      connection.close();
      deadline.clear();
    }
  });

  test('a server that answers HTTP/1.1 fails the handshake, and the socket is closed', async () => {
    const server = await frameServer(() => [Buffer.from('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')]);
    closers.push(server.close);
    const deadline = new Deadline(5_000);
    const socket = net.connect({ port: server.port, host: '127.0.0.1' });
    await once(socket, 'connect');
    await assert.rejects(Http2Connection.open(socket, deadline), (error: unknown) => {
      assert.ok(error instanceof ConnectionFailure);
      assert.equal(error.kind, 'protocol');
      assert.equal(error.message, 'the server did not answer the HTTP/2 handshake');
      return true;
    });
    assert.ok(socket.destroyed);
    deadline.clear();
  });

  /** How a call fails against a server that answers with `frames`, within `ms`. */
  async function failureOf(frames: Buffer[], ms = 5_000): Promise<ConnectionFailure> {
    const server = await frameServer(() => frames);
    closers.push(server.close);
    const deadline = new Deadline(ms);
    const connection = await connect(server.port, deadline);
    try {
      const outcome = await connection.call(REQUEST, Buffer.alloc(0), deadline).then(
        () => assert.fail('the call was answered'),
        (error: unknown) => error,
      );
      assert.ok(outcome instanceof ConnectionFailure, String(outcome));
      return outcome;
    } finally {
      connection.close();
      deadline.clear();
    }
  }

  test('GOAWAY before stream 1 and a reset with NO_ERROR are a connection closed before the answer', async () => {
    for (const ending of [frame(7, 0, 0, Buffer.alloc(8)), frame(3, 0, 1, Buffer.alloc(4))]) {
      const failure = await failureOf([SETTINGS, ending]);
      assert.equal(failure.kind, 'reset');
      assert.equal(failure.message, 'the connection closed before the server answered');
    }
  });

  test('an answer whose data would fill the flow-control window, or a pushed stream, breaks the protocol', async () => {
    const headers = frame(1, 0x4, 1, encodeHeaders([[':status', '200']]));
    const data = Array.from({ length: 4 }, () => frame(0, 0, 1, Buffer.alloc(16_384)));
    const push = frame(5, 0x4, 1, Buffer.concat([Buffer.from([0, 0, 0, 2]), encodeHeaders([[':path', '/']])]));
    const full = await failureOf([SETTINGS, headers, ...data]);
    assert.equal(full.message, "the server broke the HTTP/2 protocol: the answer's data reached 65535 bytes");
    const pushed = await failureOf([SETTINGS, push]);
    assert.equal(pushed.message, 'the server broke the HTTP/2 protocol: a pushed stream, which this client disabled');
  });

  test('a server that never answers the call ends with the deadline', async () => {
    const failure = await failureOf([SETTINGS], 300);
    assert.equal(failure.kind, 'timeout');
    assert.equal(failure.message, 'timed out after 300 ms');
  });
});

/** Headers as node:http2 takes them: one name, several values as an array. */
function groupByName(headers: Headers): [string, string | string[]][] {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of headers) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  return [...grouped].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]);
}

const sorted = (headers: Headers) => [...headers].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
