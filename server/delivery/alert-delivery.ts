import type { DestinationPolicy } from '../domain/destinations.ts';
import type { ChannelTarget } from '../domain/notifications/channel-rules.ts';
import type { AlertEvent } from '../domain/notifications/events.ts';
import { ALERT_SENTENCE, resultChange } from '../domain/public-words.ts';
import { postJson } from './http-post.ts';
import type { Mailer } from './mail.ts';
import { alertContent } from './templates.ts';

/**
 * Sends one monitor alert to one channel, in the channel's own format. One attempt: a failure
 * rejects, and the caller records and reports it.
 */

export interface AlertDeliveryDeps {
  /** The mailer for an SMTP URL; undefined is the service's own relay (this throws when there is none). */
  mailer(smtpUrl: string | undefined): Mailer;
  /** Sender of email channels without their own `from`. */
  mailFrom: string;
  /** Hands the alert to the desktop app, which shows it natively; throws when no app took it. */
  desktop(event: AlertEvent): void;
  /** Timeout of each HTTP request; default 10 s. */
  timeoutMs?: number;
  /** Where webhooks may be reached; absent: anywhere. */
  destinations?: DestinationPolicy;
}

/** Embed colours: red, green, amber. */
export const DISCORD_COLOR: Record<AlertEvent['kind'], number> = { down: 0xd93025, recovered: 0x1e8e3e, degraded: 0xf29900 };
const SLACK_ICON: Record<AlertEvent['kind'], string> = { down: ':red_circle:', recovered: ':large_green_circle:', degraded: ':large_yellow_circle:' };
/** ntfy tags that are emoji short codes show as the emoji. */
const NTFY_TAG: Record<AlertEvent['kind'], string> = { down: 'rotating_light', recovered: 'white_check_mark', degraded: 'warning' };
/** ntfy priorities (1 min … 5 max) when the channel sets none. */
const NTFY_PRIORITY: Record<AlertEvent['kind'], number> = { down: 4, recovered: 3, degraded: 3 };

/** Slack mrkdwn: &, < and > are control characters (links, mentions) and must be escaped. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Discord markdown: a backslash makes each formatting character literal. */
const discordEscape = (text: string) => text.replace(/[\\*_~`|>[\]]/g, '\\$&');

const truncate = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);

function slackMessage(event: AlertEvent, subject: string) {
  const { monitor } = event;
  const lines = [
    `${SLACK_ICON[event.kind]} *${slackEscape(`${monitor.name} ${ALERT_SENTENCE[event.kind]}`)}*${event.test ? ' (test)' : ''}`,
    `*What happened:* ${slackEscape(event.message)}`,
    `*Monitor:* ${slackEscape(`${monitor.name} (monitor ${monitor.id}), ${monitor.type} ${monitor.target}`)}`,
    `*Result:* ${slackEscape(resultChange(event))}`,
    `*When:* ${slackEscape(event.at)}`,
  ];
  return {
    text: slackEscape(`${subject}: ${event.message}`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(lines.join('\n'), 3000) } }],
  };
}

function discordMessage(event: AlertEvent, subject: string) {
  const { monitor } = event;
  const description = [
    discordEscape(event.message),
    '',
    `**Type:** ${discordEscape(monitor.type)}`,
    `**Target:** ${discordEscape(monitor.target)}`,
    `**Result:** ${discordEscape(resultChange(event))}`,
    `**Workspace:** ${discordEscape(event.workspace.name)}`,
  ].join('\n');
  return {
    embeds: [{ title: truncate(subject, 256), description: truncate(description, 4096), color: DISCORD_COLOR[event.kind], timestamp: event.at }],
    // Nothing in an alert may ping anyone.
    allowed_mentions: { parse: [] },
  };
}

function ntfyMessage(event: AlertEvent, subject: string, topic: string, priority: number | undefined) {
  const { monitor } = event;
  return {
    topic,
    title: subject,
    message: [event.message, `${monitor.type} ${monitor.target}`, resultChange(event), event.at].join('\n'),
    priority: priority ?? NTFY_PRIORITY[event.kind],
    tags: event.test ? [NTFY_TAG[event.kind], 'test'] : [NTFY_TAG[event.kind]],
  };
}

export async function deliverAlert(target: ChannelTarget, event: AlertEvent, deps: AlertDeliveryDeps): Promise<void> {
  const { timeoutMs, destinations } = deps;
  switch (target.kind) {
    case 'webhook': {
      const name = `monitor.${event.kind}`;
      const { url, secret, headers } = target.credentials;
      return postJson(url, { event: name, ...event }, { secret, headers, event: name, timeoutMs, destinations });
    }
    case 'slack':
      return postJson(target.credentials.webhookUrl, slackMessage(event, alertContent(event).subject), { timeoutMs, destinations });
    case 'discord':
      return postJson(target.credentials.webhookUrl, discordMessage(event, alertContent(event).subject), { timeoutMs, destinations });
    case 'email': {
      const mailer = deps.mailer(target.credentials.smtpUrl);
      return mailer.send({ from: target.settings.from ?? deps.mailFrom, to: target.settings.to, ...alertContent(event) });
    }
    case 'ntfy': {
      const { server, priority } = target.settings;
      const { topic, token } = target.credentials;
      const body = ntfyMessage(event, alertContent(event).subject, topic, priority);
      return postJson(server, body, { headers: token ? { authorization: `Bearer ${token}` } : undefined, timeoutMs, destinations });
    }
    case 'desktop':
      deps.desktop(event);
      return;
    default: {
      const unknown: never = target;
      throw new Error(`unknown channel kind ${(unknown as { kind: string }).kind}`);
    }
  }
}
