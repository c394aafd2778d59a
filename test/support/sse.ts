/** SSE answers as the MCP SDK makes them, for the tests of sendStreamed. */

const encoder = new TextEncoder();

/** An `event: message` with `data`, as bytes. */
export const sseEvent = (data: string) => encoder.encode(`event: message\ndata: ${data}\n\n`);

/**
 * A 200 text/event-stream Response whose stream holds `events` and ends, or stays open when
 * `open` is given: it is handed the controller (to send more and end later) and `cancel` is
 * called when the reader cancels.
 */
export function sseAnswer(
  events: string[],
  options: {
    open?: (controller: ReadableStreamDefaultController<Uint8Array>) => void;
    cancel?: (reason: unknown) => void;
    headers?: Record<string, string>;
  } = {},
): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const data of events) controller.enqueue(sseEvent(data));
      if (options.open) options.open(controller);
      else controller.close();
    },
    cancel: options.cancel,
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...options.headers } });
}
