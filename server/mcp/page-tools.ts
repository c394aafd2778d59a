import { z } from 'zod';
import { reportStatuses } from '../domain/notifications/events.ts';
import { notifyRule } from '../domain/notifications/publish.ts';
import type { StatusPage } from '../domain/pages/pages.ts';
import { defineTool, EDIT, pageInput, pagination, PUBLISH, READ, record } from './tool.ts';

const id = (what: string) => z.union([z.string().min(1), z.number().int().positive()]).describe(what);
const pageId = id('A status page id or slug, from list_status_pages.');
const componentIds = z
  .array(z.union([z.string().min(1), z.number().int().positive()]))
  .max(100)
  .describe('Page component ids of the same page, from list_page_components. Empty or left out: none.');
const reportStatus = z.enum(reportStatuses);
const notify = z
  .boolean({ error: (issue) => (issue.input === undefined ? notifyRule : 'must be true or false') })
  .describe('Required, no default. true sends this update to the page subscribers; false publishes it silently, and it can never be sent later.');
const notified = z
  .boolean()
  .describe(
    'true when the subscriber dispatch returned without error (or the plan has no subscriber notifications); false when notify was false or the dispatch failed. The record is kept either way.',
  );

const statusPage = record({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  url: z.string().describe('The public address of the page.'),
  accentColor: z.string().nullable().describe('The heading band colour, #rrggbb; null: none.'),
  websiteUrl: z.string().nullable().describe("The link back to the owner's site; null: none."),
  logo: record({ type: z.string().nullable(), bytes: z.number() }).nullable().describe("The logo's type and size; null: no logo."),
  customDomain: z.string().nullable().describe('A host name that also serves the page at /; null: none.'),
  formerSlug: z.string().nullable().describe('The slug before the last change of slug; /status/{formerSlug} forwards to the page.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A page as the tools show it: the logo by its type and size, not its bytes. */
const shownPage = ({ logo, logoType, ...page }: StatusPage) => ({
  ...page,
  logo: logo === null ? null : { type: logoType, bytes: logo.length },
});

const component = record({
  id: z.string().describe('Use as a pageComponentId.'),
  pageId: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(['monitor', 'static']),
  monitorId: z.string().nullable().describe('The linked monitor (type monitor); null for a static component.'),
  group: z.string().nullable(),
  position: z.number(),
});

const statusReport = record({
  id: z.string(),
  pageId: z.string(),
  title: z.string(),
  status: reportStatus,
  resolved: z.boolean(),
  pageComponentIds: z.array(z.string()),
  updates: z.array(record({ id: z.string(), status: reportStatus, message: z.string(), createdAt: z.string() })).describe('The public timeline, newest first.'),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

const maintenance = record({
  id: z.string(),
  pageId: z.string(),
  title: z.string(),
  message: z.string(),
  from: z.string(),
  to: z.string(),
  pageComponentIds: z.array(z.string()).describe('Empty: the whole page.'),
  status: z.enum(['scheduled', 'active', 'completed']),
  repeat: z.record(z.string(), z.unknown()).optional().describe('How the window repeats (kind weekly, monthly or cron). Absent: a one-off window.'),
  nextOccurrences: z
    .array(record({ from: z.string(), to: z.string() }))
    .optional()
    .describe("A repeating window's occurrence under way and the next ones (at most 5), UTC."),
});

const weekday = z.enum(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);
const repeatRule = z
  .object({
    kind: z.enum(['weekly', 'monthly', 'cron']),
    days: z.array(weekday).optional().describe('weekly: the days it starts on.'),
    dayOfMonth: z.number().int().optional().describe('monthly: the day of the month, 1 to 31 (a month without that day has none).'),
    week: z
      .enum(['first', 'second', 'third', 'fourth', 'last'])
      .optional()
      .describe('monthly, instead of dayOfMonth: which weekday of the month, with weekday.'),
    weekday: weekday.optional(),
    time: z.string().optional().describe('weekly, monthly: the local start time, HH:MM.'),
    cron: z.string().optional().describe('cron: five fields, e.g. "0 2 * * 6", read in timeZone.'),
    durationMinutes: z.number().int().describe('How long each occurrence lasts, 1 to 10080 minutes.'),
    timeZone: z.string().describe('IANA time zone, e.g. Europe/Paris.'),
    until: z.string().optional().describe('No occurrence starts after this, ISO 8601 with a time zone.'),
  })
  .describe('Makes the window repeat; each occurrence holds alerts and shows on the page as a one-off window does.');

const reportId = id('A status report id, from list_status_reports or create_status_report.');
const pageRef = (ref: string | number) => String(ref);
const ids = (list: (string | number)[] | undefined) => list?.map(String);

export const pageTools = [
  defineTool({
    name: 'list_status_pages',
    title: 'List status pages',
    description: 'Every status page of the workspace (not paginated), with its id and slug. Start here: pageId of the other tools comes from this list.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({}),
    output: z.object({ statusPages: z.array(statusPage) }),
    async run({ actor, workspaceId, services }) {
      return { statusPages: (await services.pages.list(actor, workspaceId)).map(shownPage) };
    },
  }),
  defineTool({
    name: 'list_page_components',
    title: 'List page components',
    description: 'The components of one status page: id (a pageComponentId), name, type (monitor or static) and linked monitor.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({ pageId }),
    output: z.object({ components: z.array(component) }),
    async run({ actor, workspaceId, services }, args) {
      return { components: await services.pages.listComponents(actor, workspaceId, pageRef(args.pageId)) };
    },
  }),
  defineTool({
    name: 'list_status_reports',
    title: 'List status reports',
    description: 'Status reports newest first, with their public updates. filter active (default) leaves out resolved reports; all includes them.',
    access: 'read',
    annotations: READ,
    input: z.strictObject({
      pageId: pageId.optional().describe('Only the reports of this page (id or slug). Left out: every page.'),
      filter: z.enum(['active', 'all']).default('active').describe('active (default): unresolved reports only. all: every report.'),
      ...pageInput(200),
    }),
    output: z.object({ statusReports: z.array(statusReport), pagination }),
    async run({ actor, workspaceId, services }, args) {
      const { reports, pagination } = await services.reports.list(actor, workspaceId, {
        ...args,
        pageId: args.pageId === undefined ? undefined : pageRef(args.pageId),
      });
      return { statusReports: reports, pagination };
    },
  }),
  defineTool({
    name: 'create_status_report',
    title: 'Create a status report',
    description:
      'Opens a status report on a page with its first public update. Look up pageId with list_status_pages and pageComponentIds with list_page_components first. notify is required: true tells the page subscribers.',
    access: 'write',
    annotations: PUBLISH,
    input: z.strictObject({
      pageId: id('The status page id or slug, from list_status_pages.'),
      title: z.string().min(1).max(200).describe('What is happening, in a few words.'),
      status: reportStatus.default('investigating').describe('investigating (default), identified, monitoring or resolved.'),
      message: z.string().min(1).max(10_000).describe('The first public update: what users see on the page and in the notification.'),
      pageComponentIds: componentIds.optional(),
      notify,
    }),
    output: z.object({ statusReport, notified }),
    async run({ actor, workspaceId, services }, args) {
      const { report, notified } = await services.reports.create(actor, workspaceId, {
        ...args,
        pageId: pageRef(args.pageId),
        pageComponentIds: ids(args.pageComponentIds),
      });
      return { statusReport: report, notified };
    },
  }),
  defineTool({
    name: 'add_status_report_update',
    title: 'Add a status report update',
    description: 'Appends a public update to a report and sets its status (status resolved resolves it). notify is required: true tells the page subscribers.',
    access: 'write',
    annotations: PUBLISH,
    input: z.strictObject({
      statusReportId: reportId,
      status: reportStatus.describe('The status after this update: investigating, identified, monitoring or resolved.'),
      message: z.string().min(1).max(10_000).describe('The public update text.'),
      notify,
    }),
    output: z.object({ statusReport, notified }),
    async run({ actor, workspaceId, services }, { statusReportId, ...update }) {
      const { report, notified } = await services.reports.addUpdate(actor, workspaceId, String(statusReportId), update);
      return { statusReport: report, notified };
    },
  }),
  defineTool({
    name: 'update_status_report',
    title: 'Edit a status report',
    description:
      'Edits the title, status or affected components of a report. Adds no public update and notifies nobody; to tell users something, use add_status_report_update.',
    access: 'write',
    annotations: EDIT,
    input: z.strictObject({
      statusReportId: reportId,
      title: z.string().min(1).max(200).optional().describe('The new title.'),
      status: reportStatus.optional().describe('The new status, without a public update.'),
      pageComponentIds: componentIds.optional().describe('The new list of affected components (replaces the old one).'),
    }),
    output: z.object({ statusReport }),
    async run({ actor, workspaceId, services }, { statusReportId, ...patch }) {
      return {
        statusReport: await services.reports.update(actor, workspaceId, String(statusReportId), { ...patch, pageComponentIds: ids(patch.pageComponentIds) }),
      };
    },
  }),
  defineTool({
    name: 'resolve_status_report',
    title: 'Resolve a status report',
    description: 'Resolves a report with a final public update. notify is required: true sends the resolution to the page subscribers.',
    access: 'write',
    annotations: PUBLISH,
    input: z.strictObject({
      statusReportId: reportId,
      message: z.string().min(1).max(10_000).describe('The final public update.'),
      notify,
    }),
    output: z.object({ statusReport, notified }),
    async run({ actor, workspaceId, services }, { statusReportId, ...update }) {
      const { report, notified } = await services.reports.resolve(actor, workspaceId, String(statusReportId), update);
      return { statusReport: report, notified };
    },
  }),
  defineTool({
    name: 'list_maintenances',
    title: 'List maintenance windows',
    description: 'Maintenance windows newest first (the latest start first), each with its status (scheduled, active or completed).',
    access: 'read',
    annotations: READ,
    input: z.strictObject({
      pageId: pageId.optional().describe('Only the windows of this page (id or slug). Left out: every page.'),
      ...pageInput(200),
    }),
    output: z.object({ maintenances: z.array(maintenance), pagination }),
    async run({ actor, workspaceId, services }, args) {
      return services.maintenances.list(actor, workspaceId, { ...args, pageId: args.pageId === undefined ? undefined : pageRef(args.pageId) });
    },
  }),
  defineTool({
    name: 'create_maintenance',
    title: 'Schedule a maintenance window',
    description:
      'Schedules a maintenance window on a page. While it is active its components show maintenance and alerts for their monitors are held back. notify is required: true tells the page subscribers it is scheduled.',
    access: 'write',
    annotations: PUBLISH,
    input: z.strictObject({
      pageId: id('The status page id or slug, from list_status_pages.'),
      title: z.string().min(1).max(200).describe('What the maintenance is.'),
      message: z.string().max(10_000).optional().describe('More detail for the page and the notification.'),
      from: z
        .string()
        .optional()
        .describe('Start, ISO 8601 with a time zone, e.g. 2026-12-01T22:00:00Z. With repeat: optional, when the repetition begins (default now).'),
      to: z.string().optional().describe('End, ISO 8601 with a time zone; after from. Required without repeat; left out with repeat.'),
      pageComponentIds: componentIds.optional().describe('The affected components of that page. Left out: the whole page.'),
      repeat: repeatRule.optional(),
      notify,
    }),
    output: z.object({ maintenance, notified }),
    async run({ actor, workspaceId, services }, args) {
      return services.maintenances.create(actor, workspaceId, { ...args, pageId: pageRef(args.pageId), pageComponentIds: ids(args.pageComponentIds) });
    },
  }),
];
