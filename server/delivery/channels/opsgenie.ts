import { z } from 'zod';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline } from '../../domain/public-words.ts';
import { expected } from '../../domain/validation.ts';
import { postJson } from '../http-post.ts';
import { alertFacts } from '../templates.ts';
import { defineChannel, truncate } from './channel.ts';
import { allSent, apiBaseUrlField, apiUrl, boundedValues, openAlertKey, perMonitor, refusalOf } from './service-api.ts';

const PUBLIC_API = 'https://api.opsgenie.com';
const PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
type Priority = (typeof PRIORITIES)[number];
/** An Opsgenie API key: a UUID in practice; letters, digits and dashes in any case. */
const API_KEY = /^[A-Za-z0-9-]{8,128}$/;
/** What Opsgenie calls the sender of an alert and of its closing. */
const SOURCE = 'Statusdesk';

/** Opsgenie's errors: `{"message": "...", "errors": {"message": "Message can not be empty."}, "took": 0.001, "requestId": "..."}`. */
function opsgenieReason(body: any): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const message = typeof body.message === 'string' ? body.message : undefined;
  const errors =
    body.errors && typeof body.errors === 'object'
      ? Object.entries(body.errors)
          .map(([field, why]) => `${field}: ${String(why)}`)
          .join('; ')
      : '';
  return [message, errors].filter(Boolean).join(' ') || undefined;
}

/** The alert to create: Opsgenie's limits are `message` 130 characters, `description` 15,000, `entity` 512, each of `details` 8,000 in all. */
function opsgenieAlert(event: AlertEvent, priority: Priority | undefined) {
  const facts = alertFacts(event);
  const description = [...facts, ...(event.link ? [['Dashboard', event.link]] : [])].map(([label, value]) => `${label}: ${value}`).join('\n');
  return {
    message: truncate(`${event.test ? '[Test] ' : ''}${alertHeadline(event)}`, 130),
    alias: openAlertKey(event),
    description: truncate(description, 15_000),
    details: boundedValues(Object.fromEntries([...facts, ...(event.link ? [['Dashboard', event.link]] : [])]), 1_000),
    entity: truncate(event.monitor.name, 512),
    source: SOURCE,
    tags: ['statusdesk', event.kind, ...(event.test ? ['test'] : [])],
    priority: priority ?? (event.kind === 'down' ? 'P1' : 'P3'),
  };
}

/** An Opsgenie alert, created with an alias per monitor and closed by that alias when the monitor recovers. */
export const opsgenie = defineChannel({
  kind: 'opsgenie',
  title: 'Opsgenie',
  ui: { label: 'Opsgenie', hint: 'An Opsgenie alert, closed on recovery' },
  fields: () => ({
    apiKey: {
      schema: z
        .string(expected('the API key of an Opsgenie API integration'))
        .trim()
        .regex(API_KEY, 'must be an Opsgenie API key: 8 to 128 letters, digits or -'),
      credential: true,
      flag: { name: 'api-key', valueName: 'KEY', description: 'the API key of an Opsgenie API integration', read: 'text' },
      ui: { label: 'API key', hint: 'The API Key of an API integration of an Opsgenie team; sent as Authorization: GenieKey.', input: 'secret' },
      docs: { rules: 'the API key of an API integration of an Opsgenie team, sent as `Authorization: GenieKey <apiKey>`.' },
    },
    priority: {
      schema: z.enum(PRIORITIES, expected('P1, P2, P3, P4 or P5')).optional(),
      flag: { name: 'priority', valueName: 'P1-P5', description: 'the priority of each alert', read: 'choice', upperCase: true },
      ui: { label: 'Priority', hint: 'Empty: P1 for down, P3 otherwise.' },
      docs: { rules: '`P1` (critical) to `P5` (informational); default `P1` for `down`, `P3` otherwise.' },
    },
    apiBaseUrl: apiBaseUrlField(PUBLIC_API, 'an account in the EU instance: https://api.eu.opsgenie.com'),
  }),
  target: (c) => `Opsgenie ${c.apiBaseUrl ?? PUBLIC_API}`,
  request:
    '`POST <apiBaseUrl>/v2/alerts` with `Authorization: GenieKey <apiKey>` and `{"message", "alias", "description", "details", "entity", "source": "Statusdesk", "tags", "priority"}`; a `recovered` alert sends `POST <apiBaseUrl>/v2/alerts/<alias>/close?identifierType=alias` with `{"source", "note"}`. The alias is `statusdesk-<workspace>-monitor-<id>`; an alert grouping several monitors creates or closes one alert for each (see [Opsgenie](#opsgenie)).',
  send({ apiKey, priority, apiBaseUrl }, event, { timeoutMs, destinations }) {
    const options = {
      headers: { authorization: `GenieKey ${apiKey}` },
      timeoutMs,
      destinations,
      refusal: refusalOf('Opsgenie', opsgenieReason, [apiKey]),
    };
    const sendOne = (one: AlertEvent) => {
      if (one.kind !== 'recovered') return postJson(apiUrl(apiBaseUrl, '/v2/alerts'), opsgenieAlert(one, priority), options);
      const alias = encodeURIComponent(openAlertKey(one));
      return postJson(
        apiUrl(apiBaseUrl, `/v2/alerts/${alias}/close?identifierType=alias`),
        { source: SOURCE, note: truncate(alertHeadline(one), 25_000) },
        options,
      );
    };
    return allSent(
      'alerts',
      perMonitor(event).map((one) => [`monitor ${one.monitor.id}`, sendOne(one)]),
    );
  },
  example: { apiKey: 'eb243592-faa2-4ba2-a551-1afdf565c889', priority: 'P2', apiBaseUrl: 'https://api.eu.opsgenie.com' },
});
