import { isDeepStrictEqual } from 'node:util';
import { create } from '@bufbuild/protobuf';
import { FieldMaskSchema } from '@bufbuild/protobuf/wkt';
import type { Message } from '@bufbuild/protobuf';
import type { StatusdeskClient } from '../../../client/index.ts';
import type { RepeatRule } from '../../domain/maintenance/occurrences.ts';
import { isSecretName, REDACTED } from '../../domain/monitors/monitor-secrets.ts';
import { type MonitorType, monitorTypeNames, secretMapNames } from '../../domain/monitors/monitor-types.ts';
import type { Monitor, MonitorConfig } from '../../domain/monitors/monitors.ts';
import { repeatOf } from '../../rpc/maintenance-codec.ts';
import { createInput, toMonitorMessage, wireOf } from '../../rpc/monitor-codec.ts';
import { note } from '../flags.ts';
import {
  type Desired,
  type DesiredMonitor,
  type DesiredPage,
  type DesiredWindow,
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
  /** `badges`: whether its status badges are on; undefined where they were not read (the file leaves them out). */
  monitors: { id: string; name: string; type: MonitorType; config: MonitorConfig; badges?: boolean }[];
  /** The ids of the workspace's private locations by name (the embedded runner is none of them). */
  locations: Map<string, string>;
  pages: (Branding & { id: string; slug: string; title: string; description: string; components: StoredComponent[] })[];
  /** The maintenance windows, oldest first; empty where they were not read (the file has no `maintenance:` section). */
  maintenances: StoredWindow[];
}

/** A maintenance window of the workspace: `from` and `to` as the service shows them (a repeating one's occurrence under way or next). */
interface StoredWindow {
  id: string;
  pageId: string;
  title: string;
  message: string;
  from: string;
  to: string;
  componentIds: string[];
  status: string;
  repeat?: RepeatRule;
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

/** How many badge settings are asked for at once. */
const BADGE_READS = 16;

/** Whether each monitor's status badges are on, asked for monitor by monitor (a few at a time). */
async function readBadges(api: StatusdeskClient, monitors: Workspace['monitors']): Promise<void> {
  for (let at = 0; at < monitors.length; at += BADGE_READS) {
    await Promise.all(
      monitors.slice(at, at + BADGE_READS).map(async (m) => {
        const { badges } = await api.monitors.getMonitorBadges({ id: m.id });
        m.badges = badges?.enabled === true;
      }),
    );
  }
}

const WINDOWS_PER_PAGE = 200;

/** Every maintenance window of the workspace, oldest first. */
async function readWindows(api: StatusdeskClient): Promise<StoredWindow[]> {
  const windows: StoredWindow[] = [];
  for (let page = 1; ; page++) {
    const answer = await api.maintenances.listMaintenances({ page, perPage: WINDOWS_PER_PAGE });
    for (const m of answer.maintenances) {
      const repeat = repeatOf(m.repeat);
      windows.push({
        id: m.id,
        pageId: m.pageId,
        title: m.title,
        message: m.message,
        from: m.from,
        to: m.to,
        componentIds: [...m.pageComponentIds],
        status: m.status,
        ...(repeat ? { repeat } : {}),
      });
    }
    if (page * WINDOWS_PER_PAGE >= (answer.pagination?.totalSize ?? 0)) break;
  }
  return windows.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Every monitor, page and component of the workspace, oldest first, its private locations and
 * maintenance windows, and each monitor's badge setting. With the file to apply, only what it
 * asks about: the badges of the monitors that say `badges`, the windows if it has a `maintenance:`
 * section.
 */
export async function readWorkspace(api: StatusdeskClient, desired?: Desired): Promise<Workspace> {
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
  const badgesAsked = desired && new Set(desired.monitors.filter((m) => m.badges !== undefined).map((m) => m.name));
  await readBadges(
    api,
    monitors.filter((m) => badgesAsked === undefined || badgesAsked.has(m.name)),
  );
  const maintenances = desired === undefined || desired.maintenance !== undefined ? await readWindows(api) : [];
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
  return { monitors, locations, pages, maintenances };
}

/** A rule in the file's words: only the parts it has, the time zone always. */
const ruleFile = (rule: RepeatRule) => Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined));

/** The names of a window's components, sorted (an id no longer on the page as itself). */
function componentNames(workspace: Workspace, window: StoredWindow): string[] {
  const components = workspace.pages.find((p) => p.id === window.pageId)?.components ?? [];
  return window.componentIds.map((id) => components.find((c) => c.id === id)?.name ?? id).sort();
}

/** The workspace in the file's words, for `statusdesk export`. */
export function workspaceFile(workspace: Workspace) {
  const names = new Map(workspace.monitors.map((m) => [m.id, m.name]));
  const slugs = new Map(workspace.pages.map((p) => [p.id, p.slug]));
  return {
    monitors: workspace.monitors.map((m) => ({ ...toFileMonitor(m.name, m.type, m.config), ...(m.badges === true ? { badges: true } : {}) })),
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
    // Windows that have ended are history: neither written nor deleted by --prune.
    maintenance: workspace.maintenances
      .filter((w) => w.status !== 'completed')
      .map((w) => {
        const components = componentNames(workspace, w);
        return {
          title: w.title,
          page: slugs.get(w.pageId) ?? w.pageId,
          ...(w.message === '' ? {} : { message: w.message }),
          ...(components.length === 0 ? {} : { components }),
          ...(w.repeat ? { repeat: ruleFile(w.repeat) } : { from: w.from, to: w.to }),
        };
      }),
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
  kind: 'monitor' | 'page' | 'component' | 'maintenance';
  /** A maintenance window's title. */
  name: string;
  /** The page of a component or a maintenance window. */
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
  /** Maintenance windows not ended that the file's `maintenance:` section does not name, kept without --prune. */
  keptWindows: number;
  ids: MonitorIds;
}

export function makePlan(desired: Desired, workspace: Workspace, prune: boolean): Plan {
  const problems: Problem[] = [];
  const ids: MonitorIds = new Map();
  const steps: {
    monitors: Step[];
    pages: Step[];
    components: Step[];
    windows: Step[];
    removals: Step[];
    windowDeletes: Step[];
    pageDeletes: Step[];
    monitorDeletes: Step[];
  } = {
    monitors: [],
    pages: [],
    components: [],
    windows: [],
    removals: [],
    windowDeletes: [],
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
    const badges = monitor.badges !== undefined && stored.badges !== undefined && monitor.badges !== stored.badges ? monitor.badges : undefined;
    if (changed.length === 0 && badges === undefined) unchanged.push({ action: 'unchanged', kind: 'monitor', name: monitor.name, type: monitor.type });
    else steps.monitors.push(updateMonitor(desired, stored, changed, workspace.locations, badges));
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

  let keptWindows = 0;
  if (desired.maintenance) {
    const titles = new Set(desired.maintenance.map((w) => w.title));
    for (const window of desired.maintenance) {
      const step = planWindow(window, desired, workspace, prune, problems);
      if (step === 'unchanged') unchanged.push({ action: 'unchanged', kind: 'maintenance', name: window.title, page: window.page });
      else if (step) steps.windows.push(step);
    }
    for (const w of workspace.maintenances) {
      if (titles.has(w.title) || w.status === 'completed') continue;
      if (prune) steps.windowDeletes.push(deleteWindow(w, workspace));
      else keptWindows++;
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
    steps: [
      ...steps.monitors,
      ...steps.pages,
      ...steps.components,
      ...steps.windows,
      ...steps.removals,
      ...steps.windowDeletes,
      ...steps.pageDeletes,
      ...steps.monitorDeletes,
    ],
    unchanged,
    kept,
    keptWindows,
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
      // Badges are off on a new monitor.
      if (monitor.badges === true) await api.monitors.updateMonitorBadges({ id: answer.monitor!.id, enabled: true, rotate: false });
      // A heartbeat monitor's ping URL carries its token: the answer to its creation is the one time it is shown.
      if (answer.pingUrl) tell(`heartbeat monitor ${monitor.name}: its ping URL, shown this once: ${answer.pingUrl}`);
    },
  };
}

/** An update that names only the changed fields in its mask; `badges`, when they change, turned on or off after it. */
function updateMonitor(
  monitor: DesiredMonitor,
  stored: Workspace['monitors'][number],
  fields: string[],
  locations: Workspace['locations'],
  badges: boolean | undefined,
): Step {
  const changes = [...fieldChanges(monitor.config, stored.config, fields), ...(badges === undefined ? [] : [{ field: 'badges', from: !badges, to: badges }])];
  return {
    change: { action: 'update', kind: 'monitor', name: monitor.name, type: monitor.type, fields: changes },
    async run(api) {
      if (fields.length > 0) {
        const request = { id: stored.id, updateMask: create(FieldMaskSchema, { paths: fields.map(snake) }) };
        const message = messageOf(monitor.type, monitor.config, locations);
        await typedCall(api, wireOf(monitor.type).updateMethod)({ ...request, monitor: message });
      }
      if (badges !== undefined) await api.monitors.updateMonitorBadges({ id: stored.id, enabled: badges, rotate: false });
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

// ---- maintenance windows --------------------------------------------------------------------

/**
 * The step of a window of the file, 'unchanged', or undefined with its problems. A window is
 * matched by title: among the windows that have not ended if any has it, else among those that
 * have (so that a window of the file that has ended is not made again).
 */
function planWindow(window: DesiredWindow, desired: Desired, workspace: Workspace, prune: boolean, problems: Problem[]): Step | 'unchanged' | undefined {
  const count = problems.length;
  const filePage = desired.pages.find((p) => p.slug === window.page);
  const storedPage = workspace.pages.find((p) => p.slug === window.page);
  if (!filePage && (!storedPage || prune)) {
    problems.push({ path: `${window.path}.page`, message: `no page with slug "${window.page}" in the file${prune ? '' : ' or the workspace'}` });
  } else {
    // Without --prune, the page's components the file leaves out are kept, and may be named.
    const known = (name: string) => filePage?.components.some((c) => c.name === name) || (!prune && storedPage?.components.some((c) => c.name === name));
    for (const name of window.components) {
      if (known(name)) continue;
      problems.push({
        path: `${window.path}.components`,
        message: `no component named "${name}" on page ${window.page} in the file${prune ? '' : ' or the workspace'}`,
      });
    }
  }
  const titled = workspace.maintenances.filter((w) => w.title === window.title);
  const live = titled.filter((w) => w.status !== 'completed');
  const candidates = live.length > 0 ? live : titled;
  if (candidates.length > 1) {
    problems.push({
      path: `${window.path}.title`,
      message: `${candidates.length} maintenance windows of the workspace have the title "${window.title}" (ids ${candidates.map((w) => w.id).join(', ')}): rename or delete all but one`,
    });
  }
  const stored = candidates.length === 1 ? candidates[0] : undefined;
  const storedSlug = stored && workspace.pages.find((p) => p.id === stored.pageId)?.slug;
  if (stored && storedSlug !== window.page) {
    problems.push({
      path: `${window.path}.page`,
      message: `"${window.title}" is a maintenance window of page ${storedSlug ?? stored.pageId} in the workspace, and a window's page cannot change: give it another title, or delete it first`,
    });
  }
  if (problems.length > count) return undefined;
  if (!stored) return createWindow(window);
  const changes = windowChanges(window, stored, componentNames(workspace, stored));
  return changes.length === 0 ? 'unchanged' : updateWindow(window, stored.id, changes);
}

/** What differs between a window of the file and the workspace's, in the file's words. */
function windowChanges(window: DesiredWindow, stored: StoredWindow, components: string[]): FieldChange[] {
  const changes: FieldChange[] = [];
  if (window.message !== stored.message) changes.push({ field: 'message', from: stored.message, to: window.message });
  if (!isDeepStrictEqual(window.components, components)) changes.push({ field: 'components', from: components, to: window.components });
  const rule = (r: RepeatRule | undefined) => (r ? ruleFile(r) : null);
  if (!isDeepStrictEqual(rule(window.repeat), rule(stored.repeat))) changes.push({ field: 'repeat', from: rule(stored.repeat), to: rule(window.repeat) });
  if (!window.repeat) {
    // A one-off window: its span as given. (A repeating window of the workspace shows its next occurrence.)
    if (window.from !== stored.from || stored.repeat) changes.push({ field: 'from', from: stored.from, to: window.from });
    if (window.to !== stored.to || stored.repeat) changes.push({ field: 'to', from: stored.to, to: window.to });
  } else if (window.from !== undefined && (stored.repeat === undefined || (stored.status !== 'completed' && stored.from < window.from))) {
    // A repeating window begins at `from`: it changes only when the workspace's has an occurrence before it.
    changes.push({ field: 'from', from: stored.from, to: window.from });
  }
  return changes;
}

/** A rule as the request's message: proto3's empty values for the parts it has not. */
const ruleMessage = (rule: RepeatRule) => ({ ...rule, days: rule.days ?? [] });

/** The ids of the named components of a page, asked when the step runs (earlier steps may have added them). */
async function componentIds(api: StatusdeskClient, slug: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { components } = await api.pages.listPageComponents({ pageId: slug });
  return names.map((name) => components.find((c) => c.name === name)?.id ?? name);
}

/** A window made by a file tells nobody: `statusdesk maintenance create --notify` announces one. */
function createWindow(window: DesiredWindow): Step {
  return {
    change: { action: 'create', kind: 'maintenance', name: window.title, page: window.page },
    async run(api) {
      await api.maintenances.createMaintenance({
        pageId: window.page,
        title: window.title,
        message: window.message,
        from: window.from ?? '',
        to: window.to ?? '',
        pageComponentIds: await componentIds(api, window.page, window.components),
        notify: false,
        ...(window.repeat ? { repeat: ruleMessage(window.repeat) } : {}),
      });
    },
  };
}

const WINDOW_MASK: Record<string, string> = { message: 'message', components: 'page_component_ids', repeat: 'repeat', from: 'from', to: 'to' };

function updateWindow(window: DesiredWindow, id: string, fields: FieldChange[]): Step {
  return {
    change: { action: 'update', kind: 'maintenance', name: window.title, page: window.page, fields },
    async run(api) {
      const changed = new Set(fields.map((f) => f.field));
      await api.maintenances.updateMaintenance({
        id,
        updateMask: create(FieldMaskSchema, { paths: fields.map((f) => WINDOW_MASK[f.field]!) }),
        message: window.message,
        ...(changed.has('from') ? { from: window.from } : {}),
        ...(changed.has('to') ? { to: window.to } : {}),
        pageComponentIds: changed.has('components') ? await componentIds(api, window.page, window.components) : [],
        ...(window.repeat ? { repeat: ruleMessage(window.repeat) } : {}),
      });
    },
  };
}

function deleteWindow(window: StoredWindow, workspace: Workspace): Step {
  const page = workspace.pages.find((p) => p.id === window.pageId)?.slug ?? window.pageId;
  return {
    change: { action: 'delete', kind: 'maintenance', name: window.title, page },
    async run(api) {
      await api.maintenances.deleteMaintenance({ id: window.id });
    },
  };
}
