import type { AlertEvent } from '../../domain/notifications/events.ts';
import { httpUrl } from '../../domain/validation.ts';
import { type HttpAnswer, jsonOf, serviceWords } from '../http-post.ts';
import { type ChannelField, truncate } from './channel.ts';

/**
 * What the kinds that call a product's own HTTP API share (PagerDuty, Opsgenie, Pushover, Gotify,
 * Home Assistant, Twilio, the custom webhook): the optional base URL of a product with a fixed
 * public API, the product's own words when it refuses, and the key of a monitor's open alert in a
 * product that resolves alerts itself.
 */

/** An http(s) address that API paths are added to: it has no query or fragment. */
export const baseUrl = (what: string) =>
  httpUrl(what).refine(
    (value) => URL.canParse(value) && !new URL(value).search && !new URL(value).hash,
    'must have no query (?…) or fragment (#…): API paths are added to it',
  );

/**
 * The `apiBaseUrl` field of a product whose API has a public address: `publicUrl` unless the
 * account lives elsewhere (an EU region) or a proxy stands between.
 */
export function apiBaseUrlField(publicUrl: string, elsewhere: string) {
  return {
    schema: baseUrl(`the API's base URL, by default ${publicUrl}`).default(publicUrl),
    address: true as const,
    flag: { name: 'api-base-url', valueName: 'URL', description: "the product's API address", read: 'text', default: 'the public API' },
    ui: { label: 'API base URL', hint: `${elsewhere.charAt(0).toUpperCase()}${elsewhere.slice(1)}.`, placeholder: publicUrl, input: 'url' },
    docs: { rules: `the API's address; ${elsewhere.replace(/https:\/\/\S+/g, (url) => `\`${url}\``)}.` },
  } satisfies ChannelField;
}

/** The address of `path` (which starts with `/`) under a base URL that may carry a path of its own. */
export const apiUrl = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/**
 * The error of a refusal in the product's words: a 4xx is `<Product> refused: <its reason>`,
 * anything else `<Product> answered <status>`, with its reason when it gave one. `reasonOf` reads
 * the product's error body; `secrets` are the channel's credentials, never repeated in an error
 * (errors are stored and shown) even when the product echoes them.
 */
export function refusalOf(product: string, reasonOf: (body: any, answer: HttpAnswer) => string | undefined, secrets: (string | undefined)[] = []) {
  return (answer: HttpAnswer): string => {
    let reason = reasonOf(jsonOf(answer), answer);
    for (const secret of secrets) if (secret && reason) reason = reason.split(secret).join('••••••••');
    const words = reason ? serviceWords(reason) : '';
    if (answer.status >= 400 && answer.status < 500) return `${product} refused: ${words || `HTTP ${answer.status}`}`;
    return `${product} answered ${answer.status}${words ? `: ${words}` : ''}`;
  };
}

/** A text answer's words, for a product whose errors are not JSON (Home Assistant's `401: Unauthorized`). */
export const plainReason = (answer: HttpAnswer) => (/^\s*</.test(answer.body) ? undefined : answer.body.trim() || undefined);

/**
 * The key of a monitor's alert in a product that keeps it open until told it resolved (PagerDuty's
 * `dedup_key`, Opsgenie's `alias`): the same for every alert of the monitor, so a recovery
 * resolves what its outage opened and a degraded monitor that goes down updates the same alert.
 * Tool drift is an alert of its own; a test send uses one key per workspace, apart from every
 * monitor's.
 */
export function openAlertKey(event: AlertEvent): string {
  const base = `statusdesk-${event.workspace.slug}`;
  if (event.test) return `${base}-test`;
  return `${base}-monitor-${event.monitor.id}${event.kind === 'tool_drift' ? '-tools' : ''}`;
}

/** An object's string values at most `limit` characters each, for products that bound them. */
export const boundedValues = (values: Record<string, string>, limit: number) =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, truncate(value, limit)]));

/**
 * A grouped alert (several monitors that changed the same way within a minute) as one alert per
 * monitor, for the products that keep an alert open per key: each monitor's alert is opened,
 * and later resolved, by its own key, and the product groups them its own way.
 */
export function perMonitor(event: AlertEvent): AlertEvent[] {
  if (!event.group || event.group.length < 2) return [event];
  return event.group.map(({ message, ...monitor }) => ({ ...event, monitor, message, group: undefined }));
}

/**
 * Waits for every send, each going on whatever the others do; rejects with the error of the only
 * one, or `2 of 3 <noun> failed: <label>: <error>; …` naming each that failed.
 */
export async function allSent(noun: string, sends: [label: string, sent: Promise<void>][]): Promise<void> {
  const results = await Promise.allSettled(sends.map(([, sent]) => sent));
  const failed = results.flatMap((result, i) => (result.status === 'rejected' ? [`${sends[i]![0]}: ${(result.reason as Error).message}`] : []));
  if (failed.length === 0) return;
  if (sends.length === 1) throw (results[0] as PromiseRejectedResult).reason;
  throw new Error(`${failed.length} of ${sends.length} ${noun} failed: ${failed.join('; ')}`);
}
