import { create } from '@bufbuild/protobuf';
import type { FieldMask } from '@bufbuild/protobuf/wkt';
import {
  ComponentType,
  type PageComponent as PageComponentMessage,
  PageComponentSchema,
  type StatusPage as StatusPageMessage,
  StatusPageSchema,
  type Subscriber as SubscriberMessage,
  SubscriberSchema,
} from '../../proto/gen/status_page/v1/status_page_pb.js';
import type { Subscriber } from '../domain/notifications/subscribers.ts';
import type { PageComponent, StatusPage } from '../domain/pages/pages.ts';
import { AppError } from '../errors.ts';
import { enumPairs } from './enum-pairs.ts';
import { isoOf, timestamp } from './monitor-codec.ts';

/**
 * The codec of status_page.v1 (pages, their components and subscribers), and the wire helpers
 * the codecs of status reports, maintenances, channels and private locations share. No rules
 * here: a wire value that means "not given" (the empty string, a zero count, an empty list, an
 * unspecified enum) becomes undefined, and the domain's validation names the field if it is
 * required.
 */

export { timestamp };

/** A page component's type: `monitor` (its health follows a monitor) or `static`. */
export const componentType = enumPairs(['monitor', 'static'] as const satisfies readonly PageComponent['type'][], [
  ComponentType.MONITOR,
  ComponentType.STATIC,
]);

/** A timestamp for a nullable domain time: absent when null. */
export const optionalTimestamp = (iso: string | null) => (iso === null ? undefined : timestamp(iso));

/** A plain proto3 string: the empty string is not given. */
export const text = (value: string): string | undefined => (value === '' ? undefined : value);

/** A plain proto3 int32 count (pages from 1, sizes from 1): zero is not given. */
export const count = (value: number): number | undefined => (value === 0 ? undefined : value);

/** A repeated field: the empty list is not given. */
export const list = <T>(values: T[]): T[] | undefined => (values.length === 0 ? undefined : [...values]);

/** Empty bytes of an optional bytes field that can be cleared mean "clear" (null). */
export const clearableBytes = (value: Uint8Array | undefined): Uint8Array | null | undefined =>
  value === undefined ? undefined : value.length === 0 ? null : value;

/** The empty string of an optional field that can be cleared means "clear" (null). */
export const clearable = (value: string | undefined): string | null | undefined => (value === '' ? null : value);

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

// ---- domain to wire ------------------------------------------------------------------------

export function toStatusPageMessage(page: StatusPage): StatusPageMessage {
  return create(StatusPageSchema, {
    id: page.id,
    slug: page.slug,
    title: page.title,
    description: page.description,
    url: page.url,
    createdAt: timestamp(page.createdAt),
    updatedAt: timestamp(page.updatedAt),
    accentColor: page.accentColor ?? undefined,
    websiteUrl: page.websiteUrl ?? undefined,
    logo: page.logo ?? undefined,
    logoType: page.logoType ?? undefined,
    customDomain: page.customDomain ?? undefined,
    formerSlug: page.formerSlug ?? undefined,
  });
}

export function toPageComponentMessage(component: PageComponent): PageComponentMessage {
  return create(PageComponentSchema, {
    id: component.id,
    pageId: component.pageId,
    name: component.name,
    description: component.description,
    type: componentType.wire(component.type),
    monitorId: component.monitorId ?? undefined,
    group: component.group ?? undefined,
    position: component.position,
  });
}

export function toSubscriberMessage(subscriber: Subscriber): SubscriberMessage {
  return create(SubscriberSchema, {
    id: subscriber.id,
    pageId: subscriber.pageId,
    kind: subscriber.kind,
    address: subscriber.address,
    status: subscriber.status,
    createdAt: timestamp(subscriber.createdAt),
    confirmedAt: optionalTimestamp(subscriber.confirmedAt),
    lastDeliveryAt: optionalTimestamp(subscriber.lastDeliveryAt),
    lastDeliveryError: subscriber.lastDeliveryError ?? undefined,
  });
}

// ---- wire to words -------------------------------------------------------------------------

/*
 * The messages in the words of the flags and MCP, for people and scripts: enums as their words,
 * times as ISO strings, every field present (an optional one left out is null). Pages,
 * components and subscribers here; reports, maintenances and channels in their codecs.
 */

export const pageWords = (p: StatusPageMessage) => ({
  id: p.id,
  slug: p.slug,
  title: p.title,
  description: p.description,
  url: p.url,
  accentColor: p.accentColor ?? null,
  websiteUrl: p.websiteUrl ?? null,
  // The logo in words: its type and size; `statusdesk export` writes the bytes themselves.
  logo: p.logo === undefined ? null : { type: p.logoType ?? null, bytes: p.logo.length },
  customDomain: p.customDomain ?? null,
  formerSlug: p.formerSlug ?? null,
  createdAt: isoOf(p.createdAt),
  updatedAt: isoOf(p.updatedAt),
});

export const componentWords = (c: PageComponentMessage) => ({
  id: c.id,
  pageId: c.pageId,
  name: c.name,
  description: c.description,
  type: componentType.domain(c.type) ?? null,
  monitorId: c.monitorId ?? null,
  group: c.group ?? null,
  position: c.position,
});

export const subscriberWords = (s: SubscriberMessage) => ({
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
