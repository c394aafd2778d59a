import { isIP } from 'node:net';
import { z } from 'zod';
import { ACCENT_COLOR, textColorOn } from '../../../contract/contrast.ts';
import { PAGE_LIMITS } from '../../../contract/limits.ts';
import { builtOnFirstUse, expected, httpUrl } from '../validation.ts';
import type { PublicBranding } from './public-view.ts';

/**
 * A status page's branding and its own address: the rules of what may be stored, and what the
 * public page derives from it (the logo's type, the text colour on the accent colour).
 */

const { logoBytes, websiteUrlLength, customDomainLength } = PAGE_LIMITS;

/** The image types a logo may be, by the first bytes of the file. SVG is not one: it can carry scripts. */
const LOGO_TYPES: { type: string; matches(bytes: Uint8Array): boolean }[] = [
  { type: 'image/png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', matches: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) },
  // RIFF....WEBP
  { type: 'image/webp', matches: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

/** The type of a logo's bytes, or undefined when it is none of the allowed ones. */
export function logoTypeOf(bytes: Uint8Array): string | undefined {
  return LOGO_TYPES.find((t) => t.matches(bytes))?.type;
}

/** The logo as a `data:` address the public page embeds: no second request, nothing fetched from elsewhere. */
export function logoDataUrl(bytes: Uint8Array | null): string | null {
  if (!bytes || bytes.length === 0) return null;
  const type = logoTypeOf(bytes);
  return type ? `data:${type};base64,${Buffer.from(bytes).toString('base64')}` : null;
}

/**
 * A host name as a page's custom domain: a DNS name of two labels or more, lower-case letters,
 * digits and hyphens (an internationalized name in its xn-- form), no IP address, no port, no
 * trailing dot.
 */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const domainRule = 'must be a DNS name such as status.example.com: letters, digits, hyphens and dots, no scheme, port, path or IP address';

function domainProblem(value: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return `must be a host name only, such as status.example.com: leave out ${value.split('//')[0]}//`;
  if (value.includes('/')) return 'must be a host name only, such as status.example.com: no path';
  if (value.startsWith('[') || isIP(value) !== 0) return 'must be a DNS name such as status.example.com, not an IP address';
  if (/:\d*$/.test(value)) return "must be a host name without a port, such as status.example.com: the port is the proxy's";
  if (value.length > customDomainLength) return `must be at most ${customDomainLength} characters`;
  const labels = value.split('.');
  if (labels.length < 2) return 'must be a DNS name of two labels or more, such as status.example.com (a single name such as localhost is not one)';
  if (!labels.every((label) => LABEL.test(label))) return domainRule;
  // A name ending in a number is read as an IPv4 address by browsers (WHATWG URL).
  if (/^\d+$/.test(labels.at(-1)!)) return 'must be a DNS name such as status.example.com, not an IP address (its last label is a number)';
  return undefined;
}

/** Whether `value` is a valid custom domain (already lower-case). */
export function isCustomDomain(value: string): boolean {
  return domainProblem(value) === undefined;
}

/** What a page's branding fields accept: null or '' clears each. */
export const brandingFields = builtOnFirstUse(() => {
  const cleared = (value: unknown) => (value === '' ? null : value);
  return {
    accentColor: z.preprocess(
      cleared,
      z
        .string(expected('a colour as #rrggbb'))
        .trim()
        .regex(ACCENT_COLOR, 'must be a colour as #rrggbb, e.g. #1d4ed8 (six hexadecimal digits)')
        .transform((v) => v.toLowerCase())
        .nullable(),
    ),
    websiteUrl: z.preprocess(
      cleared,
      httpUrl('the link back to your site')
        .pipe(z.string().max(websiteUrlLength, `must be at most ${websiteUrlLength} characters`))
        .nullable(),
    ),
    customDomain: z.preprocess(
      (value) => (typeof value === 'string' ? cleared(value.trim().toLowerCase()) : value),
      z
        .string(expected('a host name such as status.example.com'))
        .superRefine((value, ctx) => {
          const problem = domainProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .nullable(),
    ),
    logo: z.preprocess(
      (value) => (value instanceof Uint8Array && value.length === 0 ? null : value),
      z
        .instanceof(Uint8Array, { error: 'must be the bytes of a PNG, JPEG, WebP or GIF image' })
        .refine((bytes) => bytes.length <= logoBytes, `must be at most ${logoBytes / 1024} KB`)
        .refine((bytes) => logoTypeOf(bytes) !== undefined, 'must be a PNG, JPEG, WebP or GIF image (SVG is not accepted: it can carry scripts)')
        .nullable(),
    ),
  };
});

/** The branding part of a page's public view, from its row. */
export function publicBrandingOf(row: { accent_color: string | null; website_url: string | null; logo: Uint8Array | null }): { branding: PublicBranding } {
  return {
    branding: {
      accentColor: row.accent_color,
      textColor: row.accent_color === null ? null : textColorOn(row.accent_color),
      logo: logoDataUrl(row.logo),
      websiteUrl: row.website_url,
    },
  };
}
