import { createHash } from 'node:crypto';
import { html, type Markup, raw } from './markup.ts';

/**
 * The HTML document every public page is written in: its head, its one stylesheet and the
 * Content-Security-Policy that allows that stylesheet, the status page's one script file and its
 * fetches of itself, and nothing else.
 */

/** The stylesheet: one inline block, the same on every page (hence one hash for a CSP). */
const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#111;--mut:#4a4a4a;--ln:#d0d0d0;--ok:#0a6b2d;--deg:#8a5300;--down:#b00020;--mnt:#1d4ed8;--link:#0645ad;
--u5:#1f9d55;--u4:#74c044;--u3:#d4ac00;--u2:#f08c00;--u1:#e8590c;--u0:#c8102e;--nd:#d0d0d0}
@media (prefers-color-scheme:dark){:root{--bg:#111318;--fg:#f1f1f1;--mut:#c4c4c4;--ln:#3c404a;--ok:#6ee293;--deg:#ffc857;--down:#ff8a94;--mnt:#9dbbff;--link:#9dbbff;--nd:#3c404a}}
@media (prefers-contrast:more){:root{--mut:var(--fg);--ln:var(--fg)}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:break-word;-webkit-text-size-adjust:100%}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--mnt);outline-offset:2px}
.w{max-width:52rem;margin:0 auto;padding-left:1rem;padding-right:1rem}
.skip{position:absolute;left:-999rem;top:0;padding:.5rem 1rem;background:var(--fg);color:var(--bg);z-index:2}
.skip:focus{left:0}
header{padding-top:2rem}
@media (max-width:40rem){header{padding-top:1.5rem}}
h1{font-size:1.75rem;line-height:1.2;margin:0 0 .25rem}
h2{font-size:1.25rem;margin:2.25rem 0 .75rem}
h3,h4{font-size:1rem;margin:0}
p{margin:.5rem 0}
.mut,.lede{color:var(--mut)}
.site{margin:0;font-weight:600}
.i{display:inline-flex;align-items:center;justify-content:center;flex:none;width:1.5em;height:1.5em;border:2px solid currentColor;border-radius:50%;font-size:.8em;font-weight:700;line-height:1}
.banner{margin:1.5rem 0;padding:1rem 1.25rem;border-radius:.5rem;background:var(--b);color:#fff}
.banner h2{display:flex;align-items:center;gap:.75rem;margin:0;font-size:1.375rem}
.b-operational{--b:#0a6b2d}.b-degraded{--b:#8a5300}.b-down{--b:#b00020}.b-maintenance{--b:#1d4ed8}.b-unknown{--b:#4a4a4a}
.note{display:flex;align-items:center;gap:.6rem;margin:1.5rem 0 0;padding:.75rem 1rem;border:2px solid var(--k);border-radius:.5rem}
.n-info{--k:var(--mnt)}.n-error{--k:var(--down)}
.st{display:inline-flex;align-items:center;gap:.4rem;font-weight:600;white-space:nowrap}
.s-operational{color:var(--ok)}.s-degraded{color:var(--deg)}.s-down{color:var(--down)}.s-maintenance{color:var(--mnt)}.s-unknown{color:var(--mut)}
.cl{list-style:none;margin:0 0 1rem;padding:0;border:1px solid var(--ln);border-radius:.5rem}
.c{padding:1rem;border-top:1px solid var(--ln)}
.c:first-child{border-top:0}
.ch{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem}
.cd{margin:.25rem 0 0;color:var(--mut);font-size:.9rem}
.grp{margin:0 0 1rem;border:1px solid var(--ln);border-radius:.5rem}
.gh{margin:0;padding:.6rem 1rem;border-bottom:1px solid var(--ln);font-size:1.05rem}
.grp .cl{margin:0;border:0}
.upd{margin:0;color:var(--mut);font-size:.875rem}
.bar{display:flex;gap:2px;height:2rem;margin:.75rem 0 .25rem;padding:0;list-style:none}
.bar li{position:relative;flex:1;min-width:0;border-radius:1px;forced-color-adjust:none}
.bar li:hover{outline:2px solid var(--fg)}
.bar li:focus{outline:3px solid var(--mnt);outline-offset:1px}
.bar span{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.bar li:is(:hover,:focus) span{width:auto;height:auto;overflow:visible;clip-path:none;bottom:calc(100% + 6px);left:50%;transform:translateX(-50%);padding:.25rem .5rem;border-radius:.25rem;background:var(--fg);color:var(--bg);font-size:.8rem;z-index:1;pointer-events:none}
.bar li:nth-child(-n+15):is(:hover,:focus) span{left:0;transform:none}
.bar li:nth-last-child(-n+15):is(:hover,:focus) span{left:auto;right:0;transform:none}
.u5{background:var(--u5)}.u4{background:var(--u4)}.u3{background:var(--u3)}.u2{background:var(--u2)}.u1{background:var(--u1)}.u0{background:var(--u0)}.nd{background:var(--nd)}
.ax{display:flex;justify-content:space-between;gap:1rem;margin:0;font-size:.8rem;color:var(--mut)}
.d30{display:none}
.rep,.mnt{margin:0 0 1rem;padding:1rem;border:1px solid var(--ln);border-left:4px solid var(--k);border-radius:.5rem}
.rep{--k:var(--deg)}.done{--k:var(--ln)}.mnt{--k:var(--mnt)}
.meta{margin:.25rem 0 .75rem;color:var(--mut);font-size:.9rem}
.tl{list-style:none;margin:0;padding:0 0 0 1rem;border-left:2px solid var(--ln)}
.tl li{margin:0 0 .75rem}
.tl p{margin:0}
.msg{white-space:pre-line;overflow-wrap:anywhere}
form{display:grid;gap:.5rem;max-width:30rem;margin:1rem 0}
.row{display:flex;gap:.5rem}
input{flex:1;min-width:0;padding:.5rem .75rem;border:2px solid var(--mut);border-radius:.375rem;background:var(--bg);color:var(--fg);font:inherit}
button{justify-self:start;padding:.5rem 1rem;border:2px solid var(--fg);border-radius:.375rem;background:var(--fg);color:var(--bg);font:inherit;font-weight:600;cursor:pointer}
footer{margin-top:3rem;padding-top:1rem;padding-bottom:2rem;border-top:1px solid var(--ln);color:var(--mut);font-size:.875rem}
footer p{margin:.25rem 0}
@media (max-width:40rem){.bar li:nth-child(-n+60){display:none}.d90{display:none}.d30{display:inline}.bar li:nth-child(n+61):nth-child(-n+66):is(:hover,:focus) span{left:0;transform:none}}
@media (forced-colors:active){.banner,.rep,.mnt,.note{border:2px solid CanvasText}}
`
  .replace(/\s*\n\s*/g, '')
  .replace(/\s*([{};,>])\s*/g, '$1');

/**
 * A Content-Security-Policy for every page rendered here: the one inline stylesheet is allowed by
 * its hash; scripts only as files of the page's own origin (the status page's `page.js`, never
 * inline), and the only fetch is of the page by that script ('self'). Forms are not limited to 'self': the
 * subscription form posts to the page's public address, whose origin may be another name of the
 * same service (localhost and 127.0.0.1).
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "script-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Directives a `<meta http-equiv>` policy cannot carry (CSP Level 3): browsers ignore them there, with a warning. */
const HEADER_ONLY_DIRECTIVES = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/**
 * The policy of a page served without our headers (the static export): the same policy, as a
 * `<meta http-equiv>` tag, without what only a header can carry. Framing is then up to the host.
 */
export const STATUS_PAGE_META_CSP = STATUS_PAGE_CSP.split('; ')
  .filter((directive) => !HEADER_ONLY_DIRECTIVES.has(directive.split(' ')[0]!))
  .join('; ');

/** A complete HTML document: the shared head and stylesheet, a skip link, then `body`. */
export function documentOf(parts: { title: string; description?: string; csp?: string; head?: Markup; body: Markup; script?: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${parts.csp ? html`<meta http-equiv="Content-Security-Policy" content="${parts.csp}">` : ''}
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${parts.title}</title>
${parts.description ? html`<meta name="description" content="${parts.description}">` : ''}
<link rel="icon" href="data:,">
${parts.head}
<style>${raw(CSS)}</style>
${parts.script ? html`<script src="${parts.script}" defer></script>` : ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${parts.body}
</body>
</html>
`.toString();
}
