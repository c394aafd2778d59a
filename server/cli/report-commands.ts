import { type DescMessage, type JsonObject, type MessageShape, toJson } from '@bufbuild/protobuf';
import { maintenanceV1, statusReportV1 } from '../../client/index.ts';
import {
  address,
  client,
  type Command,
  connection,
  int32,
  list,
  note,
  notifyFlags,
  notifyOf,
  oneOf,
  printFields,
  printJsonMessage,
  required,
  str,
  timeText,
  type Values,
} from './flags.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk reports ...` and `statusdesk maintenance ...`: what is published on status pages,
 * through the client library (status_report.v1, maintenance.v1). Every publishing command must
 * say whether the page's subscribers are told: --notify or --no-notify.
 */

const { StatusReportStatus } = statusReportV1;
type StatusReport = statusReportV1.StatusReport;
type Maintenance = maintenanceV1.Maintenance;

const statuses = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
const statusOf = (value: string) => StatusReportStatus[oneOf('status', value, statuses).toUpperCase() as 'INVESTIGATING'];
const statusText = (status: statusReportV1.StatusReportStatus) => (StatusReportStatus[status] ?? '-').toLowerCase();
const componentsText = (ids: string[]) => (ids.length === 0 ? '(whole page)' : ids.join(','));

/** The JSON of a publishing call's answer: `notified` is there even when false (proto3 JSON leaves false out). */
function printPublished<D extends DescMessage>(schema: D, response: MessageShape<D> & { notified: boolean }): void {
  printJson({ ...(toJson(schema, response) as JsonObject), notified: response.notified });
}

/** A note when subscribers were to be told and were not: the record is stored all the same. */
function notifiedNote(notify: boolean, notified: boolean, what: string): void {
  if (notify && !notified) note(`The ${what} was stored, but telling the page's subscribers failed.`);
}

function printReport(report: StatusReport, extra: [string, string][] = []): void {
  const latest = report.updates[0];
  printFields([
    ['id', report.id],
    ['page', report.pageId],
    ['title', report.title],
    ['status', statusText(report.status)],
    ['resolved', String(report.resolved)],
    ['components', componentsText(report.pageComponentIds)],
    ['updates', String(report.updates.length)],
    ['latest update', latest ? `${timeText(latest.createdAt)} ${statusText(latest.status)}: ${latest.message}` : undefined],
    ['created', timeText(report.createdAt)],
    ['updated', timeText(report.updatedAt)],
    ['resolved at', report.resolvedAt ? timeText(report.resolvedAt) : undefined],
    ...extra,
  ]);
}

function printPaging(shown: number, pagination: { page: number; totalPages: number; totalSize: number } | undefined, noun: string): void {
  if (!pagination) return;
  note(`${shown} of ${pagination.totalSize} ${noun} (page ${pagination.page} of ${Math.max(pagination.totalPages, 1)})`);
}

const paging = { 'page-number': { type: 'string' }, 'per-page': { type: 'string' } } as const;
const pagingOf = (values: Values) => ({ page: int32('page-number', str(values, 'page-number')) ?? 0, perPage: int32('per-page', str(values, 'per-page')) ?? 0 });

// ---- reports -------------------------------------------------------------------------------------

const reportsCreate: Command = {
  usage:
    'reports create --page PAGE --title T --message M [--status investigating|identified|monitoring|resolved] [--component ID]... (--notify | --no-notify) [--url URL] [--json]',
  options: {
    ...connection,
    ...notifyFlags,
    page: { type: 'string' },
    title: { type: 'string' },
    message: { type: 'string' },
    status: { type: 'string' },
    component: { type: 'string', multiple: true },
  },
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
    if (values.json) return printPublished(statusReportV1.CreateStatusReportResponseSchema, response);
    printReport(response.statusReport!, [['notified', String(response.notified)]]);
    notifiedNote(notify, response.notified, 'report');
  },
};

const reportsUpdateStatus: Command = {
  usage: 'reports update-status ID --status investigating|identified|monitoring|resolved --message M (--notify | --no-notify) [--url URL] [--json]',
  options: { ...connection, ...notifyFlags, status: { type: 'string' }, message: { type: 'string' } },
  positionals: 1,
  async run(values, [id]) {
    const notify = notifyOf(values);
    const response = await client(values).reports.addStatusReportUpdate({
      id: id!,
      status: statusOf(required(values, 'status')),
      message: required(values, 'message'),
      notify,
    });
    if (values.json) return printPublished(statusReportV1.AddStatusReportUpdateResponseSchema, response);
    printReport(response.statusReport!, [['notified', String(response.notified)]]);
    notifiedNote(notify, response.notified, 'update');
  },
};

const reportsResolve: Command = {
  usage: 'reports resolve ID --message M (--notify | --no-notify) [--url URL] [--json]',
  options: { ...connection, ...notifyFlags, message: { type: 'string' } },
  positionals: 1,
  async run(values, [id]) {
    const notify = notifyOf(values);
    const response = await client(values).reports.resolveStatusReport({ id: id!, message: required(values, 'message'), notify });
    if (values.json) return printPublished(statusReportV1.ResolveStatusReportResponseSchema, response);
    printReport(response.statusReport!, [['notified', String(response.notified)]]);
    notifiedNote(notify, response.notified, 'resolution');
  },
};

const reportsEdit: Command = {
  usage:
    'reports edit ID [--title T] [--status investigating|identified|monitoring|resolved] [--component ID]... [--clear-components] [--url URL] [--json]   (corrects the report without an update; nobody is told)',
  options: { ...connection, title: { type: 'string' }, status: { type: 'string' }, component: { type: 'string', multiple: true }, 'clear-components': { type: 'boolean' } },
  positionals: 1,
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
    if (values.json) return printJsonMessage(statusReportV1.StatusReportSchema, statusReport!);
    printReport(statusReport!);
  },
};

const reportsList: Command = {
  usage: 'reports list [--all] [--page PAGE] [--page-number N] [--per-page N] [--url URL] [--json]   (unresolved reports unless --all)',
  options: { ...connection, ...paging, all: { type: 'boolean' }, page: { type: 'string' } },
  async run(values) {
    const response = await client(values).reports.listStatusReports({
      filter: values.all ? 'all' : 'active',
      pageId: str(values, 'page'),
      ...pagingOf(values),
    });
    if (values.json) return printJsonMessage(statusReportV1.ListStatusReportsResponseSchema, response);
    printTable(
      ['ID', 'PAGE', 'TITLE', 'STATUS', 'COMPONENTS', 'UPDATED'],
      response.statusReports.map((r) => [r.id, r.pageId, r.title, statusText(r.status), componentsText(r.pageComponentIds), timeText(r.updatedAt)]),
    );
    printPaging(response.statusReports.length, response.pagination, values.all ? 'reports' : 'unresolved reports');
  },
};

const reportsGet: Command = {
  usage: 'reports get ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { statusReport } = await client(values).reports.getStatusReport({ id: id! });
    if (values.json) return printJsonMessage(statusReportV1.StatusReportSchema, statusReport!);
    printReport(statusReport!);
    process.stdout.write('\n');
    printTable(
      ['PUBLISHED', 'STATUS', 'MESSAGE'],
      statusReport!.updates.map((u) => [timeText(u.createdAt), statusText(u.status), u.message]),
    );
  },
};

const reportsDelete: Command = {
  usage: 'reports delete ID [--url URL]',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).reports.deleteStatusReport({ id: id! });
    note(`Deleted status report ${id}.`);
  },
};

// ---- maintenance ---------------------------------------------------------------------------------

function printMaintenance(maintenance: Maintenance, extra: [string, string][] = []): void {
  printFields([
    ['id', maintenance.id],
    ['page', maintenance.pageId],
    ['title', maintenance.title],
    ['message', maintenance.message],
    ['from', maintenance.from],
    ['to', maintenance.to],
    ['components', componentsText(maintenance.pageComponentIds)],
    ['status', maintenance.status],
    ['created', timeText(maintenance.createdAt)],
    ['updated', timeText(maintenance.updatedAt)],
    ...extra,
  ]);
}

const maintenanceCreate: Command = {
  usage: 'maintenance create --page PAGE --title T --from ISO --to ISO [--message M] [--component ID]... (--notify | --no-notify) [--url URL] [--json]',
  options: {
    ...connection,
    ...notifyFlags,
    page: { type: 'string' },
    title: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    message: { type: 'string' },
    component: { type: 'string', multiple: true },
  },
  async run(values) {
    const notify = notifyOf(values);
    const response = await client(values).maintenances.createMaintenance({
      pageId: required(values, 'page'),
      title: required(values, 'title'),
      from: required(values, 'from'),
      to: required(values, 'to'),
      message: str(values, 'message') ?? '',
      pageComponentIds: list(values, 'component'),
      notify,
    });
    if (values.json) return printPublished(maintenanceV1.CreateMaintenanceResponseSchema, response);
    printMaintenance(response.maintenance!, [['notified', String(response.notified)]]);
    notifiedNote(notify, response.notified, 'maintenance window');
  },
};

const maintenanceList: Command = {
  usage: 'maintenance list [--page PAGE] [--page-number N] [--per-page N] [--url URL] [--json]',
  options: { ...connection, ...paging, page: { type: 'string' } },
  async run(values) {
    const response = await client(values).maintenances.listMaintenances({ pageId: str(values, 'page'), ...pagingOf(values) });
    if (values.json) return printJsonMessage(maintenanceV1.ListMaintenancesResponseSchema, response);
    printTable(
      ['ID', 'PAGE', 'TITLE', 'FROM', 'TO', 'STATUS', 'COMPONENTS'],
      response.maintenances.map((m) => [m.id, m.pageId, m.title, m.from, m.to, m.status, componentsText(m.pageComponentIds)]),
    );
    printPaging(response.maintenances.length, response.pagination, 'maintenance windows');
  },
};

const maintenanceGet: Command = {
  usage: 'maintenance get ID [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { maintenance } = await client(values).maintenances.getMaintenance({ id: id! });
    if (values.json) return printJsonMessage(maintenanceV1.MaintenanceSchema, maintenance!);
    printMaintenance(maintenance!);
  },
};

const maintenanceDelete: Command = {
  usage: 'maintenance delete ID [--url URL]',
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
