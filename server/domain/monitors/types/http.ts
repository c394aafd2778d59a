import { z } from 'zod';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { HEADER_NAME, httpHeaders, httpUrl } from '../../validation.ts';
import { DEFAULTED_REGIONS } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

export const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const numberComparators = ['equal', 'not_equal', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'] as const;
export const stringComparators = ['contains', 'not_contains', 'equal', 'not_equal', 'empty', 'not_empty'] as const;

// The limits are the contract's, which the dashboard's form states too.
const { bodyBytes: MAX_BODY_BYTES, assertions: MAX_ASSERTIONS, statusCode, headerAssertionTargetLength, bodyAssertionTargetLength } = MONITOR_LIMITS;
const STATUS_CODE = `must be a status code from ${statusCode.min} to ${statusCode.max}`;

/** `200`, `>=200`, `<400`, `!=503`, as `--assert-status` takes them. */
const NUMBER_OPERATORS: [string, (typeof numberComparators)[number]][] = [
  ['>=', 'greater_than_or_equal'],
  ['<=', 'less_than_or_equal'],
  ['!=', 'not_equal'],
  ['>', 'greater_than'],
  ['<', 'less_than'],
  ['', 'equal'],
];

function emptyTargetRule(value: { comparator: string; target: string }, ctx: z.RefinementCtx): void {
  if ((value.comparator === 'empty' || value.comparator === 'not_empty') && value.target !== '') {
    ctx.addIssue({ code: 'custom', path: ['target'], message: `must be empty with comparator ${value.comparator}` });
  }
}

const stringComparator = () => z.enum(stringComparators, { error: `must be one of ${stringComparators.join(', ')}` });
const assertions = <S extends z.ZodType>(item: S) => z.array(item).max(MAX_ASSERTIONS, `must have at most ${MAX_ASSERTIONS} assertions`).default([]);

/** HTTP: one request, and the assertions applied to its answer (checks/http-probe.ts). */
export const http = defineMonitorType({
  type: 'http',
  title: 'HTTP',
  summary: 'Requests a URL and checks the answer.',
  message: 'HTTPMonitor',
  target: 'url',
  targetIsUrl: true,
  targetWords: 'the URL',
  timeoutWords: 'the budget of the request',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    url: {
      schema: httpUrl('the address to request'),
      ui: { label: 'URL', hint: 'An absolute http:// or https:// URL, without credentials: send them in a header.', placeholder: 'https://example.com/health' },
      docs: { rules: 'absolute `http://` or `https://` URL, without user name or password (send credentials in a header)' },
    },
    method: {
      schema: z.enum(httpMethods, { error: `must be one of ${httpMethods.join(', ')}` }).default('GET'),
      flag: { name: 'method', valueName: 'METHOD', description: `${httpMethods.join(', ')} (default GET)`, read: 'choice', upperCase: true },
      ui: { label: 'Method' },
      docs: { rules: httpMethods.join(', ') },
    },
    headers: {
      schema: httpHeaders().default({}),
      flag: { name: 'header', valueName: 'k=v', description: 'a request header', read: 'pairs' },
      ui: { label: 'Headers', hint: 'At most 32, 8 KiB in all.' },
      docs: { rules: 'header names and values; connection headers (`host`, `content-length`, ...) refused; at most 32 entries and 8 KiB' },
    },
    body: {
      schema: z
        .string()
        .refine((body) => Buffer.byteLength(body) <= MAX_BODY_BYTES, `must be at most ${MAX_BODY_BYTES} bytes`)
        .default(''),
      flag: { name: 'body', valueName: 'TEXT', description: 'the request body', read: 'text' },
      ui: { label: 'Request body', hint: 'Up to 64 KiB. Not sent with GET or HEAD: choose POST, PUT or PATCH to send one.' },
      docs: { rules: 'up to 64 KiB; not with GET or HEAD' },
    },
    followRedirects: {
      schema: z.boolean().default(true),
      flag: { name: 'follow-redirects', valueName: 'true|false', description: 'follow redirects (default true)', read: 'boolean' },
      ui: { label: 'Follow redirects', hint: 'Up to 10.' },
      docs: { rules: 'follow up to 10 redirects' },
    },
    statusCodeAssertions: {
      schema: assertions(
        z.strictObject({
          comparator: z.enum(numberComparators, { error: `must be one of ${numberComparators.join(', ')}` }),
          target: z.number().int().min(statusCode.min, STATUS_CODE).max(statusCode.max, STATUS_CODE).describe('a status code'),
        }),
      ),
      flag: {
        name: 'assert-status',
        valueName: '[>=|<=|>|<|!=]CODE',
        description: 'the status code must match, e.g. 200 or <400',
        read: (texts, fail) =>
          texts.map((value) => {
            const [operator, comparator] = NUMBER_OPERATORS.find(([op]) => value.startsWith(op))!;
            const target = value.slice(operator.length);
            if (!/^\d{3}$/.test(target)) fail(`--assert-status takes a status code with an optional >=, <=, >, < or != before it, got "${value}"`);
            return { comparator, target: Number(target) };
          }),
      },
      ui: { label: 'Status code', hint: 'Without one, any 2xx status passes.', placeholder: '200' },
      docs: { default: 'none: any 2xx passes', rules: '`comparator` (equal, not equal, greater/less than, or equal) and `target` 100 to 599' },
    },
    headerAssertions: {
      schema: assertions(
        z
          .strictObject({
            key: z.string().regex(HEADER_NAME, 'must be a valid HTTP header name').describe('a header name'),
            comparator: stringComparator(),
            target: z.string().max(headerAssertionTargetLength, `must be at most ${headerAssertionTargetLength} characters`).default(''),
          })
          .superRefine(emptyTargetRule),
      ),
      flag: {
        name: 'assert-header',
        valueName: 'k=v',
        description: 'the response header k must equal v',
        // As every k=v flag: a name given twice keeps its last value.
        read: (texts, fail) =>
          Object.entries(
            Object.fromEntries(
              texts.map((entry) => {
                const at = entry.indexOf('=');
                if (at < 1) fail(`--assert-header takes key=value, got "${entry}"`);
                return [entry.slice(0, at), entry.slice(at + 1)];
              }),
            ),
          ).map(([key, target]) => ({ key, comparator: 'equal', target })),
      },
      ui: { label: 'Response header', placeholder: 'content-type' },
      docs: { rules: '`key`, `comparator` (contains, not contains, equal, not equal, empty, not empty) and `target`' },
    },
    bodyAssertions: {
      schema: assertions(
        z
          .strictObject({
            comparator: stringComparator(),
            target: z.string().max(bodyAssertionTargetLength, `must be at most ${bodyAssertionTargetLength} characters`).default(''),
          })
          .superRefine(emptyTargetRule),
      ),
      flag: {
        name: 'assert-body-contains',
        valueName: 'TEXT',
        description: 'the response body must contain TEXT',
        read: (texts) => texts.map((target) => ({ comparator: 'contains', target })),
      },
      ui: { label: 'Response body' },
      docs: { rules: '`comparator` and `target` as for headers' },
    },
  }),
  refine(value, ctx) {
    if (value.body !== '' && (value.method === 'GET' || value.method === 'HEAD')) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: `is not allowed with method ${value.method}; use POST, PUT or PATCH` });
    }
  },
  secretMaps: ['headers'],
  fileLists: { word: 'assertions', item: 'an assertion', lists: { status: 'statusCodeAssertions', header: 'headerAssertions', body: 'bodyAssertions' } },
  rows: (m) => [
    ['method', m.method ?? '-'],
    ['assertions', String(m.statusCodeAssertions.length + m.headerAssertions.length + m.bodyAssertions.length)],
  ],
  example: {
    url: 'https://api.example.com/health',
    method: 'POST',
    headers: { accept: 'application/json' },
    body: '{}',
    followRedirects: false,
    statusCodeAssertions: [{ comparator: 'less_than', target: 400 }],
    headerAssertions: [{ key: 'content-type', comparator: 'contains', target: 'json' }],
    bodyAssertions: [{ comparator: 'contains', target: 'ok' }],
  },
});
