// The models of a status page's forms in Node (components, status reports, maintenance windows):
// what each form holds and the request it becomes, checked against the generated schemas by
// encoding it as the client does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { create, toJson } from '@bufbuild/protobuf';
import { UpdateMaintenanceRequestSchema, CreateMaintenanceRequestSchema, MaintenanceRepeatSchema } from '../proto/gen/maintenance/v1/maintenance_pb.js';
import { AddPageComponentRequestSchema, PageComponentSchema, UpdatePageComponentRequestSchema } from '../proto/gen/status_page/v1/status_page_pb.js';
import {
  AddStatusReportUpdateRequestSchema,
  CreateStatusReportRequestSchema,
  ResolveStatusReportRequestSchema,
  StatusReportStatus,
} from '../proto/gen/status_report/v1/status_report_pb.js';
import { addComponentRequest, componentFormOf, updateComponentRequest } from '../renderer/src/screens/page-component-model.ts';
import {
  createMaintenanceRequest,
  instantOfLocal,
  localInputValue,
  maintenanceFormOf,
  updateMaintenanceRequest,
} from '../renderer/src/screens/page-maintenance-model.ts';
import {
  createReportRequest,
  newReportForm,
  reportUpdateFormOf,
  reportUpdateRequest,
  resolveReportRequest,
} from '../renderer/src/screens/page-report-model.ts';

describe('the models of the page forms', () => {
  test('a component: a new one without a monitor or a group leaves both out; an edit sends every field, the empty string clearing one', () => {
    const form = { ...componentFormOf(), name: ' API ', group: '  ' };
    assert.deepEqual(toJson(AddPageComponentRequestSchema, create(AddPageComponentRequestSchema, addComponentRequest('4', form))), {
      pageId: '4',
      name: 'API',
    });
    const stored = create(PageComponentSchema, { id: '9', name: 'Search', description: 'Product search', monitorId: '3', group: 'Web' });
    const edited = { ...componentFormOf(stored), monitorId: '', group: ' Shop ' };
    assert.deepEqual(toJson(UpdatePageComponentRequestSchema, create(UpdatePageComponentRequestSchema, updateComponentRequest('9', edited))), {
      id: '9',
      name: 'Search',
      description: 'Product search',
      monitorId: '',
      group: 'Shop',
    });
  });

  test('a status report: trimmed text, the affected components and the notify choice made; an update of a resolved report starts from Monitoring', () => {
    const form = { ...newReportForm(), title: ' Slow API ', message: ' Looking into it. ', pageComponentIds: ['2'], notify: false };
    assert.deepEqual(toJson(CreateStatusReportRequestSchema, create(CreateStatusReportRequestSchema, createReportRequest('4', form))), {
      pageId: '4',
      title: 'Slow API',
      status: 'STATUS_REPORT_STATUS_INVESTIGATING',
      message: 'Looking into it.',
      pageComponentIds: ['2'],
      notify: false,
    });
    assert.equal(reportUpdateFormOf(StatusReportStatus.RESOLVED).status, StatusReportStatus.MONITORING);
    assert.equal(reportUpdateFormOf(StatusReportStatus.IDENTIFIED).notify, undefined, 'nobody chooses for the person');
    const update = { ...reportUpdateFormOf(StatusReportStatus.IDENTIFIED, ' Fixed. '), notify: true };
    assert.deepEqual(toJson(AddStatusReportUpdateRequestSchema, create(AddStatusReportUpdateRequestSchema, reportUpdateRequest('8', update))), {
      id: '8',
      status: 'STATUS_REPORT_STATUS_IDENTIFIED',
      message: 'Fixed.',
      notify: true,
    });
    assert.deepEqual(toJson(ResolveStatusReportRequestSchema, create(ResolveStatusReportRequestSchema, resolveReportRequest('8', update))), {
      id: '8',
      message: 'Fixed.',
      notify: true,
    });
  });

  test('a maintenance window: local wall times become UTC instants, a new one starts at the next whole hour for an hour, and an edit names every field in the mask', () => {
    const instant = '2031-01-10T22:00:00Z';
    assert.equal(instantOfLocal(localInputValue(instant)), instant, 'a stored instant shown and read back is the same instant');
    assert.equal(instantOfLocal(''), '');
    assert.equal(instantOfLocal('not a time'), '');

    const fresh = maintenanceFormOf(undefined, Date.parse('2031-01-10T21:10:00Z'));
    assert.deepEqual([instantOfLocal(fresh.from), instantOfLocal(fresh.to), fresh.notify], ['2031-01-10T22:00:00Z', '2031-01-10T23:00:00Z', undefined]);
    const created = createMaintenanceRequest('4', { ...fresh, title: ' Upgrade ' });
    assert.deepEqual(toJson(CreateMaintenanceRequestSchema, create(CreateMaintenanceRequestSchema, created)), {
      pageId: '4',
      title: 'Upgrade',
      from: '2031-01-10T22:00:00Z',
      to: '2031-01-10T23:00:00Z',
      notify: false,
    });

    const stored = { title: 'Upgrade', message: 'Short.', from: instant, to: '2031-01-10T23:30:00Z', pageComponentIds: ['2'] };
    const edited = { ...maintenanceFormOf(stored), pageComponentIds: [] };
    const request = updateMaintenanceRequest('6', edited);
    // `repeat` is named unset: a one-off window stays one.
    assert.deepEqual(request.updateMask?.paths, ['title', 'message', 'from', 'to', 'page_component_ids', 'repeat']);
    assert.deepEqual(toJson(UpdateMaintenanceRequestSchema, create(UpdateMaintenanceRequestSchema, request)), {
      id: '6',
      title: 'Upgrade',
      message: 'Short.',
      from: instant,
      to: '2031-01-10T23:30:00Z',
      updateMask: 'title,message,from,to,pageComponentIds,repeat',
    });
  });

  test('a repeating maintenance window: the Repeats choice becomes a rule, `to` is left out, and an edit does not name it', () => {
    const fresh = maintenanceFormOf(undefined, Date.parse('2031-01-10T21:10:00Z'), 'Europe/Paris');
    assert.deepEqual([fresh.repeats, fresh.timeZone, fresh.durationMinutes], ['none', 'Europe/Paris', '60']);
    const weekly = { ...fresh, title: 'Backups', repeats: 'weekly' as const, days: ['sat', 'sun'], time: '02:30', durationMinutes: '90' };
    const created = toJson(CreateMaintenanceRequestSchema, create(CreateMaintenanceRequestSchema, createMaintenanceRequest('4', weekly))) as Record<
      string,
      unknown
    >;
    assert.equal(created.to, undefined);
    assert.deepEqual(created.repeat, { kind: 'weekly', days: ['sat', 'sun'], time: '02:30', durationMinutes: 90, timeZone: 'Europe/Paris' });

    const stored = {
      title: 'Backups',
      message: '',
      from: '2031-01-11T01:30:00Z',
      to: '2031-01-11T03:00:00Z',
      pageComponentIds: [],
      repeat: create(MaintenanceRepeatSchema, { kind: 'monthly', dayOfMonth: 31, time: '03:00', durationMinutes: 45, timeZone: 'UTC' }),
    };
    const form = maintenanceFormOf(stored);
    assert.deepEqual([form.repeats, form.dayOfMonth, form.time, form.durationMinutes, form.timeZone], ['monthly', '31', '03:00', '45', 'UTC']);
    const request = updateMaintenanceRequest('6', form);
    assert.deepEqual(request.updateMask?.paths, ['title', 'message', 'from', 'page_component_ids', 'repeat']);
    assert.equal(request.to, undefined);
  });
});
