import type { MessageInitShape } from '@bufbuild/protobuf';
import { type CreateMaintenanceRequestSchema, type Maintenance, UpdateMaintenanceRequestSchema } from '../../../proto/gen/maintenance/v1/maintenance_pb.js';

// The maintenance form's model: a window as its form holds it (times in the viewer's local wall
// time, as datetime-local inputs show them), and the maintenance.v1 requests it becomes (UTC
// instants). Plain TypeScript, tested in Node.

const HOUR_MS = 3_600_000;

export interface MaintenanceFormValues {
  title: string;
  message: string;
  /** datetime-local values: the viewer's wall time, to the minute. */
  from: string;
  to: string;
  pageComponentIds: string[];
  /** Asked of a new window only: changes to a scheduled one are not announced. */
  notify: boolean | undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a datetime-local input shows it: the viewer's local wall time, to the minute. */
export function localInputValue(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (local wall time) as the RFC 3339 UTC instant the service expects; '' when empty or invalid. */
export function instantOfLocal(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().replace('.000Z', 'Z');
}

/** The form of a stored window, or of a new one: from the next whole hour, for an hour. */
export function maintenanceFormOf(
  stored: Pick<Maintenance, 'title' | 'message' | 'from' | 'to' | 'pageComponentIds'> | undefined,
  now = Date.now(),
): MaintenanceFormValues {
  const start = Math.ceil(now / HOUR_MS) * HOUR_MS;
  return {
    title: stored?.title ?? '',
    message: stored?.message ?? '',
    from: localInputValue(stored?.from ?? new Date(start).toISOString()),
    to: localInputValue(stored?.to ?? new Date(start + HOUR_MS).toISOString()),
    pageComponentIds: [...(stored?.pageComponentIds ?? [])],
    notify: undefined,
  };
}

/** The window's fields as the wire carries them. */
const windowOf = (form: MaintenanceFormValues) => ({
  title: form.title.trim(),
  message: form.message.trim(),
  from: instantOfLocal(form.from),
  to: instantOfLocal(form.to),
  pageComponentIds: form.pageComponentIds,
});

export function createMaintenanceRequest(pageId: string, form: MaintenanceFormValues): MessageInitShape<typeof CreateMaintenanceRequestSchema> {
  return { pageId, ...windowOf(form), notify: form.notify ?? false };
}

/** Every field of the window is named in the mask (by its proto name), so clearing the components (the whole page) is a change too. */
const EDITED = (['title', 'message', 'from', 'to', 'pageComponentIds'] as const).map((field) => UpdateMaintenanceRequestSchema.field[field].name);

export function updateMaintenanceRequest(id: string, form: MaintenanceFormValues): MessageInitShape<typeof UpdateMaintenanceRequestSchema> {
  return { id, ...windowOf(form), updateMask: { paths: EDITED } };
}
