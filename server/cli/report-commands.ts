import { periodMs } from '../domain/monitors/heartbeat-schedule.ts';
import { maintenanceWords } from '../rpc/maintenance-codec.ts';
import { reportStatus, reportWords } from '../rpc/status-report-codec.ts';
import { fieldFlags } from './field-flags.ts';
import {
  address,
  type Command,
  connection,
  int32,
  list,
  note,
  notifyFlags,
  notifyOf,
  oneOf,
  type Options,
  printFields,
  required,
  str,
  type Values,
} from './flags.ts';
import { client } from './service-client.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk reports ...` and `statusdesk maintenance ...`: what is published on status pages,
 * through the client library (status_report.v1, maintenance.v1), shown in the words of
 * page-codec.ts (reportWords, maintenanceWords). Every publishing command must say whether the
 * page's subscribers are told: --notify or --no-notify.
 */

type ReportShown = ReturnType<typeof reportWords>;
type MaintenanceShown = ReturnType<typeof maintenanceWords>;

const statuses = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
const statusOf = (value: string) => reportStatus.wire(oneOf('status', value, statuses));
const componentsText = (ids: string[]) => (ids.length === 0 ? '(whole page)' : ids.join(','));

const statusFlag = { status: { type: 'string', valueName: statuses.join('|'), description: 'where the incident stands' } } as const satisfies Options;
const componentFlag = {
  component: { type: 'string', multiple: true, valueName: 'ID', description: 'a component it concerns (none: the whole page)' },
} as const satisfies Options;
const pageFlag = { page: { type: 'string', valueName: 'PAGE', description: 'the status page, by id or slug' } } as const satisfies Options;
const messageFlag = { message: { type: 'string', valueName: 'TEXT', description: 'what is published' } } as const satisfies Options;
const reportFields = fieldFlags({ pageId: '--page', title: '--title', message: '--message', status: '--status', pageComponentIds: '--component' });

/** A note when subscribers were to be told and were not: the record is stored all the same. */
function notifiedNote(notify: boolean, notified: boolean, what: string): void {
  if (notify && !notified) note(`The ${what} was stored, but telling the page's subscribers failed.`);
}

function printReport(report: ReportShown, extra: [string, string][] = []): void {
  const latest = report.updates[0];
  printFields([
    ['id', report.id],
    ['page', report.pageId],
    ['title', report.title],
    ['status', report.status],
    ['resolved', String(report.resolved)],
    ['components', componentsText(report.pageComponentIds)],
    ['updates', String(report.updates.length)],
    ['latest update', latest ? `${latest.createdAt} ${latest.status}: ${latest.message}` : undefined],
    ['created', report.createdAt],
    ['updated', report.updatedAt],
    ['resolved at', report.resolvedAt],
    ...extra,
  ]);
}

/** A publishing call's answer: the report and whether the subscribers were told. */
function showPublishedReport(
  values: Values,
  notify: boolean,
  response: { statusReport?: Parameters<typeof reportWords>[0]; notified: boolean },
  what: string,
): void {
  const statusReport = reportWords(response.statusReport!);
  if (values.json) return printJson({ statusReport, notified: response.notified });
  printReport(statusReport, [['notified', String(response.notified)]]);
  notifiedNote(notify, response.notified, what);
}

/** A list's page, counted: `pagination` always has its four numbers. */
function paginationOf(pagination: { page: number; perPage: number; totalSize: number; totalPages: number } | undefined) {
  return { page: pagination?.page ?? 1, perPage: pagination?.perPage ?? 0, totalSize: pagination?.totalSize ?? 0, totalPages: pagination?.totalPages ?? 0 };
}

function printPaging(shown: number, pagination: ReturnType<typeof paginationOf>, noun: string): void {
  note(`${shown} of ${pagination.totalSize} ${noun} (page ${pagination.page} of ${Math.max(pagination.totalPages, 1)})`);
}

const paging = {
  'page-number': { type: 'string', valueName: 'N', description: 'which page of the list, from 1' },
  'per-page': { type: 'string', valueName: 'N', description: 'how many per page' },
} as const satisfies Options;
const pagingFields = { page: '--page-number', perPage: '--per-page' };
const pagingOf = (values: Values) => ({
  page: int32('page-number', str(values, 'page-number')) ?? 0,
  perPage: int32('per-page', str(values, 'per-page')) ?? 0,
});

// ---- reports -------------------------------------------------------------------------------------

const reportsCreate: Command = {
  usage:
    'reports create --page PAGE --title T --message M [--status investigating|identified|monitoring|resolved] [--component ID]... (--notify | --no-notify) [--api-url URL] [--json]',
  summary: 'publish a status report (an incident) on a status page',
  options: {
    ...connection,
    ...notifyFlags,
    ...pageFlag,
    title: { type: 'string', valueName: 'TITLE', description: 'what the incident is called' },
    ...messageFlag,
    status: { ...statusFlag.status, description: 'where the incident stands (default investigating)' },
    ...componentFlag,
  },
  fields: reportFields,
  async run(values) {
    const notify = notifyOf(values);
    const status = str(values, 'status');
    const response = await client(values).reports.createStatusReport({
      pageId: required(values, 'page'),
      title: required(values, 'title'),
      message: required(values, 'message'),
      status: status === undefined ? undefined : statusOf(status),
      pageComponentIds: list(values, 'component'),
      notify,
    });
    showPublishedReport(values, notify, response, 'report');
  },
};

const reportsUpdateStatus: Command = {
  usage: 'reports update-status ID --status investigating|identified|monitoring|resolved --message M (--notify | --no-notify) [--api-url URL] [--json]',
  summary: 'publish an update of a status report',
  options: { ...connection, ...notifyFlags, ...statusFlag, ...messageFlag },
  positionals: 1,
  fields: reportFields,
  async run(values, [id]) {
    const notify = notifyOf(values);
    const response = await client(values).reports.addStatusReportUpdate({
      id: id!,
      status: statusOf(required(values, 'status')),
      message: required(values, 'message'),
      notify,
    });
    showPublishedReport(values, notify, response, 'update');
  },
};

const reportsResolve: Command = {
  usage: 'reports resolve ID --message M (--notify | --no-notify) [--api-url URL] [--json]',
  summary: 'publish the last update of a status report: resolved',
  options: { ...connection, ...notifyFlags, ...messageFlag },
  positionals: 1,
  fields: reportFields,
  async run(values, [id]) {
    const notify = notifyOf(values);
    const response = await client(values).reports.resolveStatusReport({ id: id!, message: required(values, 'message'), notify });
    showPublishedReport(values, notify, response, 'resolution');
  },
};

const reportsEdit: Command = {
  usage:
    'reports edit ID [--title T] [--status investigating|identified|monitoring|resolved] [--component ID]... [--clear-components] [--api-url URL] [--json]   (corrects the report without an update; nobody is told)',
  summary: 'correct a status report without publishing an update; nobody is told',
  options: {
    ...connection,
    title: { type: 'string', valueName: 'TITLE', description: 'what the incident is called' },
    ...statusFlag,
    ...componentFlag,
    'clear-components': { type: 'boolean', description: 'the report concerns the whole page' },
  },
  positionals: 1,
  fields: reportFields,
  async run(values, [id]) {
    const title = str(values, 'title');
    const status = str(values, 'status');
    const components = list(values, 'component');
    const clear = values['clear-components'] === true;
    if (clear && components.length > 0) throw new UsageError('give --component or --clear-components, not both');
    if (title === undefined && status === undefined && components.length === 0 && !clear) {
      throw new UsageError('nothing to change: give --title, --status, --component or --clear-components');
    }
    // Only an update mask can empty the list of components: it then names every field that changes.
    const paths = [...(title === undefined ? [] : ['title']), ...(status === undefined ? [] : ['status']), 'page_component_ids'];
    const { statusReport } = await client(values).reports.updateStatusReport({
      id: id!,
      title,
      status: status === undefined ? undefined : statusOf(status),
      pageComponentIds: components,
      updateMask: clear ? { paths } : undefined,
    });
    const shown = reportWords(statusReport!);
    if (values.json) return printJson(shown);
    printReport(shown);
  },
};

const reportsList: Command = {
  usage: 'reports list [--all] [--page PAGE] [--page-number N] [--per-page N] [--api-url URL] [--json]   (unresolved reports unless --all)',
  summary: 'list the unresolved status reports (--all: every one), newest first',
  options: { ...connection, ...paging, all: { type: 'boolean', description: 'resolved reports too' }, ...pageFlag },
  fields: { ...pagingFields, pageId: '--page' },
  async run(values) {
    const response = await client(values).reports.listStatusReports({
      filter: values.all ? 'all' : 'active',
      pageId: str(values, 'page'),
      ...pagingOf(values),
    });
    const statusReports = response.statusReports.map(reportWords);
    const pagination = paginationOf(response.pagination);
    if (values.json) return printJson({ statusReports, pagination });
    printTable(
      ['ID', 'PAGE', 'TITLE', 'STATUS', 'COMPONENTS', 'UPDATED'],
      statusReports.map((r) => [r.id, r.pageId, r.title, r.status, componentsText(r.pageComponentIds), r.updatedAt]),
    );
    printPaging(statusReports.length, pagination, values.all ? 'reports' : 'unresolved reports');
  },
};

const reportsGet: Command = {
  usage: 'reports get ID [--api-url URL] [--json]',
  summary: 'show a status report with all its updates',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { statusReport } = await client(values).reports.getStatusReport({ id: id! });
    const shown = reportWords(statusReport!);
    if (values.json) return printJson(shown);
    printReport(shown);
    process.stdout.write('\n');
    printTable(
      ['PUBLISHED', 'STATUS', 'MESSAGE'],
      shown.updates.map((u) => [u.createdAt, u.status, u.message]),
    );
  },
};

const reportsDelete: Command = {
  usage: 'reports delete ID [--api-url URL]',
  summary: 'delete a status report and its updates',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).reports.deleteStatusReport({ id: id! });
    note(`Deleted status report ${id}.`);
  },
};

// ---- maintenance ---------------------------------------------------------------------------------

/** The flags of a repeating window (`--repeat weekly|monthly|cron` and its parts). */
const repeatFlags = {
  repeat: { type: 'string', valueName: 'KIND', description: 'repeat the window: weekly, monthly or cron' },
  days: { type: 'string', valueName: 'DAYS', description: 'weekly: the days, e.g. mon,thu' },
  time: { type: 'string', valueName: 'HH:MM', description: 'weekly, monthly: the local start time' },
  'day-of-month': { type: 'string', valueName: 'N', description: 'monthly: the day of the month, 1 to 31' },
  week: { type: 'string', valueName: 'WEEK', description: 'monthly: first, second, third, fourth or last (with --weekday)' },
  weekday: { type: 'string', valueName: 'DAY', description: 'monthly: the weekday, e.g. mon (with --week)' },
  cron: { type: 'string', valueName: 'EXPR', description: 'cron: five fields, e.g. "0 2 * * 6"' },
  duration: { type: 'string', valueName: 'PERIOD', description: 'how long each occurrence lasts, e.g. 90m or 2h' },
  'time-zone': { type: 'string', valueName: 'ZONE', description: 'the IANA time zone of the rule, e.g. Europe/Paris (default UTC)' },
  until: { type: 'string', valueName: 'ISO', description: 'no occurrence starts after this' },
} as const satisfies Options;
const repeatFields = {
  repeat: '--repeat',
  'repeat.kind': '--repeat',
  'repeat.days': '--days',
  'repeat.time': '--time',
  'repeat.dayOfMonth': '--day-of-month',
  'repeat.week': '--week',
  'repeat.weekday': '--weekday',
  'repeat.cron': '--cron',
  'repeat.durationMinutes': '--duration',
  'repeat.timeZone': '--time-zone',
  'repeat.until': '--until',
};

/** The rule the flags give, or undefined without --repeat. */
function repeatOfFlags(values: Values) {
  const kind = str(values, 'repeat');
  const parts = ['days', 'time', 'day-of-month', 'week', 'weekday', 'cron', 'duration', 'time-zone', 'until'];
  if (kind === undefined) {
    const stray = parts.find((p) => str(values, p) !== undefined);
    if (stray) throw new UsageError(`--${stray} needs --repeat weekly, monthly or cron`);
    return undefined;
  }
  const duration = str(values, 'duration');
  if (duration === undefined) throw new UsageError('--duration is required with --repeat, e.g. 90m or 2h');
  const ms = periodMs(duration);
  if (ms === undefined || ms % 60_000 !== 0) throw new UsageError(`--duration must be a period like 90m, 2h or 1h30m, got "${duration}"`);
  return {
    kind,
    days: (str(values, 'days') ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
    time: str(values, 'time') ?? '',
    dayOfMonth: int32('day-of-month', str(values, 'day-of-month')) ?? 0,
    week: str(values, 'week') ?? '',
    weekday: str(values, 'weekday') ?? '',
    cron: str(values, 'cron') ?? '',
    durationMinutes: Math.min(ms / 60_000, 2_147_483_647),
    timeZone: str(values, 'time-zone') ?? 'UTC',
    until: str(values, 'until') ?? '',
  };
}

/** A rule in one line, e.g. `weekly sat 02:30 for 60 min (Europe/Paris)`. */
function repeatText(r: NonNullable<MaintenanceShown['repeat']>): string {
  const when =
    r.kind === 'weekly'
      ? `${r.days?.join(',')} ${r.time}`
      : r.kind === 'monthly'
        ? `${r.dayOfMonth !== undefined ? `day ${r.dayOfMonth}` : `${r.week} ${r.weekday}`} ${r.time}`
        : `"${r.cron}"`;
  return `${r.kind} ${when} for ${r.durationMinutes} min (${r.timeZone})${r.until ? ` until ${r.until}` : ''}`;
}

function printMaintenance(maintenance: MaintenanceShown, extra: [string, string][] = []): void {
  printFields([
    ['id', maintenance.id],
    ['page', maintenance.pageId],
    ['title', maintenance.title],
    ['message', maintenance.message],
    ['from', maintenance.from],
    ['to', maintenance.to],
    ['components', componentsText(maintenance.pageComponentIds)],
    ['status', maintenance.status],
    ['created', maintenance.createdAt],
    ['updated', maintenance.updatedAt],
    ...(maintenance.repeat
      ? ([
          ['repeats', repeatText(maintenance.repeat)],
          ['next', (maintenance.nextOccurrences ?? []).map((o) => `${o.from}–${o.to}`).join(', ') || 'none'],
        ] as [string, string][])
      : []),
    ...extra,
  ]);
}

const maintenanceCreate: Command = {
  usage:
    'maintenance create --page PAGE --title T (--from ISO --to ISO | [--from ISO] --repeat weekly|monthly|cron --duration PERIOD [--days D,D] [--time HH:MM] [--day-of-month N] [--week W --weekday D] [--cron EXPR] [--time-zone ZONE] [--until ISO]) [--message M] [--component ID]... (--notify | --no-notify) [--api-url URL] [--json]',
  summary: 'announce a maintenance window on a status page',
  options: {
    ...connection,
    ...notifyFlags,
    ...pageFlag,
    title: { type: 'string', valueName: 'TITLE', description: 'what the maintenance is called' },
    from: { type: 'string', valueName: 'ISO', description: 'when it starts, e.g. 2026-05-01T22:00:00Z' },
    to: { type: 'string', valueName: 'ISO', description: 'when it ends' },
    message: { type: 'string', valueName: 'TEXT', description: 'what is published about it' },
    ...componentFlag,
    ...repeatFlags,
  },
  fields: fieldFlags({
    pageId: '--page',
    title: '--title',
    message: '--message',
    pageComponentIds: '--component',
    from: '--from',
    to: '--to',
    ...repeatFields,
  }),
  async run(values) {
    const notify = notifyOf(values);
    const repeat = repeatOfFlags(values);
    const response = await client(values).maintenances.createMaintenance({
      pageId: required(values, 'page'),
      title: required(values, 'title'),
      from: repeat ? (str(values, 'from') ?? '') : required(values, 'from'),
      to: repeat ? (str(values, 'to') ?? '') : required(values, 'to'),
      ...(repeat && { repeat }),
      message: str(values, 'message') ?? '',
      pageComponentIds: list(values, 'component'),
      notify,
    });
    const maintenance = maintenanceWords(response.maintenance!);
    if (values.json) return printJson({ maintenance, notified: response.notified });
    printMaintenance(maintenance, [['notified', String(response.notified)]]);
    notifiedNote(notify, response.notified, 'maintenance window');
  },
};

const maintenanceList: Command = {
  usage: 'maintenance list [--page PAGE] [--page-number N] [--per-page N] [--api-url URL] [--json]',
  summary: 'list the maintenance windows',
  options: { ...connection, ...paging, ...pageFlag },
  fields: { ...pagingFields, pageId: '--page' },
  async run(values) {
    const response = await client(values).maintenances.listMaintenances({ pageId: str(values, 'page'), ...pagingOf(values) });
    const maintenances = response.maintenances.map(maintenanceWords);
    const pagination = paginationOf(response.pagination);
    if (values.json) return printJson({ maintenances, pagination });
    printTable(
      ['ID', 'PAGE', 'TITLE', 'FROM', 'TO', 'STATUS', 'COMPONENTS'],
      maintenances.map((m) => [m.id, m.pageId, m.title, m.from, m.to, m.status, componentsText(m.pageComponentIds)]),
    );
    printPaging(maintenances.length, pagination, 'maintenance windows');
  },
};

const maintenanceGet: Command = {
  usage: 'maintenance get ID [--api-url URL] [--json]',
  summary: 'show a maintenance window',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { maintenance } = await client(values).maintenances.getMaintenance({ id: id! });
    const shown = maintenanceWords(maintenance!);
    if (values.json) return printJson(shown);
    printMaintenance(shown);
  },
};

const maintenanceDelete: Command = {
  usage: 'maintenance delete ID [--api-url URL]',
  summary: 'delete a maintenance window',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).maintenances.deleteMaintenance({ id: id! });
    note(`Deleted maintenance window ${id}.`);
  },
};

export const reportCommands: Record<string, Command> = {
  'reports create': reportsCreate,
  'reports update-status': reportsUpdateStatus,
  'reports resolve': reportsResolve,
  'reports edit': reportsEdit,
  'reports list': reportsList,
  'reports get': reportsGet,
  'reports delete': reportsDelete,
  'maintenance create': maintenanceCreate,
  'maintenance list': maintenanceList,
  'maintenance get': maintenanceGet,
  'maintenance delete': maintenanceDelete,
};
