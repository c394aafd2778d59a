import { createHash } from 'node:crypto';
import type { PublicPage } from '../domain/pages/public-view.ts';
import { html, type Markup, raw } from './markup.ts';

/**
 * The owner's branding on the public page: a band above the heading with the logo and the link
 * back to the owner's site, in the accent colour. The colours differ per page, so the band's
 * stylesheet is a block of its own, allowed by its own hash: the page's policy still runs
 * nothing and loads nothing (the logo is a `data:` image, which the policy already allows).
 */
export interface Branding {
  /** The band, placed before the page's heading; empty without branding. */
  band: Markup | '';
  /** The band's stylesheet, for the document's head; empty without branding. */
  style: Markup | '';
  /** `policy` (a Content-Security-Policy) allowing the band's stylesheet too. */
  csp(policy: string): string;
}

const NONE: Branding = { band: '', style: '', csp: (policy) => policy };

/** The host name a link shows: `example.com` for https://www.example.com/about. */
function shownHost(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

export function brandingOf(page: PublicPage): Branding {
  const branding = page.branding;
  if (!branding || (branding.accentColor === null && branding.logo === null && branding.websiteUrl === null)) return NONE;
  // The colours are `#rrggbb` (checked when stored) and black or white: nothing else reaches the stylesheet.
  const colours =
    branding.accentColor !== null && branding.textColor !== null
      ? `.brand{background:${branding.accentColor};color:${branding.textColor}}.brand a{color:${branding.textColor}}`
      : '.brand{border-bottom:1px solid var(--ln)}';
  const css = `.brand{padding:.75rem 0}.brand-in{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;min-height:2.5rem}.brand img{display:block;max-height:2.5rem;max-width:12rem;width:auto;height:auto}.brand a{font-weight:600;text-underline-offset:.2em}.brand a:focus-visible{outline-color:currentColor}${colours}`;
  const hash = createHash('sha256').update(css).digest('base64');
  const link = branding.websiteUrl;
  return {
    band: html`<div class="brand"><div class="w brand-in">${
      // Decorative: the page's title follows at once, as its heading.
      branding.logo && html`<img src="${branding.logo}" alt="">`
    }${link && html`<a href="${link}" rel="noopener">Back to ${shownHost(link)}</a>`}</div></div>`,
    style: html`<style>${raw(css)}</style>`,
    csp: (policy) => policy.replace(/(^|; )style-src ([^;]*)/, `$1style-src $2 'sha256-${hash}'`),
  };
}
