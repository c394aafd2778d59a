import type { FieldMask } from '@bufbuild/protobuf/wkt';
import { AppError } from '../errors.ts';
import { timestamp } from './monitor-codec.ts';

/**
 * Wire helpers shared by the services of status pages, status reports, maintenances and
 * notification channels. No rules here: a wire value that means "not given" (the empty string, a
 * zero count, an empty list, an unspecified enum) becomes undefined, and the domain's validation
 * names the field if it is required.
 */

export { timestamp };

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
