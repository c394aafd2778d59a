/**
 * A streamed answer (MCP's SSE) leaves with its head in one write to the socket when its stream
 * holds one event and ends, still sends each chunk at once when the stream waits, and stops
 * reading the stream when the client goes away. Real node:http on loopback, a raw client.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { sendStreamed } from '../server/http/send-streamed.ts';
import { sseAnswer, sseEvent } from './support/sse.ts';

/** A server answering every request with `answer()` through sendStreamed; counts the writes each response's socket makes to the OS. */
async function serve(answer: () => Response) {
  const writes: number[] = [];
  const server = http.createServer((_req, res) => {
    const socket = res.socket as net.Socket & { _writeGeneric: (...args: unknown[]) => unknown };
    const index = writes.push(0) - 1;
    const writeGeneric = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (...args: unknown[]) => {
      writes[index]! += 1;
      return writeGeneric(...args);
    };
    sendStreamed(res, answer());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return { port, writes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A raw HTTP/1.1 request on its own connection; `received` grows as the answer arrives. */
async function request(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  const arrivals: ((text: string) => void)[] = [];
  socket.on('data', (chunk) => {
    received += chunk.toString('utf8');
    for (const arrived of arrivals) arrived(received);
  });
  socket.write('POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
  /** Resolves once the received text holds `part`; fails after 5 s. */
  const until = (part: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(part)} in 5 s; received ${JSON.stringify(received)}`)), 5_000);
      const arrived = (text: string) => {
        if (!text.includes(part)) return;
        clearTimeout(timer);
        resolve(text);
      };
      arrivals.push(arrived);
      arrived(received);
    });
  return { socket, until };
}

test('a stream of one event that ends leaves with the head and the end in a single write', async () => {
  const server = await serve(() => sseAnswer(['{"jsonrpc":"2.0","id":1,"result":{}}']));
  try {
    const client = await request(server.port);
    const text = await client.until('0\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text, /content-type: text\/event-stream\r\n/);
    assert.match(text, /event: message\ndata: \{"jsonrpc":"2\.0","id":1,"result":\{\}\}\n\n/);
    assert.deepEqual(server.writes, [1], 'head, event and the chunked end in one write');
    client.socket.destroy();
  } finally {
    await server.close();
  }
});

test('a stream that waits sends each chunk as it has it, not when the next one comes', async () => {
  let second: (() => void) | undefined;
  const server = await serve(() =>
    sseAnswer(['first'], {
      open: (controller) => {
        second = () => {
          controller.enqueue(sseEvent('second'));
          controller.close();
        };
      },
    }),
  );
  try {
    const client = await request(server.port);
    const early = await client.until('data: first');
    assert.doesNotMatch(early, /data: second/);
    second!();
    await client.until('data: second\n\n');
    await client.until('0\r\n\r\n');
    client.socket.destroy();
  } finally {
    await server.close();
  }
});

test('a client that goes away cancels the stream it was reading', async () => {
  let cancelled: (reason: unknown) => void;
  const cancel = new Promise((resolve) => (cancelled = resolve));
  const server = await serve(() => sseAnswer(['first'], { open: () => {}, cancel: (reason) => cancelled(reason) }));
  try {
    const client = await request(server.port);
    await client.until('data: first');
    client.socket.destroy();
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the stream was not cancelled within 5 s')), 5_000).unref());
    await Promise.race([cancel, timeout]);
  } finally {
    await server.close();
  }
});

test('over HTTP/2 the answer streams the same, without the HTTP/1.1 connection header', async () => {
  const server = http2.createServer((_req, res) => sendStreamed(res, sseAnswer(['h2'], { headers: { connection: 'keep-alive' } })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const warnings: Error[] = [];
  const warned = (warning: Error) => warnings.push(warning);
  process.on('warning', warned);
  const client = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  try {
    const stream = client.request({ ':method': 'POST', ':path': '/mcp' });
    stream.end();
    const [head] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
    let body = '';
    for await (const chunk of stream) body += String(chunk);
    assert.equal(head[':status'], 200);
    assert.equal(head['content-type'], 'text/event-stream');
    assert.equal(body, 'event: message\ndata: h2\n\n');
    assert.deepEqual(
      warnings.map((w) => w.message),
      [],
    );
  } finally {
    process.off('warning', warned);
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
