import { html } from 'hono/html';
import type { AlertEvent, PageEvent, PageRef } from '../domain/notifications/events.ts';
import { ALERT_LABEL, alertHeadline, durationWords, REPORT_STATUS_LABEL, resultChange } from '../domain/public-words.ts';

/**
 * What a message says, as a subject, plain text and HTML, from the plain event data. The HTML is
 * a plain, accessible mail: no images, no scripts, no external resources, inline styles only.
 * Every interpolated value goes through hono's `html` tag, which escapes it.
 */

export interface Content {
  subject: string;
  text: string;
  html: string;
}

type Markup = ReturnType<typeof html>;

/** The string of a template with no asynchronous parts (none here ever has one). */
function render(markup: Markup): string {
  if (markup instanceof Promise) throw new Error('a mail template must not contain promises');
  return markup.toString();
}

/** A value fit for a subject line: one line, no control characters. */
const oneLine = (value: string) => value.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();

const pad = (n: number) => String(n).padStart(2, '0');

/** `2025-03-01 14:05:09 UTC`, or the value as given if it is not a time. */
export function formatTime(value: string, seconds = true): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}${seconds ? `:${pad(date.getUTCSeconds())}` : ''}`;
  return `${day} ${time} UTC`;
}

const isWebAddress = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
};

/** A link, or only its text when the address is not http(s). */
const link = (url: string, label: string) => (isWebAddress(url) ? html`<a href="${url}" style="color:#0b57d0">${label}</a>` : html`${label}`);

const STYLE = {
  body: 'margin:0;padding:24px 16px;background:#ffffff;color:#1f1f1f;font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5',
  main: 'max-width:600px;margin:0 auto',
  h1: 'font-size:20px;line-height:1.3;margin:0 0 16px',
  table: 'border-collapse:collapse;margin:0 0 16px',
  th: 'text-align:left;vertical-align:top;padding:4px 16px 4px 0;font-weight:600;white-space:nowrap',
  td: 'vertical-align:top;padding:4px 0',
  message: 'white-space:pre-wrap;margin:0 0 16px;padding:12px 16px;background:#f3f4f6;border-radius:4px',
  footer: 'margin:24px 0 0;padding-top:16px;border-top:1px solid #d0d4da;font-size:14px;color:#4a4f57',
};

/** The whole document around a message's body. */
const layout = (title: string, body: Markup) => html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
</head>
<body style="${STYLE.body}">
<main style="${STYLE.main}">
${body}
</main>
</body>
</html>
`;

/** A table of labelled facts: a data table, so screen readers read each label with its value. */
const facts = (rows: [string, string | Markup][]) => html`<table style="${STYLE.table}">
${rows.map(
  ([label, value]) => html`<tr><th scope="row" style="${STYLE.th}">${label}</th><td style="${STYLE.td}">${value}</td></tr>
`,
)}</table>`;

const textFacts = (rows: [string, string][]) => rows.map(([label, value]) => `${label}: ${value}`).join('\n');

// ---- monitor alerts -----------------------------------------------------------------------------

/**
 * `[Down] api.example.com (monitor 12)`; `[Test] [Down] …` for a test send; a grouped, flapping or
 * reminding alert says so: `[Down] 3 monitors are down: a, b and c`.
 */
export function alertContent(event: AlertEvent): Content {
  const { monitor } = event;
  const plain = !event.group && !event.flapping && !event.remindedSince;
  const about = plain ? `${oneLine(monitor.name)} (monitor ${oneLine(monitor.id)})` : oneLine(alertHeadline(event));
  const subject = `${event.test ? '[Test] ' : ''}[${ALERT_LABEL[event.kind]}] ${about}`;
  const headline = alertHeadline(event);
  const rows = alertFacts(event);
  const testNote = 'This is a test alert sent on request; the monitor did not change.';
  const text = [
    ...(event.test ? [testNote, ''] : []),
    `${headline}.`,
    '',
    textFacts(rows),
    ...(event.link ? ['', `Open in Statusdesk: ${event.link}`] : []),
    '',
    'Sent by Statusdesk.',
    '',
  ].join('\n');
  const body = html`${event.test ? html`<p style="margin:0 0 16px;font-weight:600">${testNote}</p>` : ''}
<h1 style="${STYLE.h1}">${headline}</h1>
${facts(rows)}
${event.link ? html`<p style="margin:0 0 16px">${link(event.link, 'Open in Statusdesk')}</p>` : ''}
<p style="${STYLE.footer}">Sent by Statusdesk.</p>`;
  return { subject, text, html: render(layout(subject, body)) };
}

// ---- alert facts and escapes the chat and paging channels share ----------------------------------------

/**
 * An alert's facts as labelled rows of plain text, for a product to format and escape its own
 * way: the monitor, what happened, how the result changed, where it failed and for how long
 * (when the event knows), when, and the workspace. The dashboard's link is the event's `link`.
 */
export function alertFacts(event: AlertEvent): [label: string, value: string][] {
  const { monitor } = event;
  return [
    ['Monitor', `${monitor.name} (monitor ${monitor.id})`],
    ['Target', `${monitor.type} ${monitor.target}`],
    ['What happened', event.message],
    ['Result', resultChange(event)],
    ...(event.regions?.length ? [['Regions', event.regions.join(', ')] as [string, string]] : []),
    ...(event.downForMs !== undefined ? [['Down for', durationWords(event.downForMs)] as [string, string]] : []),
    ['When', formatTime(event.at)],
    ['Workspace', event.workspace.name],
  ];
}

/** Text in HTML: `&`, `<`, `>` and quotes become entities, so no name or message can form markup. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Text in CommonMark: a backslash before each ASCII punctuation character makes it literal (no emphasis, link, HTML or list). */
export const escapeMarkdown = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, '\\$&');

// ---- page subscribers ---------------------------------------------------------------------------

const components = (names: string[]) => (names.length > 0 ? names.join(', ') : 'none listed');

function subscriberFooter(event: PageEvent, unsubscribeUrl: string): { text: string; html: Markup } {
  const why = `You receive this because you subscribed to updates of ${event.page.title}.`;
  return {
    text: [`Status page: ${event.page.url}`, '', why, `Unsubscribe: ${unsubscribeUrl}`].join('\n'),
    html: html`<p style="margin:0 0 16px">${link(event.page.url, `View the status page of ${event.page.title}`)}</p>
<p style="${STYLE.footer}">${why} ${link(unsubscribeUrl, 'Unsubscribe')}.</p>`,
  };
}

/**
 * `[Page title] Investigating: Title`, `[Page title] Resolved: Title`,
 * `[Page title] Scheduled maintenance: Title (from … to …)`.
 */
export function pageEventContent(event: PageEvent, links: { unsubscribeUrl: string }): Content {
  const footer = subscriberFooter(event, links.unsubscribeUrl);
  const prefix = `[${oneLine(event.page.title)}]`;
  if (event.kind === 'maintenance.scheduled') {
    const { maintenance } = event;
    const window = `from ${formatTime(maintenance.from, false)} to ${formatTime(maintenance.to, false)}`;
    const subject = `${prefix} Scheduled maintenance: ${oneLine(maintenance.title)} (${window})`;
    const headline = `Scheduled maintenance: ${maintenance.title}`;
    const rows: [string, string][] = [
      ['When', window],
      ['Affected components', components(maintenance.components)],
    ];
    const text = [headline, '', textFacts(rows), '', maintenance.message, '', footer.text, ''].join('\n');
    const body = html`<h1 style="${STYLE.h1}">${headline}</h1>
${facts(rows)}
<div style="${STYLE.message}">${maintenance.message}</div>
${footer.html}`;
    return { subject, text, html: render(layout(subject, body)) };
  }
  const { report, update } = event;
  const status = event.kind === 'report.resolved' ? REPORT_STATUS_LABEL.resolved : REPORT_STATUS_LABEL[update.status];
  const subject = `${prefix} ${status}: ${oneLine(report.title)}`;
  const headline =
    event.kind === 'report.created'
      ? `New incident: ${report.title}`
      : event.kind === 'report.resolved'
        ? `Resolved: ${report.title}`
        : `Update: ${report.title}`;
  const rows: [string, string][] = [
    ['Status', status],
    ['Affected components', components(report.components)],
    ['Posted', formatTime(update.at)],
  ];
  const text = [headline, '', textFacts(rows), '', update.message, '', footer.text, ''].join('\n');
  const body = html`<h1 style="${STYLE.h1}">${headline}</h1>
${facts(rows)}
<div style="${STYLE.message}">${update.message}</div>
${footer.html}`;
  return { subject, text, html: render(layout(subject, body)) };
}

/** The double opt-in mail: nothing is sent to the address until the link is opened. */
export function confirmationContent(page: PageRef, confirmUrl: string): Content {
  const subject = `Confirm your subscription to ${oneLine(page.title)}`;
  const asked = `Someone, probably you, asked to receive updates of the status page ${page.title} (${page.url}) at this address.`;
  const ignore = 'If you did not ask for this, ignore this mail: nothing happens, and you will not receive anything else.';
  const text = [asked, '', 'To confirm, open this link:', confirmUrl, '', ignore, ''].join('\n');
  const body = html`<h1 style="${STYLE.h1}">Confirm your subscription to ${page.title}</h1>
<p style="margin:0 0 16px">Someone, probably you, asked to receive updates of the status page ${link(page.url, page.title)} at this address.</p>
<p style="margin:0 0 16px">${link(confirmUrl, 'Confirm the subscription')}</p>
<p style="margin:0 0 16px;font-size:14px">If the link does not open, copy this address into your browser:<br>${confirmUrl}</p>
<p style="${STYLE.footer}">${ignore}</p>`;
  return { subject, text, html: render(layout(subject, body)) };
}
