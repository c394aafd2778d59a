import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { alertFacts, escapeMarkdown } from '../templates.ts';
import { truncate } from './channel.ts';
import { DISCORD_COLOR } from './discord.ts';

/**
 * What the chat channels (Telegram, Teams, Google Chat, Mattermost, Rocket.Chat, Matrix, Zulip)
 * share: the alert's words cut to a chat message's size, its sign and colour, and the escapes of
 * Markdown products. Each kind formats these in its own markup; the words themselves are
 * public-words.ts's and templates.ts's.
 */

/** The sign before the headline. */
export const ALERT_EMOJI: Record<AlertEvent['kind'], string> = { down: '🔴', recovered: '✅', degraded: '🟡', tool_drift: '🔍' };

/** The kind's colour as `#rrggbb`: the red, green, amber and purple of Discord's embeds. */
export const alertColor = (kind: AlertEvent['kind']) => `#${DISCORD_COLOR[kind].toString(16).padStart(6, '0')}`;

/**
 * How long a fact, what happened and the headline may be. Every product's limit (Telegram's 4,096
 * characters the smallest) holds all of them together; text is cut before it is escaped, so no
 * entity or escape is ever cut in half.
 */
const LIMITS = { fact: 300, message: 1500, headline: 500 };

/** `🔴 api.example.com is down`, `(test)` after it for a test send: plain text, to escape. */
export const chatHeadline = (event: AlertEvent) => `${truncate(alertHeadline(event), LIMITS.headline)}${event.test ? ' (test)' : ''}`;

/** The alert's facts, labelled, as plain text to escape; what happened may be longer than the rest. */
export const chatFacts = (event: AlertEvent): [label: string, value: string][] =>
  alertFacts(event).map(([label, value]) => [label, truncate(value, label === 'What happened' ? LIMITS.message : LIMITS.fact)]);

/**
 * Text in the Markdown of Mattermost, Rocket.Chat and Zulip: escaped as CommonMark, and every `@`
 * followed by a zero-width space, so no monitor name or message can mention `@channel`, `@all`,
 * `@**all**` or anyone (their mention syntax needs the `@` right before the name).
 */
export const chatMarkdown = (text: string) => escapeMarkdown(text).replace(/@/g, '@\u200b');

/** An http(s) address, or undefined: a dashboard link is shown only when it is one. */
export function webAddress(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A Markdown link to an http(s) address; parentheses, spaces and angle brackets are percent-encoded, so the address cannot end the link. */
export const markdownLink = (text: string, url: string) => `[${text}](${url.replace(/[()\s<>]/g, (c) => encodeURIComponent(c))})`;

/** The words of a button or link to the monitor in the dashboard. */
export const DASHBOARD_LINK_TEXT = 'Open in Statusdesk';

/** The facts as Markdown lines, `**Label:** value`, each value escaped by `escape`. */
export const markdownFacts = (event: AlertEvent, escape: (text: string) => string) =>
  chatFacts(event).map(([label, value]) => `**${label}:** ${escape(value)}`);
