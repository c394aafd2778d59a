import type { Liquid } from 'liquidjs';
import type { AlertEvent } from '../../domain/notifications/events.ts';
import { alertHeadline, durationWords } from '../../domain/public-words.ts';

/**
 * The body template of a custom webhook: Liquid (liquidjs), a template language that runs no code
 * of the template's author. The engine is configured shut: it reads no file (an empty in-memory
 * set of templates, and no include, render or layout tags at all), sees only the own properties
 * of the variables below, refuses unknown filters and variables, and is bounded in the length
 * of a template, the time of a render and what a render may allocate. liquidjs loads with the
 * first custom webhook written or sent, not with the service.
 */

export const TEMPLATE_LIMITS = {
  /** Characters of a template. */
  length: 16_384,
  /** Milliseconds one render may take. */
  renderMs: 100,
  /** What one render may allocate, in liquidjs's units (about characters). */
  memory: 1_000_000,
  /** Bytes of a rendered body. */
  bodyBytes: 65_536,
} as const;

/** Tags that read other templates: without them (and with no file system) a template is only itself. */
const FILE_TAGS = ['include', 'render', 'layout', 'block'];

let engine: Liquid | undefined;
let loading: Promise<Liquid> | undefined;

/** Loads liquidjs and makes the one engine; the channel service awaits it before it checks a custom webhook. */
export function loadTemplateEngine(): Promise<Liquid> {
  loading ??= import('liquidjs').then(({ Liquid }) => {
    const liquid = new Liquid({
      // Lookups of other templates go to this empty map, never to the disk.
      templates: {},
      relativeReference: false,
      dynamicPartials: false,
      strictFilters: true,
      strictVariables: true,
      // `{% if link %}` and `| default:` work on variables that are null.
      lenientIf: true,
      ownPropertyOnly: true,
      timezoneOffset: 0,
      parseLimit: TEMPLATE_LIMITS.length,
      renderLimit: TEMPLATE_LIMITS.renderMs,
      memoryLimit: TEMPLATE_LIMITS.memory,
      cache: false,
    });
    for (const tag of FILE_TAGS) delete liquid.tags[tag];
    engine = liquid;
    return liquid;
  });
  return loading;
}

/** What a template can use, by name (documented in docs/reference/notifications.md). */
export function templateVariables(event: AlertEvent) {
  const { monitor } = event;
  return {
    monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: monitor.target },
    event: { kind: event.kind, test: event.test === true },
    state: event.to,
    previous_state: event.from,
    message: event.message,
    at: event.at,
    regions: event.regions ?? [],
    link: event.link ?? null,
    down_for: event.downForMs === undefined ? null : durationWords(event.downForMs),
    down_for_seconds: event.downForMs === undefined ? null : Math.round(event.downForMs / 1000),
    workspace: { slug: event.workspace.slug, name: event.workspace.name },
    headline: alertHeadline(event),
  };
}

/** Renders a template for an event; throws the engine's error (a render over its limits among them). */
export function renderTemplate(liquid: Liquid, template: string, event: AlertEvent): string {
  const body = liquid.parseAndRenderSync(template, templateVariables(event));
  if (Buffer.byteLength(body) > TEMPLATE_LIMITS.bodyBytes) throw new Error(`the rendered body is over ${TEMPLATE_LIMITS.bodyBytes} bytes`);
  return body;
}

/** Whether a content type is JSON: `application/json`, or a `+json` type such as `application/cloudevents+json`. */
export const isJsonType = (contentType: string) => /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType);

/**
 * The examples a template is rendered with when it is written: a down alert and a recovery, with
 * a name and a message that hold quotes, a backslash and a line break, so a JSON template that
 * puts a value in without `| json` fails now rather than at the first real alert.
 */
const EXAMPLES: AlertEvent[] = [
  {
    kind: 'down',
    monitor: { id: '12', name: 'Checkout "EU" \\ API', type: 'http', target: 'https://api.example.com/health' },
    from: 'up',
    to: 'down',
    message: 'assertion failed: status code 2xx (got 503)\nbody: "unavailable"',
    at: '2026-03-01T14:05:09.000Z',
    workspace: { slug: 'personal', name: 'Personal' },
    regions: ['fra', 'iad'],
    link: 'https://status.example.com/dashboard/monitors/12',
  },
  {
    kind: 'recovered',
    monitor: { id: '12', name: 'Checkout "EU" \\ API', type: 'http', target: 'https://api.example.com/health' },
    from: 'down',
    to: 'up',
    message: 'status code 200',
    at: '2026-03-01T14:17:09.000Z',
    workspace: { slug: 'personal', name: 'Personal' },
    downForMs: 720_000,
  },
];

/** A line of an engine's error, without the template it may quote. */
const errorWords = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0]!.trim() : String(error));

/**
 * What is wrong with a template, as the rule its field breaks, or undefined when it parses,
 * renders both examples within the limits, and (for a JSON content type) renders JSON. The engine
 * must be loaded (loadTemplateEngine).
 */
export function templateProblem(template: string, contentType: string): string | undefined {
  if (!engine) return 'cannot be checked: the template engine is not loaded';
  try {
    engine.parse(template);
  } catch (error) {
    return `must be a Liquid template: ${errorWords(error)}`;
  }
  for (const example of EXAMPLES) {
    let body: string;
    try {
      body = renderTemplate(engine, template, example);
    } catch (error) {
      return `must render an alert: rendering a ${example.kind} alert failed: ${errorWords(error)}`;
    }
    if (!isJsonType(contentType)) continue;
    try {
      JSON.parse(body);
    } catch (error) {
      return `must render JSON for the content type ${contentType}: a ${example.kind} alert gave ${errorWords(error)}; put each value in with the json filter, e.g. {{ monitor.name | json }}`;
    }
  }
  return undefined;
}

/** The template of a channel that sets none: the alert as JSON, every value through `| json`. */
export const DEFAULT_TEMPLATE = `{
  "text": {{ headline | json }},
  "event": {{ event.kind | json }},
  "test": {{ event.test | json }},
  "monitor": {{ monitor | json }},
  "state": {{ state | json }},
  "previous_state": {{ previous_state | json }},
  "message": {{ message | json }},
  "at": {{ at | json }},
  "regions": {{ regions | json }},
  "down_for": {{ down_for | json }},
  "link": {{ link | json }},
  "workspace": {{ workspace | json }}
}`;
