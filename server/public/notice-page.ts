import { documentOf } from './html-document.ts';
import { html, type Markup } from './markup.ts';

/** The small pages of the email subscription and the dashboard's sign-in, in the status page's style. */

export interface NoticeOptions {
  /** The status page's title: shown above the heading and in the document title. */
  title: string;
  heading: string;
  /** Text, or markup made with `html` (its values escaped) where a word needs `<code>`. */
  message: string | Markup;
  /** The status page's address, for a way back. */
  pageUrl?: string;
  /** A POST form with one button, e.g. to confirm an unsubscription. */
  form?: { action: string; button: string; hidden?: Record<string, string> };
}

/** A small page of the subscription flow ("Check your inbox", "Unsubscribe?"), styled as the status page. */
export function renderNoticePage(options: NoticeOptions): string {
  const { title, heading, message, pageUrl, form } = options;
  const body = html`<header class="w"><p class="site">${pageUrl ? html`<a href="${pageUrl}">${title}</a>` : title}</p></header>
<main id="main" class="w">
<h1>${heading}</h1>
<p class="msg">${message}</p>
${
  form &&
  html`<form method="post" action="${form.action}">
${Object.entries(form.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">${form.button}</button>
</form>`
}
${pageUrl && html`<p><a href="${pageUrl}">Back to the status page</a></p>`}
</main>
<footer class="w"><p>Powered by Statusdesk</p></footer>`;
  return documentOf({
    title: heading === title ? title : `${heading} · ${title}`,
    head: html`<meta name="robots" content="noindex">`,
    body,
  });
}
