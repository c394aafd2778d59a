import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import { isCron, isTimeZone } from '../monitors/heartbeat-schedule.ts';
import { expected, invalid } from '../validation.ts';
import { maintenanceSpansCovering } from './maintenance-repository.ts';
import type { Database } from '../../db/schema.ts';

/**
 * When a repeating maintenance window happens. A rule is weekly (days of the week at a local
 * time), monthly (a day of the month, or the first … last weekday of the month, at a local time)
 * or a cron expression; each occurrence lasts `durationMinutes`, read in `timeZone` (IANA), and
 * none starts after `until`. Every kind is read by croner (as heartbeat monitors read their cron
 * schedules), so the three agree on time zones.
 *
 * Changes of clocks: a local start time that the change skips (02:30 on the night clocks go
 * forward in Europe/Paris) starts at the first moment after the gap (03:00 local); a local time
 * that happens twice (02:30 on the night clocks go back) starts at the first of the two. The
 * duration is elapsed time, so a 60-minute window is 60 minutes long on those nights too.
 *
 * Pure and bounded: every walk stops after a fixed number of occurrences.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const WEEKS_OF_MONTH = ['first', 'second', 'third', 'fourth', 'last'] as const;
export type WeekOfMonth = (typeof WEEKS_OF_MONTH)[number];

export interface RepeatRule {
  kind: 'weekly' | 'monthly' | 'cron';
  /** weekly: the days it starts on. */
  days?: Weekday[];
  /** monthly: a day of the month, 1 to 31 (a month without that day has no occurrence)… */
  dayOfMonth?: number;
  /** …or a weekday of the month: `first` … `fourth` or `last`, with `weekday`. */
  week?: WeekOfMonth;
  weekday?: Weekday;
  /** weekly and monthly: the local start time, `HH:MM`. */
  time?: string;
  /** cron: five fields or a nickname, read in timeZone. */
  cron?: string;
  durationMinutes: number;
  timeZone: string;
  /** RFC 3339, UTC: no occurrence starts after it. */
  until?: string;
}

export interface Occurrence {
  /** RFC 3339, UTC. */
  from: string;
  to: string;
}

const { maxDurationMinutes, cronLength, timeZoneLength } = MAINTENANCE_LIMITS;
/** The most occurrences any one question walks through; a calendar month of a 1-minute cron stops here. */
export const MAX_OCCURRENCES = 1_000;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The rule as input: checked field by field, then as a whole by `checkRule`. */
export const repeatInput = (until: z.ZodType<string>) =>
  z.strictObject({
    kind: z.enum(['weekly', 'monthly', 'cron'], expected('weekly, monthly or cron')),
    days: z
      .array(z.enum(WEEKDAYS, expected('a day: sun, mon, tue, wed, thu, fri or sat')), expected('a list of days'))
      .max(7)
      .optional(),
    dayOfMonth: z.number(expected('a day of the month')).int('must be a whole number').min(1, 'must be 1 to 31').max(31, 'must be 1 to 31').optional(),
    week: z.enum(WEEKS_OF_MONTH, expected('first, second, third, fourth or last')).optional(),
    weekday: z.enum(WEEKDAYS, expected('a day: sun, mon, tue, wed, thu, fri or sat')).optional(),
    time: z.string(expected('a time, HH:MM')).regex(TIME, 'must be a 24-hour time HH:MM, e.g. 02:30').optional(),
    cron: z.string(expected('a cron expression')).trim().max(cronLength, `must be at most ${cronLength} characters`).optional(),
    durationMinutes: z
      .number(expected('a number of minutes'))
      .int('must be a whole number of minutes')
      .min(1, `must be 1 to ${maxDurationMinutes} minutes`)
      .max(maxDurationMinutes, `must be 1 to ${maxDurationMinutes} minutes`),
    timeZone: z
      .string(expected('an IANA time zone, e.g. Europe/Paris'))
      .trim()
      .max(timeZoneLength, `must be at most ${timeZoneLength} characters`)
      .refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Paris or UTC'),
    until: until.optional(),
  });

const cronDay = (day: Weekday) => day.toUpperCase();
const nth: Record<WeekOfMonth, string> = { first: '1', second: '2', third: '3', fourth: '4', last: 'L' };

/** The rule as one cron pattern (croner's `#` picks the nth weekday of a month, `#L` the last). */
function patternOf(rule: RepeatRule): string {
  if (rule.kind === 'cron') return rule.cron!;
  const [hour, minute] = rule.time!.split(':').map(Number);
  if (rule.kind === 'weekly') return `${minute} ${hour} * * ${[...new Set(rule.days)].map(cronDay).join(',')}`;
  if (rule.dayOfMonth !== undefined) return `${minute} ${hour} ${rule.dayOfMonth} * *`;
  return `${minute} ${hour} * * ${cronDay(rule.weekday!)}#${nth[rule.week!]}`;
}

/** Refuses a rule whose parts do not fit its kind, naming the field under `prefix` (e.g. `repeat`). */
export function checkRule(rule: RepeatRule, prefix = 'repeat'): RepeatRule {
  const field = (name: string) => `${prefix}.${name}`;
  const only = (allowed: string[]) => {
    for (const key of ['days', 'dayOfMonth', 'week', 'weekday', 'time', 'cron'] as const)
      if (rule[key] !== undefined && !allowed.includes(key)) throw invalid(field(key), `is not part of a ${rule.kind} rule: leave it out`);
  };
  if (rule.kind === 'weekly') {
    only(['days', 'time']);
    if (!rule.days?.length) throw invalid(field('days'), 'a weekly window needs at least one day: sun, mon, tue, wed, thu, fri or sat');
    if (rule.time === undefined) throw invalid(field('time'), 'is required: the local start time, HH:MM');
  } else if (rule.kind === 'monthly') {
    only(['dayOfMonth', 'week', 'weekday', 'time']);
    const byWeekday = rule.week !== undefined || rule.weekday !== undefined;
    if (rule.dayOfMonth !== undefined && byWeekday) throw invalid(field('dayOfMonth'), 'give either dayOfMonth, or week and weekday, not both');
    if (rule.dayOfMonth === undefined && !byWeekday)
      throw invalid(field('dayOfMonth'), 'a monthly window needs dayOfMonth (1 to 31), or week and weekday (e.g. first mon)');
    if (byWeekday && rule.week === undefined) throw invalid(field('week'), 'is required with weekday: first, second, third, fourth or last');
    if (byWeekday && rule.weekday === undefined) throw invalid(field('weekday'), 'is required with week: sun, mon, tue, wed, thu, fri or sat');
    if (rule.time === undefined) throw invalid(field('time'), 'is required: the local start time, HH:MM');
  } else {
    only(['cron']);
    const text = rule.cron ?? '';
    if (text === '') throw invalid(field('cron'), 'is required: a cron expression of five fields, e.g. "0 2 * * 6"');
    if (!isCron(text) || (!text.startsWith('@') && text.split(/\s+/).length !== 5))
      throw invalid(field('cron'), `must have five fields (minute hour day-of-month month day-of-week) or be a nickname like @weekly, got "${text}"`);
    let cron: Cron;
    try {
      cron = new Cron(text, { paused: true, timezone: rule.timeZone });
    } catch (error) {
      throw invalid(field('cron'), `is not a cron expression croner accepts: ${(error as Error).message.replace(/^CronPattern: /, '')}`);
    }
    if (cron.nextRun() === null) throw invalid(field('cron'), `"${text}" never fires: no date matches it`);
  }
  return rule;
}

const cache = new Map<string, Cron>();
function cronOf(rule: RepeatRule): Cron {
  const key = `${rule.timeZone}\n${patternOf(rule)}`;
  let cron = cache.get(key);
  if (!cron) {
    if (cache.size >= 1_000) cache.clear();
    cron = new Cron(patternOf(rule), { paused: true, timezone: rule.timeZone });
    cache.set(key, cron);
  }
  return cron;
}

const durationMs = (rule: RepeatRule) => rule.durationMinutes * 60_000;

/**
 * The occurrences that start at or after `seriesStart` and overlap [from, to), earliest first, at
 * most `limit` (and never more than MAX_OCCURRENCES).
 */
export function occurrencesBetween(rule: RepeatRule, seriesStart: string, from: number, to: number, limit = MAX_OCCURRENCES): Occurrence[] {
  const cron = cronOf(rule);
  const length = durationMs(rule);
  const until = rule.until === undefined ? Number.POSITIVE_INFINITY : Date.parse(rule.until);
  // nextRun answers strictly after its argument: start 1 ms early so a start exactly at the bound counts.
  let cursor = Math.max(Date.parse(seriesStart), from - length + 1) - 1;
  const out: Occurrence[] = [];
  while (out.length < Math.min(limit, MAX_OCCURRENCES)) {
    const next = cron.nextRun(new Date(cursor))?.getTime();
    if (next === undefined || next >= to || next > until) break;
    out.push({ from: new Date(next).toISOString(), to: new Date(next + length).toISOString() });
    cursor = next;
  }
  return out;
}

/** The occurrence under way at `now`, if any. */
export function occurrenceAt(rule: RepeatRule, seriesStart: string, now: number): Occurrence | undefined {
  return occurrencesBetween(rule, seriesStart, now, now + 1, 1)[0];
}

/** The occurrence under way at `now` and the ones after it, `count` in all at most. */
export function nextOccurrences(rule: RepeatRule, seriesStart: string, now: number, count: number): Occurrence[] {
  return occurrencesBetween(rule, seriesStart, now, Number.MAX_SAFE_INTEGER, count);
}

/** The first occurrence at or after `from`: a rule with none (its end date before the first) is refused naming `repeat.until`. */
export function firstOccurrence(rule: RepeatRule, from: number, prefix = 'repeat'): Occurrence {
  const [first] = occurrencesBetween(rule, new Date(from).toISOString(), from, Number.MAX_SAFE_INTEGER, 1);
  if (!first) {
    if (rule.until !== undefined) throw invalid(`${prefix}.until`, `no occurrence starts between ${new Date(from).toISOString()} and ${rule.until}`);
    throw invalid(`${prefix}.${rule.kind === 'cron' ? 'cron' : 'time'}`, 'never fires: no date matches the rule');
  }
  return first;
}

/** The latest moment an occurrence can end: what the stored window's `ends_at` holds, so the index still narrows. */
export function seriesEnd(rule: RepeatRule, last: string): string {
  if (rule.until === undefined) return last;
  return new Date(Date.parse(rule.until) + durationMs(rule)).toISOString();
}

/** The stored form of a rule (a JSON text), and back. */
export const storeRule = (rule: RepeatRule) => JSON.stringify(rule);
export const readRule = (text: string | null): RepeatRule | undefined => (text === null ? undefined : (JSON.parse(text) as RepeatRule));

/**
 * The window, if any, under way for `monitorId` at `now`: a one-off window whose span covers it,
 * or a repeating one with an occurrence under way.
 */
export async function activeMaintenanceFor(db: Kysely<Database>, monitorId: number, now = new Date().toISOString()): Promise<number | undefined> {
  const nowMs = Date.parse(now);
  for (const row of await maintenanceSpansCovering(db, monitorId, now)) {
    const rule = readRule(row.repeat_rule);
    if (!rule || occurrenceAt(rule, row.starts_at, nowMs)) return row.id;
  }
  return undefined;
}
