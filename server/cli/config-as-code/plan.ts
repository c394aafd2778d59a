import { isDeepStrictEqual } from 'node:util';
import { create } from '@bufbuild/protobuf';
import { FieldMaskSchema } from '@bufbuild/protobuf/wkt';
import type { Message } from '@bufbuild/protobuf';
import type { StatusdeskClient } from '../../../client/index.ts';
import { isSecretName, REDACTED } from '../../domain/monitors/monitor-secrets.ts';
import { type MonitorType, monitorTypeNames, secretMapNames } from '../../domain/monitors/monitor-types.ts';
import type { Monitor, MonitorConfig } from '../../domain/monitors/monitors.ts';
import { createInput, toMonitorMessage, wireOf } from '../../rpc/monitor-codec.ts';
import { note } from '../flags.ts';
import {
  type Desired,
  type DesiredMonitor,
  type DesiredPage,
  fileValue,
  fileWord,
  normalConfig,
  type Problem,
  Problems,
  toFileMonitor,
} from './file-format.ts';

/**
 * What `statusdesk apply` changes: the workspace as the service shows it, compared with the file.
 * Monitors are matched by name, pages by slug, components by name within their page. Each change
 * is a step that runs through the client library; the steps stand in dependency order.
 */

/** Monitors' configurations here name private locations by name, as the file does; the requests by id. */
export interface Workspace {
  monitors: { id: string; name: string; type: MonitorType; config: MonitorConfig }[];
  /** The ids of the workspace's private locations by name (the embedded runner is none of them). */
  locations: Map<string, string>;
  pages: (Branding & { id: string; slug: string; title: string; description: string; components: StoredComponent[] })[];
}

/** A page's branding and custom domain as the file writes them: the logo as a `data:` address; null: none. */
interface Branding {
  accentColor: string | null;
  websiteUrl: string | null;
  customDomain: string | null;
  logo: string | null;
}
const BRANDING = ['accentColor', 'websiteUrl', 'customDomain', 'logo'] as const;

/** A logo as the plan shows it: its type and size, not its bytes. */
const logoShown = (logo: string | null) =>
  logo === null ? null : `${logo.slice(5, logo.indexOf(';'))}, ${Buffer.from(logo.slice(logo.indexOf(',') + 1), 'base64').length} bytes`;

/** The request's fields of a page's branding: "" (or empty bytes) clears what the file leaves out. */
const brandingRequest = (page: Branding) => ({
  accentColor: page.accentColor ?? '',
  websiteUrl: page.websiteUrl ?? '',
  customDomain: page.customDomain ?? '',
  logo: page.logo === null ? new Uint8Array() : Buffer.from(page.logo.slice(page.logo.indexOf(',') + 1), 'base64'),
});

interface StoredComponent {
  id: string;
  name: string;
  description: string;
  monitorId: string | null;
  group: string | null;
  position: number;
}

const LIST_LIMIT = 100;

/** The workspace's private locations that monitors may name: their ids by name. */
async function readLocations(api: StatusdeskClient): Promise<Map<string, string>> {
  const locations = new Map<string, string>();
  for (let page = 1; ; page++) {
    const answer = await api.privateLocations.listPrivateLocations({ page, perPage: LIST_LIMIT });
    for (const l of answer.privateLocations) if (!l.embedded) locations.set(l.name, l.id);
    if (page * LIST_LIMIT >= answer.totalSize) return locations;
  }
}

/** Every monitor, page and component of the workspace, oldest first, and its private locations. */
export async function readWorkspace(api: StatusdeskClient): Promise<Workspace> {
  const monitors: Workspace['monitors'] = [];
  const locations = await readLocations(api);
  const names = new Map([...locations].map(([name, id]) => [id, name]));
  for (let offset = 0; ; offset += LIST_LIMIT) {
    const answer = await api.monitors.listMonitors({ limit: LIST_LIMIT, offset });
    for (const type of monitorTypeNames) {
      for (const m of answer[wireOf(type).listField] as (Message & { id: string; name: string })[]) {
        const fields = createInput(type, m);
        if (fields.privateLocations) fields.privateLocations = (fields.privateLocations as string[]).map((id) => names.get(id) ?? id);
        monitors.push({ id: m.id, name: m.name, type, config: normalConfig(type, fields) });
      }
    }
    if (offset + LIST_LIMIT >= answer.totalSize) break;
  }
  monitors.sort((a, b) => Number(a.id) - Number(b.id));
  const { statusPages } = await api.pages.listStatusPages({});
  const pages = await Promise.all(
    statusPages.map(async (p) => {
      const { components } = await api.pages.listPageComponents({ pageId: p.id });
      return {
        id: p.id,
        slug: p.slug,
        title: p.title,
        description: p.description,
        accentColor: p.accentColor ?? null,
        websiteUrl: p.websiteUrl ?? null,
        customDomain: p.customDomain ?? null,
        logo: p.logo === undefined ? null : `data:${p.logoType};base64,${Buffer.from(p.logo).toString('base64')}`,
        components: components.map((c) => ({
          id: c.id,
          name: c.name,
          description: c.description,
          monitorId: c.monitorId ?? null,
          group: c.group ?? null,
          position: c.position,
        })),
      };
    }),
  );
  pages.sort((a, b) => Number(a.id) - Number(b.id));
  return { monitors, locations, pages };
}

/** The workspace in the file's words, for `statusdesk export`. */
export function workspaceFile(workspace: Workspace) {
  const names = new Map(workspace.monitors.map((m) => [m.id, m.name]));
  return {
    monitors: workspace.monitors.map((m) => toFileMonitor(m.name, m.type, m.config)),
    pages: workspace.pages.map((p) => ({
      slug: p.slug,
      title: p.title,
      ...(p.description === '' ? {} : { description: p.description }),
      ...Object.fromEntries(BRANDING.flatMap((field) => (p[field] === null ? [] : [[field, p[field]]]))),
      components: [...p.components]
        .sort((a, b) => a.position - b.position)
        .map((c, at) => ({
          name: c.name,
          ...(c.description === '' ? {} : { description: c.description }),
          ...(c.monitorId === null ? {} : { monitor: names.get(c.monitorId) ?? c.monitorId }),
          ...(c.group === null ? {} : { group: c.group }),
          ...(c.position === at ? {} : { position: c.position }),
        })),
    })),
  };
}

// ---- the plan -------------------------------------------------------------------------------

export type Action = 'create' | 'update' | 'delete' | 'unchanged';

/** One field that changes, in the file's words; secret values show as `[redacted]`. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  /** Set when only secret values are sent: the service never shows them, so they cannot be compared. */
  secret?: true;
}

export interface Change {
  action: Action;
  kind: 'monitor' | 'page' | 'component';
  name: string;
  /** The page of a component. */
  page?: string;
  /** The type of a monitor. */
  type?: MonitorType;
  fields?: FieldChange[];
}

/** The monitor ids the steps reach monitors by: those of the workspace, then those the steps create. */
type MonitorIds = Map<string, string>;

export interface Step {
  change: Change;
  /** `tell` takes what is shown once (a heartbeat's ping URL); the command writes it to standard error. */
  run(api: StatusdeskClient, ids: MonitorIds, tell?: (text: string) => void): Promise<void>;
}

export interface Plan {
  steps: Step[];
  unchanged: Change[];
  /** Monitors and pages of the workspace the file does not name, kept without --prune. */
  kept: number;
  ids: MonitorIds;
}

export function makePlan(desired: Desired, workspace: Workspace, prune: boolean): Plan {
  const problems: Problem[] = [];
  const ids: MonitorIds = new Map();
  const steps: { monitors: Step[]; pages: Step[]; components: Step[]; removals: Step[]; pageDeletes: Step[]; monitorDeletes: Step[] } = {
    monitors: [],
    pages: [],
    components: [],
    removals: [],
    pageDeletes: [],
    monitorDeletes: [],
  };
  const unchanged: Change[] = [];
  const byName = Map.groupBy(workspace.monitors, (m) => m.name);
  const inFile = new Set(desired.monitors.map((m) => m.name));

  for (const [name, found] of byName) if (found.length === 1 && (inFile.has(name) || !prune)) ids.set(name, found[0]!.id);

  for (const monitor of desired.monitors) {
    const found = byName.get(monitor.name) ?? [];
    if (found.length > 1) {
      problems.push({
        path: `${monitor.path}.name`,
        message: `${found.length} monitors of the workspace are named "${monitor.name}" (ids ${found.map((m) => m.id).join(', ')}): rename or delete all but one`,
      });
      continue;
    }
    const stored = found[0];
    if (stored && stored.type !== monitor.type) {
      problems.push({
        path: `${monitor.path}.type`,
        message: `"${monitor.name}" is a ${stored.type} monitor in the workspace, and a monitor's type cannot change: give it another name, or delete it first`,
      });
      continue;
    }
    problems.push(...redactedWithoutValue(monitor, stored?.config), ...unknownLocations(monitor, workspace.locations));
    const desired = { ...monitor, config: inLocationOrder(monitor.config, workspace.locations) };
    if (!stored) {
      steps.monitors.push(createMonitor(desired, workspace.locations));
      continue;
    }
    const changed = changedFields(desired.config, stored.config);
    if (changed.length === 0) unchanged.push({ action: 'unchanged', kind: 'monitor', name: monitor.name, type: monitor.type });
    else steps.monitors.push(updateMonitor(desired, stored, changed, workspace.locations));
  }

  const slugs = new Set(desired.pages.map((p) => p.slug));
  for (const page of desired.pages) {
    const stored = workspace.pages.find((p) => p.slug === page.slug);
    const known = (name: string | null) => name === null || inFile.has(name) || ids.has(name);
    for (const c of page.components) {
      const sharing = c.monitor === null || inFile.has(c.monitor) ? [] : (byName.get(c.monitor) ?? []);
      if (sharing.length > 1) {
        problems.push({
          path: `${c.path}.monitor`,
          message: `${sharing.length} monitors of the workspace are named "${c.monitor}" (ids ${sharing.map((m) => m.id).join(', ')}): rename or delete all but one`,
        });
      } else if (!known(c.monitor)) {
        problems.push({ path: `${c.path}.monitor`, message: `no monitor named "${c.monitor}" in the file${prune ? '' : ' or the workspace'}` });
      }
    }
    const pageChange = pageFields(page, stored);
    if (!stored) steps.pages.push(createPage(page));
    else if (pageChange.length > 0) steps.pages.push(updatePage(page, stored.id, pageChange));
    else unchanged.push({ action: 'unchanged', kind: 'page', name: page.slug });
    for (const c of page.components) {
      const twins = stored?.components.filter((s) => s.name === c.name) ?? [];
      if (twins.length > 1) {
        problems.push({
          path: `${c.path}.name`,
          message: `${twins.length} components of page ${page.slug} are named "${c.name}" (ids ${twins.map((s) => s.id).join(', ')}): remove all but one`,
        });
        continue;
      }
      const current = twins[0];
      if (!current) {
        steps.components.push(addComponent(page.slug, c));
        continue;
      }
      const monitorName = current.monitorId === null ? null : (workspace.monitors.find((m) => m.id === current.monitorId)?.name ?? current.monitorId);
      const changes: FieldChange[] = (['description', 'group', 'position'] as const)
        .filter((f) => c[f] !== current[f])
        .map((f) => ({ field: f, from: current[f], to: c[f] }));
      if (c.monitor !== monitorName) changes.push({ field: 'monitor', from: monitorName, to: c.monitor });
      if (changes.length === 0) unchanged.push({ action: 'unchanged', kind: 'component', name: c.name, page: page.slug });
      else steps.components.push(updateComponent(page.slug, current.id, c, changes));
    }
    if (prune && stored) {
      for (const s of stored.components) if (!page.components.some((c) => c.name === s.name)) steps.removals.push(removeComponent(page.slug, s));
    }
  }

  let kept = 0;
  for (const p of workspace.pages) {
    if (slugs.has(p.slug)) continue;
    if (prune) steps.pageDeletes.push(deletePage(p));
    else kept++;
  }
  for (const m of workspace.monitors) {
    if (inFile.has(m.name)) continue;
    if (prune) steps.monitorDeletes.push(deleteMonitor(m));
    else kept++;
  }
  if (problems.length > 0) throw new Problems(problems, 1);
  return {
    steps: [...steps.monitors, ...steps.pages, ...steps.components, ...steps.removals, ...steps.pageDeletes, ...steps.monitorDeletes],
    unchanged,
    kept,
    ids,
  };
}

// ---- monitors -------------------------------------------------------------------------------

/** The maps whose credential-like values the service seals: its types' secret maps, and OTLP's headers. */
const SECRET_MAPS = [...secretMapNames, 'openTelemetry'];

function secretMaps(config: MonitorConfig): [field: string, entries: Record<string, string>][] {
  const c = config as Record<string, any>;
  return SECRET_MAPS.flatMap((field) => {
    const entries = field === 'openTelemetry' ? c.openTelemetry?.headers : c[field];
    return entries ? [[field, entries] as [string, Record<string, string>]] : [];
  });
}

/**
 * `[redacted]` keeps a value the service already holds; where it holds none (a new monitor, a new
 * header) there is nothing to keep, and the file must give the value, e.g. as `${NAME}`.
 */
function redactedWithoutValue(monitor: DesiredMonitor, stored: MonitorConfig | undefined): Problem[] {
  const held = new Map(stored ? secretMaps(stored) : []);
  return secretMaps(monitor.config).flatMap(([field, entries]) =>
    Object.entries(entries)
      .filter(([key, value]) => value === REDACTED && isSecretName(key) && held.get(field)?.[key] === undefined)
      .map(([key]) => ({
        path: `${monitor.path}.${fileWord(field)}${field === 'openTelemetry' ? '.headers' : ''}.${key}`,
        message: `${REDACTED} keeps the value the service holds, and it holds none here: give the value, e.g. \${ENV_NAME}`,
      })),
  );
}

/** Private locations the file names that the workspace does not have. */
function unknownLocations(monitor: DesiredMonitor, locations: Workspace['locations']): Problem[] {
  return monitor.config.privateLocations.flatMap((name, at) =>
    locations.has(name)
      ? []
      : [{ path: `${monitor.path}.privateLocations[${at}]`, message: `no private location named "${name}" in the workspace (statusdesk locations list)` }],
  );
}

/** The private locations in the order the service lists them (by id), so that order alone is no change. */
function inLocationOrder(config: MonitorConfig, locations: Workspace['locations']): MonitorConfig {
  const id = (name: string) => Number(locations.get(name) ?? Infinity);
  return { ...config, privateLocations: config.privateLocations.toSorted((a, b) => id(a) - id(b)) };
}

/** A credential-like value given in the file: the service never shows it back, so it cannot be compared and is always sent. */
const givesSecret = (config: MonitorConfig, field: string) =>
  secretMaps(config).some(([f, entries]) => f === field && Object.entries(entries).some(([key, value]) => isSecretName(key) && value !== REDACTED));

/** The domain fields whose values differ; regions only when the file names them. */
function changedFields(desired: MonitorConfig, stored: MonitorConfig): string[] {
  const d = desired as Record<string, unknown>;
  const s = stored as Record<string, unknown>;
  return Object.keys(d).filter((field) => d[field] !== undefined && (!isDeepStrictEqual(d[field], s[field]) || givesSecret(desired, field)));
}

/** Shows credential-like values as the service shows them. */
function shown(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && isSecretName(k) ? REDACTED : shown(v)]));
}

function fieldChanges(desired: MonitorConfig, stored: MonitorConfig, fields: string[]): FieldChange[] {
  const words = [...new Set(fields.map(fileWord))];
  return words.map((word) => {
    const field = fields.find((f) => fileWord(f) === word)!;
    const change: FieldChange = { field: word, from: shown(fileValue(stored, field)), to: shown(fileValue(desired, field)) };
    return isDeepStrictEqual(change.from, change.to) ? { ...change, secret: true } : change;
  });
}

/**
 * The wire message of a configuration, its private locations by id. The codec encodes stored
 * monitors; a configuration is one without an id or times, which requests ignore.
 */
function messageOf(type: MonitorType, config: MonitorConfig, locations: Workspace['locations']): Message {
  const privateLocations = config.privateLocations.map((name) => locations.get(name)!);
  return toMonitorMessage({ ...config, privateLocations, id: '', workspaceId: '', type, createdAt: EPOCH, updatedAt: EPOCH } as Monitor);
}
const EPOCH = new Date(0).toISOString();

/** The monitor calls of a type, by the names of its message (`createGRPCMonitor`). */
type TypedCall = (request: { id?: string; updateMask?: unknown; monitor: Message }) => Promise<{ monitor?: { id: string }; pingUrl?: string }>;
const typedCall = (api: StatusdeskClient, method: string) => (api.monitors as unknown as Record<string, TypedCall>)[method]!.bind(api.monitors);

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function createMonitor(monitor: DesiredMonitor, locations: Workspace['locations']): Step {
  return {
    change: { action: 'create', kind: 'monitor', name: monitor.name, type: monitor.type },
    async run(api, ids, tell = note) {
      const message = messageOf(monitor.type, monitor.config, locations);
      const answer = await typedCall(api, wireOf(monitor.type).createMethod)({ monitor: message });
      ids.set(monitor.name, answer.monitor!.id);
      // A heartbeat monitor's ping URL carries its token: the answer to its creation is the one time it is shown.
      if (answer.pingUrl) tell(`heartbeat monitor ${monitor.name}: its ping URL, shown this once: ${answer.pingUrl}`);
    },
  };
}

/** An update that names only the changed fields in its mask. */
function updateMonitor(monitor: DesiredMonitor, stored: Workspace['monitors'][number], fields: string[], locations: Workspace['locations']): Step {
  return {
    change: { action: 'update', kind: 'monitor', name: monitor.name, type: monitor.type, fields: fieldChanges(monitor.config, stored.config, fields) },
    async run(api) {
      const request = { id: stored.id, updateMask: create(FieldMaskSchema, { paths: fields.map(snake) }) };
      const message = messageOf(monitor.type, monitor.config, locations);
      await typedCall(api, wireOf(monitor.type).updateMethod)({ ...request, monitor: message });
    },
  };
}

function deleteMonitor(monitor: Workspace['monitors'][number]): Step {
  return {
    change: { action: 'delete', kind: 'monitor', name: monitor.name, type: monitor.type },
    async run(api) {
      await api.monitors.deleteMonitor({ id: monitor.id });
    },
  };
}

// ---- pages and components -------------------------------------------------------------------

function pageFields(page: DesiredPage, stored: Workspace['pages'][number] | undefined): FieldChange[] {
  if (!stored) return [];
  const text = (['title', 'description'] as const).filter((f) => page[f] !== stored[f]).map((f) => ({ field: f, from: stored[f], to: page[f] }));
  const branding = BRANDING.filter((f) => page[f] !== stored[f]).map((f) =>
    f === 'logo' ? { field: f, from: logoShown(stored.logo), to: logoShown(page.logo) } : { field: f, from: stored[f], to: page[f] },
  );
  return [...text, ...branding];
}

/** Whether a page of the file sets any of its branding or custom domain. */
function branded(page: DesiredPage): boolean {
  return BRANDING.some((f) => page[f] !== null);
}

function createPage(page: DesiredPage): Step {
  return {
    change: { action: 'create', kind: 'page', name: page.slug },
    async run(api) {
      await api.pages.createStatusPage({
        slug: page.slug,
        title: page.title,
        description: page.description,
        ...(branded(page) ? brandingRequest(page) : {}),
      });
    },
  };
}

function updatePage(page: DesiredPage, id: string, fields: FieldChange[]): Step {
  return {
    change: { action: 'update', kind: 'page', name: page.slug, fields },
    async run(api) {
      const changed = new Set(fields.map((f) => f.field));
      const branding = Object.entries(brandingRequest(page)).filter(([field]) => changed.has(field));
      await api.pages.updateStatusPage({
        id,
        ...Object.fromEntries(fields.filter((f) => f.field === 'title' || f.field === 'description').map((f) => [f.field, f.to])),
        ...Object.fromEntries(branding),
      });
    },
  };
}

function deletePage(page: Workspace['pages'][number]): Step {
  return {
    change: { action: 'delete', kind: 'page', name: page.slug },
    async run(api) {
      await api.pages.deleteStatusPage({ id: page.id });
    },
  };
}

type DesiredComponent = DesiredPage['components'][number];

/** A component's monitor by name: its id in the workspace or from the step that created it. */
const monitorIdOf = (ids: MonitorIds, name: string | null) => (name === null ? undefined : ids.get(name));

function addComponent(slug: string, c: DesiredComponent): Step {
  return {
    change: { action: 'create', kind: 'component', name: c.name, page: slug },
    async run(api, ids) {
      await api.pages.addPageComponent({
        pageId: slug,
        name: c.name,
        description: c.description,
        monitorId: monitorIdOf(ids, c.monitor),
        group: c.group ?? undefined,
        position: c.position,
      });
    },
  };
}

function updateComponent(slug: string, id: string, c: DesiredComponent, fields: FieldChange[]): Step {
  return {
    change: { action: 'update', kind: 'component', name: c.name, page: slug, fields },
    async run(api, ids) {
      const changed = new Set(fields.map((f) => f.field));
      await api.pages.updatePageComponent({
        id,
        description: changed.has('description') ? c.description : undefined,
        // The empty string unlinks the monitor and takes the component out of its group.
        monitorId: changed.has('monitor') ? (monitorIdOf(ids, c.monitor) ?? '') : undefined,
        group: changed.has('group') ? (c.group ?? '') : undefined,
        position: changed.has('position') ? c.position : undefined,
      });
    },
  };
}

function removeComponent(slug: string, c: StoredComponent): Step {
  return {
    change: { action: 'delete', kind: 'component', name: c.name, page: slug },
    async run(api) {
      await api.pages.removePageComponent({ id: c.id });
    },
  };
}
