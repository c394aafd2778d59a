import { z } from 'zod';
import { HEADER_LIMITS } from '../../contract/limits.ts';
import { AppError, type FieldViolation } from '../errors.ts';

/** One VALIDATION error naming every rejected field and its rule. */
export function validationError(issues: readonly z.core.$ZodIssue[]): AppError {
  // A refused record key carries its rules in nested issues; the outer one only says "invalid key".
  const violations: FieldViolation[] = issues.flatMap((issue) =>
    (issue.code === 'invalid_key' ? issue.issues : [issue]).map((inner) => ({
      field: issue.path.map(String).join('.') || '(input)',
      rule: inner.message,
    })),
  );
  return new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}

/**
 * A schema built with its first use instead of at import: zod builds every part of a schema as
 * an object of its own, and building all the domain's rules at import slowed every start.
 */
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** Parses domain input, or throws its VALIDATION error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues);
}

/** An error message for a value that is missing or of the wrong kind. */
export const expected = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `is required: ${what}` : `must be ${what}`),
});

/** The one-field VALIDATION error. */
export function invalid(field: string, rule: string): AppError {
  return new AppError('VALIDATION', `${field}: ${rule}`, [{ field, rule }]);
}

/**
 * How the service writes the id of a stored record: a positive whole number in decimal, without
 * a leading zero, of at most 15 digits (so a safe integer). This is the one pattern of an id.
 */
export const ID_PATTERN = /^[1-9]\d{0,14}$/;

/** The record id that `id` (a string, or a number) is written as, or undefined when it cannot be one. */
export function idOf(id: unknown): number | undefined {
  const text = typeof id === 'number' ? String(id) : id;
  return typeof text === 'string' && ID_PATTERN.test(text) ? Number(text) : undefined;
}

/**
 * The one reading of an id given to the service, on every surface (docs/reference/errors.md): an
 * id that cannot name a record is VALIDATION naming `field`; a well-formed id that names nothing
 * the caller may see is the caller's NOT_FOUND, thrown where the record is looked up.
 */
export function parseId(field: string, what: string, id: unknown): number {
  const value = idOf(id);
  if (value === undefined)
    throw invalid(field, `must be ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} id (a positive whole number), got ${JSON.stringify(id ?? null)}`);
  return value;
}

export interface Pagination {
  page: number;
  perPage: number;
  totalSize: number;
  totalPages: number;
}

/** `page` (1-indexed, default 1) and `perPage` (default 50, at most `max`) of a paginated list. */
export function pageQuery(max: number, defaultPerPage = Math.min(50, max)) {
  return {
    page: z.number().int('must be a whole number').min(1, 'must be 1 or more (pages are 1-indexed)').default(1),
    perPage: z.number().int('must be a whole number').min(1, `must be 1 to ${max}`).max(max, `must be 1 to ${max}`).default(defaultPerPage),
  };
}

export function paginationOf(page: number, perPage: number, totalSize: number): Pagination {
  return { page, perPage, totalSize, totalPages: Math.ceil(totalSize / perPage) };
}

/** Control characters (line breaks included) and the bidirectional overrides and isolates that can disguise text. */
const NOT_IN_A_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** Characters that show nothing: a name of only these looks empty. */
const ONLY_INVISIBLE = /^[\s\u200b-\u200f\u2060\ufeff\u00ad]+$/;

/** Whether `value` holds no control character (line breaks and NUL included) and no bidirectional override. */
export function isOneLine(value: string): boolean {
  return !NOT_IN_A_LINE.test(value);
}

/**
 * A name or title: one line of visible text. It lands in mail subjects and headers, feeds, logs
 * and tables, where a line break or a bidirectional override would be an injection or a disguise.
 */
export function oneLine<S extends z.ZodType<string>>(schema: S) {
  return schema
    .refine(isOneLine, 'must be one line, without control characters or bidirectional overrides')
    .refine((value) => !ONLY_INVISIBLE.test(value), 'must contain a visible character');
}

/** An absolute http:// or https:// address without credentials; `what` says what it is for. */
export const httpUrl = (what: string) =>
  z
    .string(expected('an http:// or https:// URL'))
    .trim()
    .min(1, 'is required: an http:// or https:// URL')
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return ctx.addIssue({ code: 'custom', message: `must be an absolute http:// or https:// URL (${what})` });
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        ctx.addIssue({ code: 'custom', message: `must use http:// or https://, not ${url.protocol}// (${what})` });
      } else if (url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must not carry credentials; send them in a header instead' });
      }
    });

const { entries: MAX_HEADER_ENTRIES, bytes: MAX_HEADER_BYTES } = HEADER_LIMITS;

/** A header field name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value: visible characters, spaces and tabs; never CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
/** Headers the sender sets itself, or that belong to the connection rather than the request. */
export const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'host', 'content-length']);

/** The bounds of every header map: how many entries, and how many bytes in all. */
export function headerBounds(entries: Record<string, string>, ctx: z.RefinementCtx): void {
  const count = Object.keys(entries).length;
  if (count > MAX_HEADER_ENTRIES) ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_HEADER_ENTRIES} entries, got ${count}` });
  const bytes = Object.entries(entries).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (bytes > MAX_HEADER_BYTES) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_HEADER_BYTES} bytes in all, got ${bytes}` });
}

export const headerValue = builtOnFirstUse(() => z.string().regex(HEADER_VALUE, 'a header value must not contain line breaks or control characters'));

/** Request headers of an HTTP monitor, an OTLP export or a webhook. Names are kept as given, matched without case. */
export const httpHeaders = builtOnFirstUse(() =>
  z
    .record(
      z
        .string()
        .regex(HEADER_NAME, 'must be a valid HTTP header name')
        .refine((name) => !CONNECTION_HEADERS.has(name.toLowerCase()), 'is set by the connection and cannot be configured'),
      headerValue(),
    )
    .superRefine(headerBounds),
);
