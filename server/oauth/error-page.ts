import { NO_STORE } from './respond.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * An authorization error shown to the person, not sent to the client: before the client and its
 * redirect URI are trusted, redirecting would hand the error (and the person) to anyone.
 */
export function errorPage(error: string, description: string): Response {
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Statusdesk: cannot connect this app</title>
<main>
<h1>This app cannot connect to Statusdesk</h1>
<p>${escape(description)}</p>
<p>Error: <code>${escape(error)}</code>. Nothing was shared with the app. Close this tab and try connecting again from the app; if it keeps failing, the app is not set up for this Statusdesk.</p>
</main></html>`;
  return new Response(html, {
    status: 400,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...NO_STORE,
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      'x-frame-options': 'DENY',
    },
  });
}
