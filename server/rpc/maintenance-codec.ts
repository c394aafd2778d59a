import { create } from '@bufbuild/protobuf';
import {
  type Maintenance as MaintenanceMessage,
  type MaintenanceRepeat,
  MaintenanceRepeatSchema,
  MaintenanceSchema,
  OccurrenceSchema,
} from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { Maintenance } from '../domain/maintenance/maintenances.ts';
import type { RepeatRule } from '../domain/maintenance/occurrences.ts';
import { isoOf } from './monitor-codec.ts';
import { timestamp } from './page-codec.ts';

/** The codec of maintenance.v1: a window to its message, and its message in the words of the flags and MCP. No rules here. */

export function toMaintenanceMessage(maintenance: Maintenance): MaintenanceMessage {
  return create(MaintenanceSchema, {
    id: maintenance.id,
    pageId: maintenance.pageId,
    title: maintenance.title,
    message: maintenance.message,
    from: maintenance.from,
    to: maintenance.to,
    pageComponentIds: maintenance.pageComponentIds,
    status: maintenance.status,
    createdAt: timestamp(maintenance.createdAt),
    updatedAt: timestamp(maintenance.updatedAt),
    ...(maintenance.repeat && {
      repeat: create(MaintenanceRepeatSchema, { ...maintenance.repeat, days: maintenance.repeat.days ?? [] }),
      nextOccurrences: (maintenance.nextOccurrences ?? []).map((o) => create(OccurrenceSchema, o)),
    }),
  });
}

/** A rule off the wire: proto3's empty values are "not given". */
export function repeatOf(message: MaintenanceRepeat | undefined): RepeatRule | undefined {
  if (!message) return undefined;
  const given = {
    kind: message.kind,
    days: message.days.length === 0 ? undefined : [...message.days],
    dayOfMonth: message.dayOfMonth === 0 ? undefined : message.dayOfMonth,
    week: message.week || undefined,
    weekday: message.weekday || undefined,
    time: message.time || undefined,
    cron: message.cron || undefined,
    durationMinutes: message.durationMinutes,
    timeZone: message.timeZone,
    until: message.until || undefined,
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as unknown as RepeatRule;
}

/** A rule in the words of the flags and MCP: only the parts it has. */
export const repeatWords = (r: MaintenanceRepeat) => repeatOf(r)!;

/** A window in the words of the flags and MCP (see page-codec.ts). */
export const maintenanceWords = (m: MaintenanceMessage) => ({
  id: m.id,
  pageId: m.pageId,
  title: m.title,
  message: m.message,
  from: m.from,
  to: m.to,
  pageComponentIds: [...m.pageComponentIds],
  status: m.status,
  createdAt: isoOf(m.createdAt),
  updatedAt: isoOf(m.updatedAt),
  ...(m.repeat && { repeat: repeatWords(m.repeat), nextOccurrences: m.nextOccurrences.map(({ from, to }) => ({ from, to })) }),
});
