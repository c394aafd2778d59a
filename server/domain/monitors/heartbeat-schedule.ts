import { Cron } from 'croner';
import { HEARTBEAT_LIMITS } from '../../../contract/limits.ts';

/**
 * When a heartbeat monitor expects its pings (types/heartbeat.ts): a period after the last
 * success (`1d`, `1h30m`), or a cron expression read in a time zone (croner). Pure: the rules
 * validate with it, the check engine evaluates deadlines with it (checks/heartbeat-probe.ts).
 */

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** One or more parts of a whole number and a unit, largest first is not required: `1h30m`, `90m`, `1d`. */
const PERIOD = /^(?:\d{1,6}[mhdw])+$/;
const PART = /(\d{1,6})([mhdw])/g;
/** A cron expression: five fields, or one of croner's nicknames (`@daily`). */
const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** A period's length in milliseconds, or undefined when `text` is not a period. */
export function periodMs(text: string): number | undefined {
  if (!PERIOD.test(text)) return undefined;
  let ms = 0;
  for (const [, count, unit] of text.matchAll(PART)) ms += Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return ms;
}

/** Whether a schedule is a cron expression rather than a period: it has spaces or is a nickname. */
export const isCron = (schedule: string) => /\s/.test(schedule.trim()) || schedule.trim().startsWith('@');

/** Whether `zone` is an IANA time zone this machine knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}

const days = (ms: number) => `${ms / 86_400_000} d`;

/** Why `schedule` is not a schedule (read in `timezone` when it is a cron expression), or undefined when it is one. */
export function scheduleProblem(schedule: string, timezone: string): string | undefined {
  const text = schedule.trim();
  if (!isCron(text)) {
    const ms = periodMs(text);
    if (ms === undefined) {
      return `must be a period like 30m, 12h, 1d or 1h30m (units m, h, d, w), or a cron expression like "0 3 * * *", got "${schedule}"`;
    }
    const { min, max } = HEARTBEAT_LIMITS.periodMs;
    if (ms < min || ms > max) return `a period must be 1 m to ${days(max)}, got ${text}`;
    return undefined;
  }
  if (!NICKNAMES.has(text) && text.split(/\s+/).length !== 5) {
    return `a cron expression must have five fields (minute hour day-of-month month day-of-week) or be a nickname like @daily, got "${text}"`;
  }
  let cron: Cron;
  try {
    cron = new Cron(text, { paused: true, timezone: isTimeZone(timezone) ? timezone : 'UTC' });
  } catch (error) {
    return `is not a cron expression croner accepts: ${(error as Error).message.replace(/^CronPattern: /, '')}`;
  }
  if (cron.nextRun() === null) return `"${text}" never fires: no date matches it`;
  return undefined;
}

/** A schedule made ready to answer when the next ping is expected. */
export interface ExpectedPings {
  /** The first time a ping is expected after `t` (epoch ms); null when none ever is. */
  after(t: number): number | null;
}

const parsed = new Map<string, ExpectedPings>();
/** Schedules kept parsed; beyond this the cache starts over. */
const PARSED_LIMIT = 10_000;

/**
 * The expected pings of a valid schedule: a period counts from `t` itself (the last success, or
 * the monitor's creation); a cron expression gives its first time after `t`, in `timezone`
 * (a local time that a change of clocks skips runs at the first time after the gap, as croner
 * does). Kept parsed by schedule and zone.
 */
export function expectedPings(schedule: string, timezone: string): ExpectedPings {
  const key = `${timezone}\n${schedule}`;
  let expected = parsed.get(key);
  if (expected) return expected;
  const text = schedule.trim();
  if (isCron(text)) {
    const cron = new Cron(text, { paused: true, timezone });
    expected = { after: (t) => cron.nextRun(new Date(t))?.getTime() ?? null };
  } else {
    const ms = periodMs(text)!;
    expected = { after: (t) => t + ms };
  }
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  parsed.set(key, expected);
  return expected;
}
