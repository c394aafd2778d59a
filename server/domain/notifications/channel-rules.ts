import type { z } from 'zod';
import type { ChannelKind } from '../../db/schema.ts';

/**
 * Notification channels (SPEC 2.10): where monitor alerts go. Each kind's fields are split into
 * settings, returned as they are, and credentials, sealed at rest and returned only masked. A
 * Slack or Discord webhook URL is itself a credential: whoever has it can post.
 */

export type { ChannelKind };

/**
 * What the channel service knows of each kind: the kinds, and each kind's fields split into
 * settings and credentials, with those that are addresses. Each kind declares them in its one
 * file (delivery/channels/), which also sends its alerts; services.ts passes them in.
 */
export interface ChannelKindRules {
  /** Every kind, in the order messages list them. */
  kinds: readonly ChannelKind[];
  /** Loads what a kind's rules need (the custom webhook's template engine); awaited before rulesOf's schemas parse. */
  load?(kind: ChannelKind): Promise<void>;
  /** A kind's settings and credentials (strict objects of its fields) and the fields that are addresses the service connects to. */
  rulesOf(kind: ChannelKind): { settings: z.ZodObject; credentials: z.ZodObject; addresses: ReadonlySet<string> };
}

/** A channel as delivery needs it: kind, settings and opened credentials. */
export type ChannelTarget = { kind: ChannelKind; settings: Record<string, unknown>; credentials: Record<string, unknown> };

/**
 * A credential as the API shows it: a URL keeps its scheme and the last two labels of its host
 * (a subdomain can itself be the secret), anything else is hidden with its length; enough to
 * tell two channels apart, never enough to use one.
 */
export function maskCredential(value: unknown): unknown {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      const labels = url.hostname.split('.');
      const host = labels.length > 2 && !/^[\d.]+$/.test(url.hostname) ? `…${labels.slice(-2).join('.')}` : url.hostname;
      if (url.protocol.startsWith('http') || url.protocol.startsWith('smtp')) return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}/…`;
    } catch {
      // not a URL
    }
    return '••••••••';
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).map((k) => [k, '••••••••']));
  return value;
}
