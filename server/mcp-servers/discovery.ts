import { readFile } from 'node:fs/promises';
import { win32 } from 'node:path';
import stripJsonComments from 'strip-json-comments';
import { type EditorFile, type EditorId, editorFiles, type MachineFolders, type McpScope } from './editor-files.ts';

/**
 * Finds the MCP servers the AI editors of this machine are configured with, by reading their
 * configuration files (editor-files.ts). It reads files only: it runs nothing, connects nowhere and
 * writes nothing. Values are kept as written: `${env:VAR}`, `${VAR}` and `${input:id}` stay
 * references, never expanded from this process's environment, which is not the editor's.
 */

export type { EditorId, McpScope } from './editor-files.ts';

export type McpTransport = 'http' | 'stdio';

/** One place a server was found: the editor, the file and the name it has there. */
export interface McpServerSource {
  editor: EditorId;
  scope: McpScope;
  file: string;
  name: string;
  /** For an entry of `projects` in ~/.claude.json: the project folder it is for. */
  project?: string;
}

export interface FoundMcpServer {
  /** The name, editor, scope and file of the first place it was found (`sources[0]`). */
  name: string;
  editor: EditorId;
  scope: McpScope;
  file: string;
  /** Every file it was found in, in reading order, each once. */
  files: string[];
  /** Every place it was found, in reading order. */
  sources: McpServerSource[];
  transport: McpTransport;
  /** The URL (http) or the command (stdio). */
  server: string;
  /** The command's arguments; empty for http. */
  args: string[];
  /** The command's environment as written; empty for http. */
  env: Record<string, string>;
  /** The request headers as written; empty for stdio. */
  headers: Record<string, string>;
  /** The command's working folder; empty when the file names none, and for http. */
  cwd: string;
  /** Statusdesk's own `/mcp` endpoint, or its stdio bridge `statusdesk mcp`. */
  itself: boolean;
  /** What the entry holds that a monitor made of it would not use as the editor does. */
  warnings: string[];
}

/** A file that exists but could not be read, or an entry of it that is not a server. */
export interface DiscoveryProblem {
  file: string;
  message: string;
}

export interface DiscoveryOptions extends MachineFolders {
  /**
   * The service's own API addresses (`http://localhost:3000`): a URL on a loopback host with one of
   * their ports and the path `/mcp` is Statusdesk itself. Without them only the bridge command is recognised.
   */
  serviceUrls?: string[];
}

export interface Discovery {
  found: FoundMcpServer[];
  problems: DiscoveryProblem[];
  /** The files that were there and were read (even when some of their entries were problems). */
  read: string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON value's kind, in a sentence: `an array`, `a string`. */
function kindOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A file that is not there (or whose folder is not) is no problem: that editor is simply not set up. */
const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/** The text of a file, undefined when missing; a problem when it cannot be read. */
async function readText(file: string): Promise<string | undefined | DiscoveryProblem> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    const { code, message } = error as NodeJS.ErrnoException;
    return { file, message: `cannot be read: ${code === 'EISDIR' ? 'it is a folder' : message}` };
  }
}

/**
 * The JSON of a file's text, or why not, with the line and column JSON.parse names. Comments and
 * trailing commas are blanked out (not removed) for the files that allow them, so the positions
 * stay those of the file.
 */
function parse(text: string, comments: boolean): { value: Json } | { error: string } {
  const body = text.replace(/^\uFEFF/, '');
  try {
    return { value: JSON.parse(comments ? stripJsonComments(body, { trailingCommas: true }) : body) as Json };
  } catch (error) {
    const message = (error as Error).message;
    const at = /\s*in JSON at position \d+(?: \(line (\d+) column (\d+)\))?/.exec(message);
    const said = at ? message.slice(0, at.index) : message;
    const where = at?.[1] ? ` at line ${at[1]}, column ${at[2]}` : '';
    return { error: `not valid JSON${comments ? ' (comments and trailing commas allowed)' : ''}${where}: ${said}` };
  }
}

/** A server as one entry of a file describes it, before it is compared with the others. */
type Entry = Omit<FoundMcpServer, 'name' | 'editor' | 'scope' | 'file' | 'files' | 'sources' | 'itself'>;

const HTTP_TYPES = ['http', 'streamable-http', 'streamableHttp', 'sse'];

/** A map of names to text (env, headers): numbers and booleans are written as text; anything else is refused. */
function textMap(value: Json | undefined, field: string): Record<string, string> | string {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) return `"${field}" must be an object of names and values, got ${kindOf(value)}`;
  const map: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') return `"${field}.${key}" must be text, got ${kindOf(item)}`;
    map[key] = String(item);
  }
  return map;
}

/** The entry as a server, or why it is not one. */
function readEntry(raw: Json, editor: EditorId): Entry | string {
  if (!isObject(raw)) return `must be an object, got ${kindOf(raw)}`;
  const { type, command } = raw;
  // Windsurf names the address serverUrl; every other editor url.
  const url = raw.url ?? raw.serverUrl;
  if (type !== undefined && typeof type !== 'string') return `"type" must be text, got ${kindOf(type)}`;
  if (type !== undefined && type !== 'stdio' && !HTTP_TYPES.includes(type)) return `has type "${type}": only stdio, http and sse servers are known`;
  if (type === undefined && command !== undefined && url !== undefined) return 'has both "command" and "url": give "type" to say which it is';
  const transport = type === 'stdio' || (type === undefined && command !== undefined) ? 'stdio' : type !== undefined || url !== undefined ? 'http' : undefined;
  if (transport === undefined) return `has neither "command" nor "${editor === 'windsurf' ? 'serverUrl' : 'url'}"`;

  const warnings: string[] = [];
  if (raw.disabled === true) warnings.push(`disabled in the editor`);
  if (transport === 'http') {
    if (typeof url !== 'string' || url.trim() === '') return `is an http server without a "url" (text)`;
    const headers = textMap(raw.headers, 'headers');
    if (typeof headers === 'string') return headers;
    if (type === 'sse') warnings.push('uses the older HTTP+SSE transport, where a monitor speaks Streamable HTTP');
    return { transport, server: url, args: [], env: {}, headers, cwd: '', warnings: withReferences(warnings, [url, ...Object.values(headers)]) };
  }
  if (typeof command !== 'string' || command.trim() === '') return `is a stdio server without a "command" (text)`;
  const args = raw.args ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) return '"args" must be a list of texts';
  const env = textMap(raw.env, 'env');
  if (typeof env === 'string') return env;
  const cwd = raw.cwd ?? '';
  if (typeof cwd !== 'string') return `"cwd" must be text, got ${kindOf(cwd)}`;
  if (typeof raw.envFile === 'string')
    warnings.push(`its envFile (${raw.envFile}) is not read: add what the server needs from it to the monitor's environment`);
  const words = [command, ...(args as string[]), ...Object.values(env), cwd];
  return { transport, server: command, args: args as string[], env, headers: {}, cwd, warnings: withReferences(warnings, words) };
}

/** The warnings, and one more when a value refers to a variable or input of the editor's. */
function withReferences(warnings: string[], values: string[]): string[] {
  return values.some((value) => value.includes('${'))
    ? // biome-ignore lint/suspicious/noTemplateCurlyInString: the text names the editors' ${...} syntax; it is no template
      [...warnings, 'holds ${...} references, kept as written: the editor fills them in, a monitor does not']
    : warnings;
}

/** Where a file keeps its servers: each container's object of entries, with how a message names it. */
function containers(value: Json, { format, scope }: EditorFile): { where: string; servers: Json | undefined; scope: McpScope; project?: string }[] {
  if (!isObject(value)) return [{ where: 'the file', servers: value, scope }];
  switch (format) {
    case 'mcpServers':
      return [{ where: 'mcpServers', servers: value.mcpServers, scope }];
    case 'servers':
      return [{ where: 'servers', servers: value.servers, scope }];
    case 'vscode-settings': {
      const mcp = value.mcp;
      if (mcp === undefined) return [];
      return isObject(mcp) ? [{ where: 'mcp.servers', servers: mcp.servers, scope }] : [{ where: 'mcp', servers: mcp, scope }];
    }
    case 'claude-code': {
      const projects = isObject(value.projects) ? Object.entries(value.projects) : [];
      return [
        { where: 'mcpServers', servers: value.mcpServers, scope },
        ...projects.map(([project, settings]) => ({
          where: `projects[${JSON.stringify(project)}].mcpServers`,
          servers: isObject(settings) ? settings.mcpServers : undefined,
          scope: 'project' as const,
          project,
        })),
      ];
    }
  }
}

/** The servers of one file, and its problems. */
function serversOf(value: Json, source: EditorFile): { entries: { entry: Entry; place: McpServerSource }[]; problems: DiscoveryProblem[] } {
  const entries: { entry: Entry; place: McpServerSource }[] = [];
  const problems: DiscoveryProblem[] = [];
  const problem = (message: string) => problems.push({ file: source.file, message });
  if (!isObject(value)) problem(`must hold a JSON object, got ${kindOf(value)}`);
  else {
    for (const { where, servers, scope, project } of containers(value, source)) {
      if (servers === undefined || servers === null) continue;
      if (!isObject(servers)) {
        problem(`"${where}" must be an object of servers by name, got ${kindOf(servers)}`);
        continue;
      }
      for (const [name, raw] of Object.entries(servers)) {
        const entry = readEntry(raw, source.editor);
        if (typeof entry === 'string') problem(`server "${name}" in ${where}: ${entry}`);
        else entries.push({ entry, place: { editor: source.editor, scope, file: source.file, name, ...(project === undefined ? {} : { project }) } });
      }
    }
  }
  return { entries, problems };
}

/** The last part of a command or path on any system, without an extension a launcher adds (statusdesk.cmd, statusdesk.js). */
const programName = (word: string) =>
  win32
    .basename(word)
    .toLowerCase()
    .replace(/\.(cmd|exe|bat|ps1|js|mjs)$/, '');

/**
 * Whether a command runs Statusdesk's stdio bridge: `statusdesk mcp`, also through a launcher
 * (`npx -y statusdesk mcp`, `node …/statusdesk.js mcp`, `cmd /c statusdesk mcp`).
 */
export function isBridgeCommand(command: string, args: string[]): boolean {
  const words = [command, ...args];
  return words.some((word, at) => words[at + 1] === 'mcp' && /^statusdesk(@.*)?$/.test(programName(word)));
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/** Whether a URL is Statusdesk's own MCP endpoint: a loopback host, the port of one of the service's addresses, the path /mcp. */
export function isOwnMcpUrl(address: string, serviceUrls: string[]): boolean {
  const url = URL.parse(address);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !LOOPBACK.test(url.hostname)) return false;
  if (url.pathname.replace(/\/+$/, '') !== '/mcp') return false;
  return serviceUrls.some((own) => {
    const service = URL.parse(own);
    return service !== null && portOf(service) === portOf(url);
  });
}

/**
 * What makes two entries the same server: everything a monitor of it would use, names aside (the
 * same server is often named differently in each editor). Header names are compared in lower case,
 * as HTTP does; environment and header entries in any order.
 */
function identity(entry: Entry): string {
  const sorted = (map: Record<string, string>, lower = false) =>
    Object.entries(map)
      .map(([k, v]) => [lower ? k.toLowerCase() : k, v])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return JSON.stringify([entry.transport, entry.server, entry.args, sorted(entry.env), sorted(entry.headers, true), entry.cwd]);
}

/** Reads every editor's files (editor-files.ts) and returns the servers they name, each once, and what could not be read. */
export async function discoverMcpServers(options: DiscoveryOptions): Promise<Discovery> {
  const files = editorFiles(options);
  const texts = await Promise.all(files.map((source) => readText(source.file)));
  const problems: DiscoveryProblem[] = [];
  const read: string[] = [];
  const byIdentity = new Map<string, FoundMcpServer>();
  files.forEach((source, at) => {
    const text = texts[at];
    if (text === undefined) return;
    if (typeof text !== 'string') return void problems.push(text);
    if (text.trim() === '') return void read.push(source.file); // an empty file holds no servers
    const parsed = parse(text, source.comments);
    if ('error' in parsed) return void problems.push({ file: source.file, message: parsed.error });
    read.push(source.file);
    const own = serversOf(parsed.value, source);
    problems.push(...own.problems);
    for (const { entry, place } of own.entries) {
      const key = identity(entry);
      const known = byIdentity.get(key);
      if (known) {
        known.sources.push(place);
        if (!known.files.includes(place.file)) known.files.push(place.file);
        for (const warning of entry.warnings) if (!known.warnings.includes(warning)) known.warnings.push(warning);
        continue;
      }
      const itself = entry.transport === 'http' ? isOwnMcpUrl(entry.server, options.serviceUrls ?? []) : isBridgeCommand(entry.server, entry.args);
      byIdentity.set(key, {
        name: place.name,
        editor: place.editor,
        scope: place.scope,
        file: place.file,
        files: [place.file],
        sources: [place],
        ...entry,
        itself,
      });
    }
  });
  return { found: [...byIdentity.values()], problems, read };
}
