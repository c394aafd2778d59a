// The UI's dev server (`npm run dev`): Vite with hot reload over renderer/, in front of a running
// service whose dashboard port answers everything that is not the UI itself. Only the dev server
// reads this file; the production build is scripts/build.ts (`configFile: false`), unchanged.
import { readFile } from 'node:fs/promises';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { InlineConfig, Plugin, ProxyOptions } from 'vite';
import { DASHBOARD_API, RPC_PATH, SESSION_TOKEN_META } from '../contract/dashboard.ts';

/** The environment variable naming the dashboard port of the service the dev server proxies to. */
export const DEV_TARGET_SETTING = 'STATUSDESK_DEV_TARGET';
/** `npm start`'s dashboard port. */
export const DEFAULT_DEV_TARGET = 'http://localhost:3001';

/**
 * What the UI calls on the dashboard port, from the contract: each JSON call's path up to its
 * first parameter, and the RPC services.
 */
const SERVICE_PREFIXES = [...new Set([...Object.values(DASHBOARD_API).map(({ path }) => path.split(':')[0]!), `${RPC_PATH}/`])];
/** A consent link (`/oauth/consent?ticket=…`): the service binds the browser to the request and redirects to the consent page. */
const CONSENT_TICKET = '/oauth/consent\\?(?:[^#]*&)?ticket=';
/** Every path the dev server passes to the service, as one pattern (Vite reads a key starting with ^ as one). */
const TO_SERVICE = `^(?:${[...SERVICE_PREFIXES.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), CONSENT_TICKET].join('|')})`;
/** The meta element of the sign-in answer that carries the session token. */
const SESSION_TOKEN_META_ELEMENT = new RegExp(`<meta name="${SESSION_TOKEN_META}" content="[A-Za-z0-9_-]*">`);

const INDEX_HTML = new URL('index.html', import.meta.url);

/**
 * No other site may frame the dev server's pages, as none may frame the service's: the consent
 * screen must not be overlaid. (The rest of the service's Content-Security-Policy cannot hold here:
 * Vite's client and React's refresh run inline code.)
 */
const NO_FRAMING = { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" };

/** The service's dashboard origin from `env`, or the default; a clear error naming the setting otherwise. */
export function devTarget(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[DEV_TARGET_SETTING] || DEFAULT_DEV_TARGET;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`${DEV_TARGET_SETTING}: must be the address of a service's dashboard port, like ${DEFAULT_DEV_TARGET} (got ${JSON.stringify(value)})`);
  }
  return url.origin;
}

/** The origin of a page of this dev server, as its browser names it in `Origin`. */
function devOriginOf(req: IncomingMessage): string {
  return `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host ?? ''}`;
}

/**
 * Forwards requests to the service as its own dashboard port would receive them. `changeOrigin` names the
 * service in `Host`; a change from one of the dev server's own pages also names the service in
 * `Origin`, so its origin guard accepts it without being widened. Any other origin is passed as it
 * came, and the service refuses it as it refuses it on its own port.
 */
function toService(target: string): ProxyOptions {
  return {
    target,
    changeOrigin: true,
    configure(proxy) {
      proxy.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) => {
        if (req.headers.origin !== undefined && req.headers.origin === devOriginOf(req)) proxyReq.setHeader('origin', target);
      });
    },
  };
}

/**
 * `/signin?token=…` through the service, which redeems the link, sets the session cookie and
 * answers its built index.html with the page's session token in a meta element. The dev server
 * answers its own index.html instead (the sources, with hot reload), carrying that meta element,
 * with the service's cookie and caching headers. Any other answer (an expired link) is passed on.
 */
function signInThroughService(target: string): Plugin {
  return {
    name: 'statusdesk:sign-in-through-service',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        if (req.method !== 'GET' || !req.url || !/^\/signin(?:\?|$)/.test(req.url)) return next();
        let answer: Response;
        try {
          answer = await fetch(new URL(req.url, target), { redirect: 'manual', headers: { accept: 'text/html' }, signal: AbortSignal.timeout(10_000) });
        } catch {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`No Statusdesk service answers at ${target}: start one (npm start), or set ${DEV_TARGET_SETTING} to its dashboard address.\n`);
          return;
        }
        try {
          const html = await answer.text();
          const meta = SESSION_TOKEN_META_ELEMENT.exec(html)?.[0];
          const page = meta ? (await server.transformIndexHtml('/', await readFile(INDEX_HTML, 'utf8'))).replace('</head>', `${meta}</head>`) : html;
          const cookies = answer.headers.getSetCookie();
          if (cookies.length > 0) res.setHeader('set-cookie', cookies);
          for (const name of ['cache-control', 'referrer-policy']) {
            const value = answer.headers.get(name);
            if (value !== null) res.setHeader(name, value);
          }
          res.setHeader('content-type', 'text/html; charset=utf-8');
          for (const [name, value] of Object.entries(NO_FRAMING)) res.setHeader(name, value);
          res.statusCode = answer.status;
          res.end(page);
        } catch (error) {
          next(error);
        }
      });
    },
  };
}

/** Says once where the dev server sends the API, and whether anything answers there. */
function announceTarget(target: string): Plugin {
  return {
    name: 'statusdesk:announce-target',
    configureServer(server) {
      server.httpServer?.once('listening', () => {
        const port = server.config.server.port;
        server.config.logger.info(`  API of the service at ${target} (${DEV_TARGET_SETTING}); sign in with: npx statusdesk dashboard --dashboard-port ${port}`);
        fetch(`${target}/healthz`, { signal: AbortSignal.timeout(3_000) }).then(
          (answer) => answer.body?.cancel(),
          () => server.config.logger.warn(`  No service answers at ${target} yet: start one (npm start), or set ${DEV_TARGET_SETTING}.`),
        );
      });
    },
  };
}

/**
 * The dev server's configuration, proxying to the service at `target` (a dashboard origin): what
 * `vite renderer` reads, and what tests pass to Vite's `createServer` with a port of their own.
 */
export function devConfig(target: string = devTarget()): InlineConfig {
  return {
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [react(), signInThroughService(target), announceTarget(target)],
    server: {
      // The service answers no other origin's scripts; the dev server in front of it neither.
      cors: false,
      headers: NO_FRAMING,
      proxy: { [TO_SERVICE]: toService(target) },
    },
  };
}

export default devConfig();
