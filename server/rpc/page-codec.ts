import type { FieldMask } from '@bufbuild/protobuf/wkt';
import type { Maintenance } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import type { NotificationChannel } from '../../proto/gen/notification/v1/notification_pb.js';
import { ComponentType, type PageComponent, type StatusPage, type Subscriber } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { type StatusReport, StatusReportStatus } from '../../proto/gen/status_report/v1/status_report_pb.js';
import type { PageComponent as DomainComponent } from '../domain/pages/pages.ts';
import { reportStatuses } from '../domain/notifications/events.ts';
import { AppError } from '../errors.ts';
import { enumPairs } from './enum-pairs.ts';
import { isoOf, timestamp } from './monitor-codec.ts';

/**
 * Wire helpers shared by the services of status pages, status reports, maintenances and
 * notification channels. No rules here: a wire value that means "not given" (the empty string, a
 * zero count, an empty list, an unspecified enum) becomes undefined, and the domain's validation
 * names the field if it is required.
 */

export { timestamp };

/** A page component's type: `monitor` (its health follows a monitor) or `static`. */
export const componentType = enumPairs(['monitor', 'static'] as const satisfies readonly DomainComponent['type'][], [ComponentType.MONITOR, ComponentType.STATIC]);

/** A status report's status: investigating, identified, monitoring, resolved. */
export const reportStatus = enumPairs(reportStatuses, [
  StatusReportStatus.INVESTIGATING,
  StatusReportStatus.IDENTIFIED,
  StatusReportStatus.MONITORING,
  StatusReportStatus.RESOLVED,
]);

/** A timestamp for a nullable domain time: absent when null. */
export const optionalTimestamp = (iso: string | null) => (iso === null ? undefined : timestamp(iso));

/** A plain proto3 string: the empty string is not given. */
export const text = (value: string): string | undefined => (value === '' ? undefined : value);

/** A plain proto3 int32 count (pages from 1, sizes from 1): zero is not given. */
export const count = (value: number): number | undefined => (value === 0 ? undefined : value);

/** A repeated field: the empty list is not given. */
export const list = <T>(values: T[]): T[] | undefined => (values.length === 0 ? undefined : [...values]);

/** One field of an update request: its value when given, and what naming it in update_mask with no value sends. */
export interface PatchField {
  /** The domain name the field is passed under. */
  name: string;
  /** The given value; undefined when the request leaves the field out. */
  value: unknown;
  /** The value sent when update_mask names the field but the request leaves it out. */
  empty: unknown;
}

/**
 * The domain patch of an update (AIP-134). Without update_mask, the given fields change. With
 * it, exactly the named ones do, and a named field left out is sent as its empty value (the
 * domain clears it, or refuses it when it cannot be empty). `fields` is keyed by wire path.
 */
export function maskedPatch(fields: Record<string, PatchField>, mask: FieldMask | undefined): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (!mask || mask.paths.length === 0) {
    for (const field of Object.values(fields)) if (field.value !== undefined) patch[field.name] = field.value;
    return patch;
  }
  for (const path of mask.paths) {
    const field = Object.hasOwn(fields, path) ? fields[path] : undefined;
    if (!field) {
      const rule = `"${path}" is not a field that can be changed; fields: ${Object.keys(fields).join(', ')}`;
      throw new AppError('VALIDATION', `update_mask: ${rule}`, [{ field: 'update_mask', rule }]);
    }
    patch[field.name] = field.value === undefined ? field.empty : field.value;
  }
  return patch;
}

// ---- wire to words -------------------------------------------------------------------------

/*
 * The messages of pages, reports, maintenances and channels in the words of the flags and MCP,
 * for people and scripts: enums as their words, times as ISO strings, every field present (an
 * optional one left out is null).
 */

export const pageWords = (p: StatusPage) => ({
  id: p.id,
  slug: p.slug,
  title: p.title,
  description: p.description,
  url: p.url,
  createdAt: isoOf(p.createdAt),
  updatedAt: isoOf(p.updatedAt),
});

export const componentWords = (c: PageComponent) => ({
  id: c.id,
  pageId: c.pageId,
  name: c.name,
  description: c.description,
  type: componentType.domain(c.type) ?? null,
  monitorId: c.monitorId ?? null,
  group: c.group ?? null,
  position: c.position,
});

export const subscriberWords = (s: Subscriber) => ({
  id: s.id,
  pageId: s.pageId,
  kind: s.kind,
  address: s.address,
  status: s.status,
  createdAt: isoOf(s.createdAt),
  confirmedAt: isoOf(s.confirmedAt),
  lastDeliveryAt: isoOf(s.lastDeliveryAt),
  lastDeliveryError: s.lastDeliveryError ?? null,
});

export const reportWords = (r: StatusReport) => ({
  id: r.id,
  pageId: r.pageId,
  title: r.title,
  status: reportStatus.domain(r.status) ?? null,
  resolved: r.resolved,
  pageComponentIds: [...r.pageComponentIds],
  updates: r.updates.map((u) => ({ id: u.id, status: reportStatus.domain(u.status) ?? null, message: u.message, createdAt: isoOf(u.createdAt) })),
  createdAt: isoOf(r.createdAt),
  updatedAt: isoOf(r.updatedAt),
  resolvedAt: isoOf(r.resolvedAt),
});

export const maintenanceWords = (m: Maintenance) => ({
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

/** A channel's settings by the names of their flags; credentials as the service masked them. */
function channelSettings(config: NotificationChannel['config']) {
  switch (config.case) {
    case 'webhook':
      return { webhookUrl: config.value.url, secret: config.value.secret, headers: { ...config.value.headers } };
    case 'slack':
    case 'discord':
      return { webhookUrl: config.value.webhookUrl };
    case 'email':
      return { to: [...config.value.to], from: config.value.from ?? null, smtpUrl: config.value.smtpUrl ?? null };
    case 'ntfy':
      return { server: config.value.server, topic: config.value.topic, priority: config.value.priority ?? null, token: config.value.token ?? null };
    default:
      return {};
  }
}

export const channelWords = (c: NotificationChannel) => ({
  id: c.id,
  name: c.name,
  kind: c.kind,
  monitorIds: [...c.monitorIds],
  ...channelSettings(c.config),
  createdAt: isoOf(c.createdAt),
  updatedAt: isoOf(c.updatedAt),
});
