import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'hono';
import { type PublicPage, summaryJson } from '../domain/pages/public-view.ts';
import type { Services } from '../services.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { renderAtomFeed } from './atom-feed.ts';
import { brandingOf } from './branding.ts';
import { STATUS_PAGE_CSP } from './html-document.ts';
import { renderNoticePage } from './notice-page.ts';
import { PAGE_SCRIPT, PAGE_SCRIPT_FILE } from './page-script.ts';
import { renderStatusPage } from './status-page.ts';

const gzipAsync = promisify(gzip);
/** A body as hono sends it. */
type Bytes = Uint8Array<ArrayBuffer>;

/** Visitors may keep a page this long; changes show within it. */
const CACHE_CONTROL = 'public, max-age=10';
const HTML = 'text/html; charset=utf-8';

const statusOf: Partial<Record<AppError['code'], number>> = { NOT_FOUND: 404, VALIDATION: 400, PRECONDITION_FAILED: 409, LIMIT_EXCEEDED: 429 };
const headingOf: Partial<Record<AppError['code'], string>> = { NOT_FOUND: 'Not found', LIMIT_EXCEEDED: 'Too many sign-ups' };

/**
 * The public status pages on the API port: /status/{slug} (HTML, complete without JavaScript), the
 * script that enhances it, its Atom feed, its JSON summary, and the email subscription (sign up,
 * confirm, unsubscribe). No credential is needed; nothing here shows more than the page itself.
 */
export function registerStatusPages(app: HonoApp, services: Services): void {
  // Rendering a view is the expensive part; a view is rebuilt only when it changed or expired,
  // and each of its bodies is made once, as bytes: encoding a large page per request would cost
  // more than sending it. Compression runs off the event loop.
  const bodies = new WeakMap<PublicPage, Map<string, Promise<Bytes>>>();
  const once = (view: PublicPage, kind: string, make: () => Bytes | Promise<Bytes>): Promise<Bytes> => {
    let forView = bodies.get(view);
    if (!forView) bodies.set(view, (forView = new Map()));
    let body = forView.get(kind);
    if (body === undefined) forView.set(kind, (body = Promise.resolve().then(make)));
    return body;
  };
  const bytes = (text: string): Bytes => new Uint8Array(Buffer.from(text));
  const notice = (options: Parameters<typeof renderNoticePage>[0]) => bytes(renderNoticePage(options));

  const page = (c: Context<AppEnv>, body: Bytes, status = 200, cache = 'no-store', csp = STATUS_PAGE_CSP) =>
    c.body(body, status as 200, { 'content-type': HTML, 'content-security-policy': csp, 'cache-control': cache });

  /** An HTML answer for a visitor: errors are pages too, not JSON envelopes. */
  async function visitor(c: Context<AppEnv>, work: () => Promise<Response>): Promise<Response> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError) || statusOf[error.code] === undefined) throw error;
      const heading = headingOf[error.code] ?? 'That did not work';
      const answer = page(c, notice({ title: 'Status', heading, message: error.message }), statusOf[error.code]);
      if (error.retryAfterSeconds !== undefined) answer.headers.set('retry-after', String(error.retryAfterSeconds));
      return answer;
    }
  }

  app.get('/status/:slug', (c) =>
    visitor(c, async () => {
      const view = await services.publicPages.view(c.req.param('slug'));
      const html = () => once(view, 'html', () => bytes(renderStatusPage(view, { mode: 'live' })));
      // The owner's branding brings a stylesheet of its own, allowed by its hash.
      const csp = brandingOf(view).csp(STATUS_PAGE_CSP);
      // A page with many components is mostly uptime bars, which compress about thirtyfold.
      if (!/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return page(c, await html(), 200, CACHE_CONTROL, csp);
      const compressed = await once(view, 'html.gz', async () => new Uint8Array(await gzipAsync(await html())));
      return c.body(compressed, 200, {
        'content-type': HTML,
        'content-encoding': 'gzip',
        vary: 'accept-encoding',
        'content-security-policy': csp,
        'cache-control': CACHE_CONTROL,
      });
    }),
  );

  // The same for every page (its address carries its version): served under each page's path so
  // that it is always of the page's origin.
  const script = bytes(PAGE_SCRIPT);
  app.get(`/status/:slug/${PAGE_SCRIPT_FILE}`, (c) =>
    c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600' }),
  );

  app.get('/status/:slug/feed.atom', async (c) => {
    const view = await services.publicPages.view(c.req.param('slug'));
    const body = await once(view, 'atom', () => bytes(renderAtomFeed(view, `${view.url}/feed.atom`)));
    return c.body(body, 200, { 'content-type': 'application/atom+xml; charset=utf-8', 'cache-control': CACHE_CONTROL });
  });

  app.get('/status/:slug/summary.json', async (c) => {
    const view = await services.publicPages.view(c.req.param('slug'));
    const body = await once(view, 'json', () => bytes(JSON.stringify(summaryJson(view))));
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': CACHE_CONTROL });
  });

  app.post('/status/:slug/subscribe', (c) =>
    visitor(c, async () => {
      const slug = c.req.param('slug');
      const form = await c.req.parseBody().catch(() => {
        throw new AppError('VALIDATION', 'email: send the form with an email field', [{ field: 'email', rule: 'is required' }]);
      });
      // The address of the connection: behind a tunnel or proxy it is the proxy's, for every visitor.
      await services.subscribers.subscribePublic(slug, form.email, c.env.incoming.socket?.remoteAddress ?? 'unknown');
      const view = await services.publicPages.view(slug);
      return page(
        c,
        notice({
          title: view.title,
          heading: 'Check your inbox',
          message: `If the address can receive mail, a confirmation link is on its way. Nothing is sent to it until the link is followed.`,
          pageUrl: view.url,
        }),
      );
    }),
  );

  // A link followed from a mail only asks, and the button acts: mail scanners open links, and must
  // neither confirm a sign-up someone else made nor unsubscribe anyone.
  const ask = (action: 'confirm' | 'unsubscribe', heading: string, message: (found: { pageTitle: string; address: string }) => string, button: string) =>
    app.get(`/status/:slug/${action}`, (c) =>
      visitor(c, async () => {
        const [id, token] = [c.req.query('s') ?? '', c.req.query('token') ?? ''];
        const found = await services.subscribers.checkLink(action, id, token);
        return page(
          c,
          notice({
            title: found.pageTitle,
            heading,
            message: message(found),
            pageUrl: found.pageUrl,
            // Relative: the form posts back to the address it was opened at, whatever host that was.
            form: { action: `${action}?s=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`, button },
          }),
        );
      }),
    );
  ask(
    'confirm',
    'Confirm your subscription',
    (found) => `${found.address} will get an email when ${found.pageTitle} posts an incident or maintenance.`,
    'Confirm',
  );
  ask('unsubscribe', 'Unsubscribe?', (found) => `${found.address} will no longer get updates from ${found.pageTitle}.`, 'Unsubscribe');

  app.post('/status/:slug/confirm', (c) =>
    visitor(c, async () => {
      const done = await services.subscribers.confirm(c.req.query('s') ?? '', c.req.query('token') ?? '');
      return page(
        c,
        notice({
          title: done.pageTitle,
          heading: 'Subscription confirmed',
          message: `You will get an email when ${done.pageTitle} posts an incident or maintenance.`,
          pageUrl: done.pageUrl,
        }),
      );
    }),
  );

  // The button above, and mail clients' one-click unsubscribe (RFC 8058), which POSTs here.
  app.post('/status/:slug/unsubscribe', (c) =>
    visitor(c, async () => {
      const done = await services.subscribers.unsubscribe(c.req.query('s') ?? '', c.req.query('token') ?? '');
      return page(
        c,
        notice({ title: done.pageTitle, heading: 'Unsubscribed', message: `You will get no more mail from ${done.pageTitle}.`, pageUrl: done.pageUrl }),
      );
    }),
  );
}
