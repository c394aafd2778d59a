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
  /** `none` is a one-off window from `from` to `to`; otherwise it repeats from `from` on and `to` is not used. */
  repeats: 'none' | 'weekly' | 'monthly' | 'cron';
  /** weekly: sun … sat. */
  days: string[];
  /** weekly, monthly: the local start time, HH:MM. */
  time: string;
  /** monthly: 1 to 31, as typed. */
  dayOfMonth: string;
  cron: string;
  /** Each occurrence's length in minutes, as typed. */
  durationMinutes: string;
  timeZone: string;
  /** Optional: a datetime-local value after which no occurrence starts. */
  until: string;
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
  stored: Pick<Maintenance, 'title' | 'message' | 'from' | 'to' | 'pageComponentIds' | 'repeat'> | undefined,
  now = Date.now(),
  viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone,
): MaintenanceFormValues {
  const start = Math.ceil(now / HOUR_MS) * HOUR_MS;
  const repeat = stored?.repeat;
  return {
    repeats: (repeat?.kind as MaintenanceFormValues['repeats'] | undefined) ?? 'none',
    days: [...(repeat?.days ?? [])],
    time: repeat?.time || localInputValue(new Date(start).toISOString()).slice(11),
    dayOfMonth: repeat?.dayOfMonth ? String(repeat.dayOfMonth) : '1',
    cron: repeat?.cron ?? '',
    durationMinutes: String(repeat?.durationMinutes || 60),
    timeZone: repeat?.timeZone || viewerZone,
    until: repeat?.until ? localInputValue(repeat.until) : '',
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

/** The rule the form gives, or undefined for a one-off window. Monthly windows by weekday ("first Monday") are made with the CLI, API or MCP. */
function repeatOf(form: MaintenanceFormValues) {
  if (form.repeats === 'none') return undefined;
  const minutes = Number(form.durationMinutes);
  return {
    kind: form.repeats,
    days: form.repeats === 'weekly' ? form.days : [],
    time: form.repeats === 'cron' ? '' : form.time,
    dayOfMonth: form.repeats === 'monthly' ? Number(form.dayOfMonth) || 0 : 0,
    cron: form.repeats === 'cron' ? form.cron.trim() : '',
    durationMinutes: Number.isInteger(minutes) ? minutes : 0,
    timeZone: form.timeZone.trim(),
    until: instantOfLocal(form.until),
  };
}

export function createMaintenanceRequest(pageId: string, form: MaintenanceFormValues): MessageInitShape<typeof CreateMaintenanceRequestSchema> {
  const repeat = repeatOf(form);
  return { pageId, ...windowOf(form), ...(repeat && { to: '', repeat }), notify: form.notify ?? false };
}

/** Every field of the window is named in the mask (by its proto name), so clearing the components (the whole page) is a change too. */
const EDITED = (['title', 'message', 'from', 'to', 'pageComponentIds', 'repeat'] as const).map((field) => UpdateMaintenanceRequestSchema.field[field].name);
/** A repeating window's end is its rule's to give: `to` is not named. */
const EDITED_REPEATING = EDITED.filter((path) => path !== UpdateMaintenanceRequestSchema.field.to.name);

export function updateMaintenanceRequest(id: string, form: MaintenanceFormValues): MessageInitShape<typeof UpdateMaintenanceRequestSchema> {
  const repeat = repeatOf(form);
  return { id, ...windowOf(form), ...(repeat && { to: undefined, repeat }), updateMask: { paths: repeat ? EDITED_REPEATING : EDITED } };
}
