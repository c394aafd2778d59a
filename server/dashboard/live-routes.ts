import type { Context } from 'hono';
import type { LiveEvent as SentEvent } from '../../contract/dashboard-api.ts';
import { DASHBOARD_API } from '../../contract/dashboard.ts';
import type { Actor } from '../domain/actor.ts';
import type { LiveSubscription } from '../domain/live-feed.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import type { DashboardAppOptions } from './dashboard-app.ts';
import { workspaceIdOf } from './route-params.ts';

/** A comment line every so often: proxies and the client see the stream is alive. */
const KEEP_ALIVE_MS = 15_000;
/** A reader this far behind is not reading: its stream is ended rather than buffered without end. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

export interface LiveRouteOptions extends DashboardAppOptions {
  /** The signed-in person of a request, if the session still lives. */
  personOf(c: Context<AppEnv>): Promise<Actor | undefined>;
}

/** One event: its type as the SSE event's name, and itself, as the contract declares it, as the data. */
const frame = (event: SentEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * The live feed of one workspace as server-sent events (`state` and `changed`, data the event's
 * JSON). The UI reads it with fetch, as every other call, with the page's session token. A stream
 * ends when the client goes away, when the service stops, and when the session or the membership
 * it was opened with is gone (looked at with every keep-alive).
 */
export function registerLiveRoutes(app: HonoApp, options: LiveRouteOptions): void {
  const { personOf } = options;
  const { live } = options.services;

  app.get(DASHBOARD_API.events.path, async (c) => {
    const workspaceId = workspaceIdOf(c);
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let subscription: LiveSubscription | undefined;
    let keepAlive: NodeJS.Timeout | undefined;
    let open = true;

    const stop = () => {
      if (!open) return false;
      open = false;
      clearInterval(keepAlive);
      subscription?.close();
      c.req.raw.signal.removeEventListener('abort', onAbort);
      return true;
    };
    const end = () => {
      if (stop()) controller.close();
    };
    const onAbort = () => stop();
    const write = (text: string) => {
      if (!open) return;
      controller.enqueue(encoder.encode(text));
      if ((controller.desiredSize ?? 0) < -MAX_BACKLOG_BYTES) end();
    };

    const body = new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
        },
        cancel() {
          stop();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
    );
    // Not found or not allowed answers as JSON, before the stream starts.
    subscription = await live.subscribe(c.get('actor'), workspaceId, { send: (event) => write(frame(event)), end });
    if (!open) return new Response(body, { headers: eventStreamHeaders(c) });
    c.req.raw.signal.addEventListener('abort', onAbort);
    write(': connected\n\n');
    keepAlive = setInterval(() => {
      write(': keep-alive\n\n');
      void Promise.all([personOf(c), subscription!.stillAllowed()]).then(
        ([person, allowed]) => {
          if (!person || !allowed) end();
        },
        () => end(),
      );
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    return new Response(body, { headers: eventStreamHeaders(c) });
  });
}

function eventStreamHeaders(c: Context<AppEnv>): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // A proxy in front must pass each event on as it comes.
    'x-accel-buffering': 'no',
    // An HTTP/1.1 connection that carried a stream closes with it: left open for another request,
    // it would hold a stopping service until the client's keep-alive ran out. (HTTP/2 has no
    // such header; its streams end on their own.)
    ...(c.env.incoming.httpVersionMajor === 1 ? { connection: 'close' } : {}),
  };
}
