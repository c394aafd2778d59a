import { html as honoHtml, raw } from 'hono/html';

/**
 * The templating of the public pages and the feed: hono's `html` tag, as the mails use it, with
 * what XML and small pages need on top. Interpolated text loses the control characters XML 1.0
 * forbids (HTML calls them parse errors) and its lone surrogates, which UTF-8 cannot encode; the
 * line breaks and indentation between tags in a template are taken out, so templates stay
 * readable and the output stays small.
 */

export type Markup = ReturnType<typeof raw>;
export type Fragment = Markup | string | number | null | undefined | false | readonly Fragment[];

export { raw };

const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/g;
const HAS_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/;
/** The characters markup escapes. */
const SPECIAL = /[&<>"']/;

/** Text as XML may carry it: forbidden control characters dropped, lone surrogates as U+FFFD. */
function xmlText(value: string): string {
  if (!HAS_FORBIDDEN.test(value) && value.isWellFormed()) return value;
  return value.toWellFormed().replace(FORBIDDEN, '');
}

function xmlFragment(value: Fragment): Fragment {
  if (typeof value === 'string') return xmlText(value);
  if (Array.isArray(value)) return value.map(xmlFragment);
  return value;
}

/** The literal parts of each template, compacted once per call site. */
const compacted = new WeakMap<TemplateStringsArray, TemplateStringsArray>();

function compact(strings: TemplateStringsArray): TemplateStringsArray {
  let parts = compacted.get(strings);
  if (!parts) {
    const text = strings.map((s) =>
      s
        .replace(/>\s*\n\s*/g, '>')
        .replace(/\s*\n\s*</g, '<')
        .replace(/\s*\n\s*/g, ' '),
    );
    parts = Object.assign(text, { raw: text });
    compacted.set(strings, parts);
  }
  return parts;
}

/** Escapes every interpolated string; markup (from this tag or `raw`) goes in unchanged. */
export function html(strings: TemplateStringsArray, ...values: Fragment[]): Markup {
  const markup = honoHtml(compact(strings), ...values.map(xmlFragment));
  if (markup instanceof Promise) throw new Error('a public template must not contain promises');
  return markup;
}

/** Text escaped for HTML and XML content and quoted attribute values (most has nothing to escape). */
export function escape(value: string): string {
  const text = xmlText(value);
  return SPECIAL.test(text) ? html`${text}`.toString() : text;
}
