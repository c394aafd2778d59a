import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AddPageComponentRequestSchema, PageComponent, UpdatePageComponentRequestSchema } from '../../../proto/gen/status_page/v1/status_page_pb.js';

// The page component form's model: a component as its form holds it, and the status_page.v1
// requests it becomes. Plain TypeScript, tested in Node.

export interface ComponentFormValues {
  name: string;
  description: string;
  /** '' for a static component. */
  monitorId: string;
  /** '' for no group. */
  group: string;
}

export function componentFormOf(stored?: PageComponent): ComponentFormValues {
  return { name: stored?.name ?? '', description: stored?.description ?? '', monitorId: stored?.monitorId ?? '', group: stored?.group ?? '' };
}

/** A new component: no monitor makes it static, no group leaves it on its own. */
export function addComponentRequest(pageId: string, form: ComponentFormValues): MessageInitShape<typeof AddPageComponentRequestSchema> {
  return { pageId, name: form.name.trim(), description: form.description, monitorId: form.monitorId || undefined, group: form.group.trim() || undefined };
}

/** Every field is sent: the empty string clears a description, unlinks the monitor, ungroups. */
export function updateComponentRequest(id: string, form: ComponentFormValues): MessageInitShape<typeof UpdatePageComponentRequestSchema> {
  return { id, name: form.name.trim(), description: form.description, monitorId: form.monitorId, group: form.group.trim() };
}
