import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';

/** What this needs of Node's response, HTTP/1.1's or HTTP/2's. */
interface Outgoing {
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(error?: Error): unknown;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

let sent: Response | undefined;

/**
 * What tells the Hono adapter that a route wrote its response itself: the headers of its
 * RESPONSE_ALREADY_SENT, on a Response of Node's own. The adapter's constant is made with
 * whatever Response is global when its module loads; made after an adapter put its own Response
 * in place (the dashboard's port answers first, say), it takes the adapter's path for its own
 * responses, which writes the response again: an error, and the connection closed. Made at first
 * use, from inside the adapter, and turned into Node's: the adapter's Response becomes one at the
 * first use of its body.
 */
function alreadySent(): Response {
  if (!sent) {
    sent = new Response(null, { headers: RESPONSE_ALREADY_SENT.headers });
    void sent.bodyUsed;
  }
  return sent;
}

/** Resolves once the response can take more, or has closed (a client that went away). */
function drainedOrClosed(outgoing: Outgoing): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });
}

/**
 * Writes a fetch Response whose body is a stream to Node's response. The Hono adapter flushes a
 * streamed body's head on its own first: one more write to the socket, and one more packet for
 * the client to read, for every MCP answer over SSE. Here the head waits for the first chunk, and
 * Node's response sends what is written in one turn of the event loop together: a stream that
 * holds one event and ends leaves in one write (head, event and the chunked end), and a stream
 * that waits still sends each chunk as soon as it has it. Returns what tells the adapter the
 * response went out.
 */
export function sendStreamed(outgoing: Outgoing, response: Response): Response {
  const { status, headers, body } = response;
  const head: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    // Node keeps an HTTP/1.1 connection open by itself, and HTTP/2 has no such header.
    if (name !== 'connection') head[name] = name === 'set-cookie' ? headers.getSetCookie() : value;
  });
  outgoing.writeHead(status, head);
  if (!body) {
    outgoing.end();
    return alreadySent();
  }
  const reader = body.getReader();
  let closed = false;
  outgoing.once('close', () => {
    closed = true;
    void reader.cancel().catch(() => {});
  });
  const pump = async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return void outgoing.end();
      // A client that reads slowly holds the stream here, not memory; one that went away ends it
      // (close cancels the reader, and a write after it waits for nothing).
      if (!outgoing.write(value) && !closed) await drainedOrClosed(outgoing);
    }
  };
  pump().catch((error: unknown) => outgoing.destroy(error as Error));
  return alreadySent();
}
