import { create } from '@bufbuild/protobuf';
import { type Maintenance as MaintenanceMessage, MaintenanceSchema } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { Maintenance } from '../domain/maintenance/maintenances.ts';
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
  });
}

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
});
