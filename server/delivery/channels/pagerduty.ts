import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertFacts } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { allSent, apiBaseUrlField, apiUrl, boundedValues, openAlertKey, perMonitor, refusalOf } from './service-api.ts';

const PUBLIC_API = 'https://events.pagerduty.com';
/** An Events API v2 integration key ("routing key"): 32 letters and digits. */
const ROUTING_KEY = /^[A-Za-z0-9]{32}$/;
const DOWN_SEVERITIES = ['critical', 'error'] as const;

/** PagerDuty's severity of each alert that opens or updates an alert (a recovery resolves it). */
const severityOf = (event: AlertEvent, downSeverity: (typeof DOWN_SEVERITIES)[number]) => (event.kind === 'down' ? downSeverity : 'warning');

/** PagerDuty's errors: `{"status": "invalid event", "message": "Event object is invalid", "errors": ["..."]}`. */
function pagerDutyReason(body: any): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const errors = Array.isArray(body.errors) ? body.errors.filter((e: unknown) => typeof e === 'string') : [];
  const message = typeof body.message === 'string' ? body.message : undefined;
  return [message, errors.join('; ')].filter(Boolean).join(': ') || undefined;
}

/**
 * An Events API v2 event: a trigger with the alert's facts, or, for a recovery, a resolve of the
 * same dedup key. Field limits are PagerDuty's: `summary` 1,024 characters, `source` 255.
 */
function pagerDutyEvent(routingKey: string, downSeverity: (typeof DOWN_SEVERITIES)[number], event: AlertEvent) {
  const dedupKey = openAlertKey(event);
  if (event.kind === 'recovered') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  const { monitor } = event;
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: truncate(`${event.test ? '[Test] ' : ''}${alertHeadline(event)}: ${event.message}`, 1024),
      source: truncate(monitor.target, 255),
      severity: severityOf(event, downSeverity),
      timestamp: event.at,
      component: truncate(monitor.name, 255),
      group: truncate(event.workspace.name, 255),
      class: monitor.type,
      custom_details: boundedValues(Object.fromEntries(alertFacts(event)), 2048),
    },
    client: 'Statusdesk',
    ...(event.link ? { client_url: event.link, links: [{ href: event.link, text: 'Open the monitor in Statusdesk' }] } : {}),
  };
}

/** An alert of a PagerDuty service through the Events API v2, resolved when the monitor recovers. */
export const pagerduty = defineChannel({
  kind: 'pagerduty',
  title: 'PagerDuty',
  ui: { label: 'PagerDuty', hint: 'An incident of a PagerDuty service, resolved on recovery' },
  fields: () => ({
    // Whoever has the key can open incidents on the service: a credential.
    routingKey: {
      schema: z
        .string(expected('the 32-character integration key of an Events API v2 integration'))
        .trim()
        .regex(ROUTING_KEY, 'must be the 32 letters and digits of an Events API v2 integration key'),
      credential: true,
      flag: { name: 'routing-key', valueName: 'KEY', description: 'the integration key of a PagerDuty service (Events API v2)', read: 'text' },
      ui: {
        label: 'Integration key',
        hint: 'The Integration Key of an "Events API V2" integration on the PagerDuty service: 32 letters and digits.',
        input: 'secret',
      },
      docs: { rules: 'the 32-character Integration Key (routing key) of an Events API v2 integration of a PagerDuty service.' },
    },
    downSeverity: {
      schema: z.enum(DOWN_SEVERITIES, expected('critical or error')).default('critical'),
      flag: { name: 'down-severity', description: "the PagerDuty severity of a down alert (degraded is always 'warning')", read: 'choice' },
      ui: { label: 'Severity when down', hint: 'A degraded monitor is a warning.' },
      docs: { rules: '`critical` or `error`: the severity of a `down` alert. A `degraded` alert is a `warning`.' },
    },
    apiBaseUrl: apiBaseUrlField(PUBLIC_API, 'an account in the EU service region: https://events.eu.pagerduty.com'),
  }),
  target: (c) => `PagerDuty ${c.apiBaseUrl ?? PUBLIC_API}`,
  request:
    '`POST <apiBaseUrl>/v2/enqueue` with an Events API v2 event: `{"routing_key", "event_action": "trigger", "dedup_key", "payload": {"summary", "source", "severity", "timestamp", "component", "group", "class", "custom_details"}, "client", "client_url", "links"}`; a `recovered` alert sends `{"routing_key", "event_action": "resolve", "dedup_key"}`. The dedup key is `statusdesk-<workspace>-monitor-<id>`; an alert grouping several monitors sends one event for each (see [PagerDuty](#pagerduty)).',
  send({ routingKey, downSeverity, apiBaseUrl }, event, { timeoutMs, destinations }) {
    const options = { timeoutMs, destinations, refusal: refusalOf('PagerDuty', pagerDutyReason, [routingKey]) };
    const url = apiUrl(apiBaseUrl, '/v2/enqueue');
    return allSent(
      'events',
      perMonitor(event).map((one) => [`monitor ${one.monitor.id}`, postJson(url, pagerDutyEvent(routingKey, downSeverity, one), options)]),
    );
  },
  example: { routingKey: 'R0UT1NGKEY0F32CHARACTERS00000000', downSeverity: 'error', apiBaseUrl: 'https://events.eu.pagerduty.com' },
});
