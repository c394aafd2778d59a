import { type DragEvent, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { ConfirmDialog, ErrorNote } from '../components.tsx';
import { type MonitorChoice, useMonitorsById } from '../data/monitor-search.ts';
import { useAddPageComponent, useMovePageComponents, usePagesChanged, useRemovePageComponent, useUpdatePageComponent } from '../data/pages.ts';
import { asApiError, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { ComponentForm } from './page-component-form.tsx';
import { addComponentRequest, componentFormOf, updateComponentRequest } from './page-component-model.ts';
import type { PageSectionProps } from './page-form-parts.tsx';

// The page's components in the order visitors see them. The public page keeps a group's
// components together, where its first component is; so the order here is made of blocks (a
// component without a group, or a whole group), and a component moves within its block. Moving
// renumbers every position from 0, one UpdatePageComponent per component whose position changed.

type Block = { kind: 'single'; key: string; component: PageComponent } | { kind: 'group'; key: string; name: string; components: PageComponent[] };

/** The blocks of components in display order, as the public page groups them. */
function blocksOf(components: PageComponent[]): Block[] {
  const blocks: Block[] = [];
  const groups = new Map<string, Extract<Block, { kind: 'group' }>>();
  for (const component of components) {
    if (component.group === undefined) {
      blocks.push({ kind: 'single', key: `c:${component.id}`, component });
      continue;
    }
    let group = groups.get(component.group);
    if (!group) {
      group = { kind: 'group', key: `g:${component.group}`, name: component.group, components: [] };
      groups.set(component.group, group);
      blocks.push(group);
    }
    group.components.push(component);
  }
  return blocks;
}

const flatten = (blocks: Block[]) => blocks.flatMap((b) => (b.kind === 'single' ? [b.component] : b.components));

/** `list` with the item at `from` moved to index `to`. */
function moved<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** Where a dragged item is: among the top-level blocks, or among the components of one group. */
type DragItem = { container: string; key: string };

export function PageComponentsSection({ workspaceId, page, components }: PageSectionProps) {
  // The monitors the components follow, by id: named however many monitors the workspace has.
  const followed = useMonitorsById(
    workspaceId,
    components.flatMap((c) => (c.monitorId === undefined ? [] : [c.monitorId])),
  );
  const monitors = followed.data ?? new Map<string, MonitorChoice>();
  const add = useAddPageComponent(workspaceId);
  const move = useMovePageComponents(workspaceId);
  const removeComponent = useRemovePageComponent(workspaceId);
  const refresh = usePagesChanged(workspaceId);
  const [order, setOrder] = useState(components);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [announcement, setAnnouncement] = useState('');
  const [saveError, setSaveError] = useState<string>();
  const [dragging, setDragging] = useState<DragItem>();
  const [dropTarget, setDropTarget] = useState<{ key: string; after: boolean }>();
  const list = useRef<HTMLDivElement>(null);
  const listId = useId();
  const focusAfterMove = useRef<{ id: string; direction: 'up' | 'down' } | undefined>(undefined);
  // Positions as the service holds them, and the saves in flight, chained so they land in order.
  const persisted = useRef(new Map(components.map((c) => [c.id, c.position])));
  const saving = useRef<Promise<void>>(Promise.resolve());
  const pendingSaves = useRef(0);

  useEffect(() => {
    // A reload while a save is in flight would show the order from before it.
    if (pendingSaves.current > 0) return;
    setOrder(components);
    persisted.current = new Map(components.map((c) => [c.id, c.position]));
  }, [components]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once the moved order is drawn, to put the focus back on the moved row
  useLayoutEffect(() => {
    const wanted = focusAfterMove.current;
    if (!wanted) return;
    focusAfterMove.current = undefined;
    const buttonOf = (direction: string) =>
      list.current?.querySelector<HTMLButtonElement>(`[data-move="${direction}"][data-component="${CSS.escape(wanted.id)}"]`);
    const same = buttonOf(wanted.direction);
    (same && !same.disabled ? same : buttonOf(wanted.direction === 'up' ? 'down' : 'up'))?.focus();
  }, [order]);

  const persist = (next: PageComponent[]) => {
    pendingSaves.current += 1;
    saving.current = saving.current.then(async () => {
      try {
        const changes = next.map((c, position) => ({ id: c.id, position })).filter((c) => persisted.current.get(c.id) !== c.position);
        await move.mutateAsync(changes);
        for (const c of changes) persisted.current.set(c.id, c.position);
        setSaveError(undefined);
      } catch (error) {
        setSaveError(`The new order could not be saved: ${asApiError(error).message}`);
      } finally {
        pendingSaves.current -= 1;
        // The components, and what visitors see, are asked for again once the last save is in.
        if (pendingSaves.current === 0) await refresh();
      }
    });
  };

  /** Applies a new order of blocks, saves it and says where `component` went. */
  const reorder = (blocks: Block[], component: PageComponent) => {
    const next = flatten(blocks);
    setOrder(next);
    persist(next);
    if (component.group !== undefined) {
      const group = blocks.find((b) => b.kind === 'group' && b.name === component.group) as Extract<Block, { kind: 'group' }>;
      const index = group.components.findIndex((c) => c.id === component.id);
      setAnnouncement(`${component.name} moved to position ${index + 1} of ${group.components.length} in ${component.group}.`);
    } else {
      const index = blocks.findIndex((b) => b.key === `c:${component.id}`);
      setAnnouncement(`${component.name} moved to position ${index + 1} of ${blocks.length}.`);
    }
  };

  const moveGroup = (blocks: Block[], name: string, to: number) => {
    const from = blocks.findIndex((b) => b.key === `g:${name}`);
    const next = moved(blocks, from, to);
    setOrder(flatten(next));
    persist(flatten(next));
    setAnnouncement(`Group ${name} moved to position ${to + 1} of ${blocks.length}.`);
  };

  const blocks = blocksOf(order);

  /** Moves a component one step within its block list: among the blocks, or within its group. */
  const step = (component: PageComponent, direction: 'up' | 'down') => {
    const delta = direction === 'up' ? -1 : 1;
    focusAfterMove.current = { id: component.id, direction };
    if (component.group === undefined) {
      const from = blocks.findIndex((b) => b.key === `c:${component.id}`);
      reorder(moved(blocks, from, from + delta), component);
      return;
    }
    const next = blocks.map((b) => {
      if (b.kind !== 'group' || b.name !== component.group) return b;
      const from = b.components.findIndex((c) => c.id === component.id);
      return { ...b, components: moved(b.components, from, from + delta) };
    });
    reorder(next, component);
  };

  // ---- drag and drop: an item is dropped before or after a sibling of the same list ----

  const onDragStart = (item: DragItem) => (event: DragEvent) => {
    event.stopPropagation();
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', item.key);
    setDragging(item);
  };
  const onDragOver = (item: DragItem) => (event: DragEvent<HTMLElement>) => {
    if (!dragging || dragging.container !== item.container) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = 'move';
    const box = event.currentTarget.getBoundingClientRect();
    const after = event.clientY > box.top + box.height / 2;
    if (dropTarget?.key !== item.key || dropTarget.after !== after) setDropTarget({ key: item.key, after });
  };
  const onDrop = (item: DragItem) => (event: DragEvent) => {
    if (!dragging || dragging.container !== item.container) return;
    event.preventDefault();
    event.stopPropagation();
    const after = dropTarget?.key === item.key ? dropTarget.after : false;
    const source = dragging;
    setDragging(undefined);
    setDropTarget(undefined);
    if (source.key === item.key) return;
    const place = <T,>(items: T[], keyOf: (t: T) => string): T[] => {
      const from = items.findIndex((t) => keyOf(t) === source.key);
      const without = items.filter((_, i) => i !== from);
      const target = without.findIndex((t) => keyOf(t) === item.key) + (after ? 1 : 0);
      return [...without.slice(0, target), items[from]!, ...without.slice(target)];
    };
    if (item.container === 'blocks') {
      const next = place(blocks, (b) => b.key);
      const movedBlock = next.find((b) => b.key === source.key)!;
      if (movedBlock.kind === 'single') reorder(next, movedBlock.component);
      else moveGroup(blocks, movedBlock.name, next.indexOf(movedBlock));
      return;
    }
    const groupName = item.container.slice('group:'.length);
    let movedComponent: PageComponent | undefined;
    const next = blocks.map((b) => {
      if (b.kind !== 'group' || b.name !== groupName) return b;
      const components = place(b.components, (c) => `c:${c.id}`);
      movedComponent = components.find((c) => `c:${c.id}` === source.key);
      return { ...b, components };
    });
    if (movedComponent) reorder(next, movedComponent);
  };
  const onDragEnd = () => {
    setDragging(undefined);
    setDropTarget(undefined);
  };
  // An item being edited is not draggable, so selecting text in its inputs stays possible.
  const dragProps = (item: DragItem) => ({
    draggable: editing === undefined || `c:${editing}` !== item.key,
    onDragStart: onDragStart(item),
    onDragOver: onDragOver(item),
    onDrop: onDrop(item),
    onDragEnd,
    'data-dragging': dragging?.key === item.key || undefined,
    'data-drop': dropTarget?.key === item.key ? (dropTarget.after ? 'after' : 'before') : undefined,
  });

  const remove = useConfirmedAction((component: PageComponent) => removeComponent.mutateAsync({ id: component.id }));
  const groups = [...new Set(order.flatMap((c) => (c.group === undefined ? [] : [c.group])))];

  const row = (component: PageComponent, index: number, count: number, where: string) => (
    <ComponentRow
      component={component}
      monitors={monitors}
      first={index === 0}
      last={index === count - 1}
      where={where}
      onMove={(direction) => step(component, direction)}
      onEdit={() => setEditing(component.id)}
      onRemove={() => remove.ask(component)}
    />
  );

  return (
    <section aria-labelledby="components-heading" className="section">
      <div className="section-head">
        <h2 id="components-heading">Components</h2>
        {adding || order.length === 0 ? null : (
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            <Icon name="plus" />
            Add a component
          </button>
        )}
      </div>
      <p className="muted section-lede">
        Each component is one thing visitors care about. Linked to a monitor it shows the monitor's state; a static one shows what your reports and maintenance
        say. Drag a component, or use its Move up and Move down buttons, to change the order; components of a group stay together.
      </p>

      {adding || order.length === 0 ? (
        <ComponentForm
          title={order.length === 0 ? 'Add the first component' : 'Add a component'}
          submitLabel="Add component"
          workspaceId={workspaceId}
          groups={groups}
          onCancel={order.length === 0 ? undefined : () => setAdding(false)}
          onSubmit={async (values) => {
            const request = addComponentRequest(page.id, values);
            await add.mutateAsync(request);
            setAdding(false);
            setAnnouncement(`${request.name} added.`);
          }}
        />
      ) : null}

      {order.length === 0 ? (
        <div className="empty">
          <p>
            <strong>No components yet.</strong> Add your API, your website or your help desk: visitors see each one's state, and 90 days of uptime for those
            that follow a monitor.
          </p>
        </div>
      ) : (
        <div ref={list} className="component-list">
          <ol className="blocks" aria-label={`Components of ${page.title}, in page order`}>
            {blocks.map((block, blockIndex) =>
              block.kind === 'single' ? (
                <li key={block.key} className="block" {...dragProps({ container: 'blocks', key: block.key })}>
                  {editing === block.component.id ? (
                    <EditComponent workspaceId={workspaceId} component={block.component} groups={groups} onDone={() => setEditing(undefined)} />
                  ) : (
                    row(block.component, blockIndex, blocks.length, `of ${page.title}`)
                  )}
                </li>
              ) : (
                <li key={block.key} className="block block-group" {...dragProps({ container: 'blocks', key: block.key })}>
                  <div className="group-head">
                    <span className="drag-handle" aria-hidden="true">
                      ⠿
                    </span>
                    <h3 id={`${listId}-group-${blockIndex}`}>{block.name}</h3>
                    <span className="muted small">Group</span>
                    <div className="row-actions">
                      <button
                        type="button"
                        className="button button-small button-ghost"
                        disabled={blockIndex === 0}
                        onClick={() => moveGroup(blocks, block.name, blockIndex - 1)}
                      >
                        <span aria-hidden="true">↑</span>
                        <span className="visually-hidden">Move group {block.name} up</span>
                      </button>
                      <button
                        type="button"
                        className="button button-small button-ghost"
                        disabled={blockIndex === blocks.length - 1}
                        onClick={() => moveGroup(blocks, block.name, blockIndex + 1)}
                      >
                        <span aria-hidden="true">↓</span>
                        <span className="visually-hidden">Move group {block.name} down</span>
                      </button>
                    </div>
                  </div>
                  <ol className="group-components" aria-labelledby={`${listId}-group-${blockIndex}`}>
                    {block.components.map((component, index) => (
                      <li key={component.id} {...dragProps({ container: `group:${block.name}`, key: `c:${component.id}` })}>
                        {editing === component.id ? (
                          <EditComponent workspaceId={workspaceId} component={component} groups={groups} onDone={() => setEditing(undefined)} />
                        ) : (
                          row(component, index, block.components.length, `in ${block.name}`)
                        )}
                      </li>
                    ))}
                  </ol>
                </li>
              ),
            )}
          </ol>
        </div>
      )}
      {saveError ? <ErrorNote>{saveError}</ErrorNote> : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>

      <ConfirmDialog {...remove.dialog} title={`Remove the component “${remove.target?.name ?? ''}”?`} confirmLabel="Remove component">
        <p>It disappears from the public page and from the reports and maintenance windows that name it. Its monitor is not changed.</p>
      </ConfirmDialog>
    </section>
  );
}

function monitorName(monitors: ReadonlyMap<string, MonitorChoice>, id: string | undefined): string {
  if (id === undefined) return 'Static: shows what reports and maintenance say';
  const monitor = monitors.get(id);
  return monitor ? `Follows ${monitor.name}${monitor.active ? '' : ' (paused)'}` : `Follows monitor ${id}`;
}

function ComponentRow({
  component,
  monitors,
  first,
  last,
  where,
  onMove,
  onEdit,
  onRemove,
}: {
  component: PageComponent;
  monitors: ReadonlyMap<string, MonitorChoice>;
  first: boolean;
  last: boolean;
  /** Where the component is, for the names of its move buttons' announcements. */
  where: string;
  onMove(direction: 'up' | 'down'): void;
  onEdit(): void;
  onRemove(): void;
}) {
  return (
    <div className="component-row">
      <span className="drag-handle" aria-hidden="true" title="Drag to reorder">
        ⠿
      </span>
      <div className="component-text">
        <strong className="component-name">{component.name}</strong>
        <span className="muted small">{monitorName(monitors, component.monitorId)}</span>
        {component.description ? <span className="small">{component.description}</span> : null}
      </div>
      <div className="row-actions" role="group" aria-label={`${component.name} ${where}`}>
        <button
          type="button"
          className="button button-small button-ghost"
          data-move="up"
          data-component={component.id}
          disabled={first}
          onClick={() => onMove('up')}
        >
          <span aria-hidden="true">↑</span>
          <span className="visually-hidden">Move {component.name} up</span>
        </button>
        <button
          type="button"
          className="button button-small button-ghost"
          data-move="down"
          data-component={component.id}
          disabled={last}
          onClick={() => onMove('down')}
        >
          <span aria-hidden="true">↓</span>
          <span className="visually-hidden">Move {component.name} down</span>
        </button>
        <button type="button" className="button button-small" onClick={onEdit}>
          <Icon name="edit" />
          Edit<span className="visually-hidden"> {component.name}</span>
        </button>
        <button type="button" className="button button-small button-danger-quiet" onClick={onRemove}>
          <Icon name="trash" />
          Remove<span className="visually-hidden"> {component.name}</span>
        </button>
      </div>
    </div>
  );
}

function EditComponent({ workspaceId, component, groups, onDone }: { workspaceId: string; component: PageComponent; groups: string[]; onDone(): void }) {
  const update = useUpdatePageComponent(workspaceId);
  return (
    <ComponentForm
      title={`Edit ${component.name}`}
      submitLabel="Save component"
      initial={componentFormOf(component)}
      workspaceId={workspaceId}
      groups={groups}
      onCancel={onDone}
      onSubmit={async (values) => {
        await update.mutateAsync(updateComponentRequest(component.id, values));
        onDone();
      }}
    />
  );
}
