import type { z } from 'zod';
import { type DeclaredField, defaultOf, type FieldFlag, type FieldWords, isRequired } from '../../domain/declared-fields.ts';
import type { DestinationPolicy } from '../../domain/destinations.ts';
import { builtOnFirstUse } from '../../domain/validation.ts';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import type { Mailer } from '../mail.ts';

/**
 * A notification channel kind: one file of this folder, listed in registry.ts. It declares its
 * fields once (which are credentials, which are addresses; their flags, form words and rows in
 * the reference) and sends an alert its own way. The channel service validates, seals and masks
 * by these fields (domain/notifications/channels.ts, through the ChannelKindRules port); the
 * CLI's flags, the wire codec (rpc/channel-config.ts), the dashboard's hints (contract/) and
 * docs/reference/notifications.md's tables are derived from them.
 */

/** What sending needs from outside the channel. */
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

export interface ChannelField<S extends z.ZodType = z.ZodType> extends DeclaredField<S> {
  /** `--name` of `statusdesk channels add`; `default` says in help what leaving it out means. */
  flag: FieldFlag & { default?: string };
  /** A credential: sealed at rest, only ever shown masked. Otherwise a setting, shown as stored. */
  credential?: true;
  /** An address the service connects to: the destination policy judges it when it is written. */
  address?: true;
  /** Its name in the words of the CLI and MCP, where that is not the field's (a webhook's `url` is `webhookUrl`). */
  word?: string;
}

export type ChannelFields = Record<string, ChannelField>;

type Values<F extends ChannelFields> = { [K in keyof F]: z.output<F[K]['schema']> };

export interface ChannelSpec<K extends string = string, F extends ChannelFields = ChannelFields> {
  kind: K;
  /** As people write it: `Slack`. */
  title: string;
  /** Its choice in the dashboard's form: a label, and where its alerts go. */
  ui: FieldWords;
  /** The kind's fields, built with their first use. */
  fields: () => F;
  /** Where it sends, in a list of channels (`statusdesk channels list`), from the channel in the words of the CLI. */
  target?: (words: Record<string, any>) => string | undefined;
  /** What it sends, in Markdown: its row of the reference's table of requests. */
  request: string;
  /** Sends one alert; one attempt: a failure rejects, and the caller records and reports it. */
  send(config: Values<F>, event: AlertEvent, deps: AlertDeliveryDeps): Promise<void> | void;
  /** A whole valid configuration, as an example (tests). */
  example: { [P in keyof F]?: z.input<F[P]['schema']> };
  /**
   * What its rules need loaded first, where that is too big to load with the service (the custom
   * webhook's template engine): the channel service awaits it before it checks the kind's fields.
   */
  load?: () => Promise<unknown>;
  /** Rules across its settings (a template that must render JSON for a JSON content type); an issue's path names the field. */
  checkSettings?: (settings: Partial<Values<F>>, ctx: z.RefinementCtx) => void;
}

/** Declares a channel kind; its fields are built once, with their first use. */
export function defineChannel<K extends string, F extends ChannelFields>(spec: ChannelSpec<K, F>): ChannelSpec<K, F> {
  return { ...spec, fields: builtOnFirstUse(spec.fields) };
}

export const truncate = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);

/**
 * The fields of a kind in the reference's words: `` `to` (required): 1 to 20 addresses. `` each,
 * `none` without any.
 */
export function fieldsCell(fields: [string, ChannelField][]): string {
  if (fields.length === 0) return 'none';
  return fields
    .map(([name, field]) => {
      const value = defaultOf(field.schema);
      const qualifier = isRequired(field.schema)
        ? 'required'
        : (field.docs.default ?? (value === undefined ? undefined : `default \`${typeof value === 'string' ? value : JSON.stringify(value)}\``));
      return `\`${name}\`${qualifier ? ` (${qualifier})` : ''}: ${field.docs.rules}`;
    })
    .join(' ');
}
