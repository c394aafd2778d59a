import { z } from 'zod';
import { HEARTBEAT_LIMITS, MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { isCron, isTimeZone, scheduleProblem } from '../heartbeat-schedule.ts';
import { expected } from '../../validation.ts';
import { defineMonitorType } from './monitor-type.ts';

const { periodMs, graceMs, scheduleLength, timezoneLength } = HEARTBEAT_LIMITS;
const days = (ms: number) => `${ms / 86_400_000} d`;

/**
 * Heartbeat (push) monitors: nothing is probed. A job calls the monitor's secret ping URL
 * (`/ping/<token>` on the API port, rest/heartbeat-pings.ts) when it runs; the check engine
 * records each ping as a check result, and a deadline that passes without one as a down result
 * (checks/heartbeat-probe.ts). The token is not a field: it is made on create and on rotation,
 * shown once, and stored only as a hash (heartbeats.ts).
 */
export const heartbeat = defineMonitorType({
  type: 'heartbeat',
  title: 'Heartbeat',
  summary: 'Waits for a job to call its secret ping URL on schedule; down when a ping is missed or the job reports a failure.',
  message: 'HeartbeatMonitor',
  target: 'schedule',
  targetIsUrl: false,
  targetWords: 'the schedule: a period like 1d or a cron expression',
  timeoutWords: 'nothing: a heartbeat runs no check',
  // Nothing is connected to: its jobs call the service.
  targetKind: () => 'none',
  regions: { empty: 'must name at least one region, or be left out for the plan default' },
  fields: () => ({
    schedule: {
      schema: z
        .string(expected('a period like 1d, or a cron expression like "0 3 * * *"'))
        .trim()
        .min(1, 'is required: a period like 1d, or a cron expression like "0 3 * * *"')
        .max(scheduleLength, `must be at most ${scheduleLength} characters`)
        .superRefine((value, ctx) => {
          // The time zone is judged on its own field; the expression's syntax does not depend on it.
          const problem = scheduleProblem(value, 'UTC');
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ui: {
        label: 'Ping schedule',
        hint: 'A period after each success (30m, 12h, 1d, 1h30m), or a cron expression of five fields read in the time zone below.',
        placeholder: '0 3 * * *',
      },
      docs: {
        rules: `a period after the last success, \`<number><unit>\` with units \`m\`, \`h\`, \`d\`, \`w\` and parts together (\`1h30m\`), 1 minute to ${days(periodMs.max)}; or a cron expression of five fields (minute hour day-of-month month day-of-week; \`*/15\`, \`1-5\`, \`MON\` and the like) or a nickname (\`@hourly\`, \`@daily\`, \`@weekly\`, \`@monthly\`, \`@yearly\`), read by [croner](https://croner.56k.guru) in \`timezone\`. An expression that never fires is refused.`,
      },
    },
    timezone: {
      schema: z
        .string({ error: 'must be an IANA time zone like Europe/Paris' })
        .trim()
        .max(timezoneLength, `must be at most ${timezoneLength} characters`)
        .refine(isTimeZone, { error: (issue) => `must be an IANA time zone like Europe/Paris or UTC, got "${issue.input}"` })
        .describe('an IANA time zone')
        .default('UTC'),
      flag: { name: 'timezone', valueName: 'ZONE', description: 'the IANA time zone a cron schedule is read in (default UTC)', read: 'text' },
      ui: {
        label: 'Time zone',
        hint: 'The IANA time zone the cron expression is read in, e.g. Europe/Paris. A period needs none.',
        placeholder: 'Europe/Paris',
      },
      docs: {
        rules:
          'an IANA time zone (`Europe/Paris`, `America/New_York`), for a cron schedule only. Runs a change of clocks skips happen at the first time after the gap; a time that comes twice counts once.',
      },
    },
    grace: {
      schema: z
        .number({ error: 'must be a duration in milliseconds' })
        .int('must be whole milliseconds')
        .min(graceMs.min, `must be at least ${graceMs.min / 60_000} min (${graceMs.min} ms)`)
        .max(graceMs.max, `must be at most ${days(graceMs.max)} (${graceMs.max} ms)`)
        .default(graceMs.default),
      flag: {
        name: 'grace',
        valueName: 'DURATION',
        description: 'how long after an expected ping to wait before down, and the longest a run may take, e.g. 15m or 2h (default 1h)',
        read: 'duration',
      },
      ui: { label: 'Grace time', hint: 'How long after an expected ping the monitor waits before it is down; also the longest a run may take from its start.' },
      docs: {
        rules: `milliseconds (a duration in the CLI: \`15m\`, \`2h\`), ${graceMs.min / 60_000} minute to ${days(graceMs.max)}: how long after an expected ping the monitor waits before it is down, and the longest a run may take between \`/start\` and its end.`,
        default: '1 h (3600000)',
      },
    },
  }),
  refine(value, ctx) {
    if (!isCron(value.schedule) && value.timezone !== 'UTC') {
      ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'is for a cron schedule only: a period counts from the last success, in no time zone' });
    }
    // The fields every type has that a heartbeat has no use for: it runs no check, and its pings
    // come to this service, never to a private location's runner.
    const common = value as typeof value & { privateLocations: string[]; timeout: number; degraded: number | null; retry: number };
    if (common.privateLocations.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['privateLocations'],
        message: 'must be empty: heartbeats are not checked by private locations, their pings come to this service',
      });
    }
    const unused = 'a heartbeat monitor runs no check: leave it out';
    if (common.timeout !== MONITOR_LIMITS.timeoutMs.default) ctx.addIssue({ code: 'custom', path: ['timeout'], message: unused });
    if (common.degraded !== null) ctx.addIssue({ code: 'custom', path: ['degraded'], message: unused });
    if (common.retry !== MONITOR_LIMITS.retry.default) ctx.addIssue({ code: 'custom', path: ['retry'], message: unused });
  },
  rows: (m) => [
    ['timezone', m.timezone],
    ['grace', `${m.grace} ms`],
  ],
  example: { schedule: '30 2 * * 1-5', timezone: 'Europe/Paris', grace: 1_800_000 },
  moreExamples: [{ schedule: '1d', grace: 7_200_000 }],
});
