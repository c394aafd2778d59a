import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { type Discovery, discoverMcpServers } from '../mcp-servers/discovery.ts';
import { liveServices } from '../service-record.ts';
import { MCPTransport } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { frequencies } from '../domain/plans.ts';
import { monitorInputOf } from '../mcp-servers/monitor-input.ts';
import { shownServer } from '../mcp-servers/shown.ts';
import { periodicity } from '../rpc/monitor-codec.ts';
import { address, type Command, DEFAULT_SERVICE_URL, json, note, oneOf, restBase, serviceUrl, str, type Values } from './flags.ts';
import { client } from './service-client.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk mcp-servers discover`: the MCP servers this machine's AI editors are set up with,
 * read from their configuration files (server/mcp-servers/). It reads files only and needs no
 * running service.
 */

/**
 * The service's own addresses, to recognise its entries: --api-url or SERVICE_API_URL when given,
 * else every running service's, else the default one.
 */
function ownAddresses(values: Values): string[] {
  if (str(values, 'api-url') !== undefined || process.env.SERVICE_API_URL) return [restBase(serviceUrl(values))];
  const running = liveServices().map((service) => service.apiUrl);
  return running.length > 0 ? running : [DEFAULT_SERVICE_URL];
}

/** The project folder: --project, which must be a folder, else the current one. */
function projectOf(values: Values): string {
  const given = str(values, 'project');
  if (given === undefined) return process.cwd();
  if (!statSync(given, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--project must be a folder, got "${given}"`);
  return given;
}

/** A command line as one text: an argument with a space or a quote in double quotes. */
const commandLine = (words: string[]) => words.map((word) => (word === '' || /[\s"']/.test(word) ? JSON.stringify(word) : word)).join(' ');

const unique = (values: string[]) => [...new Set(values)].join(', ');

/** Exit 1 only when files were there and none could be read; a missing editor or a bad entry is no failure. */
const exitCodeOf = ({ problems, read }: Discovery) => (problems.length > 0 && read.length === 0 ? 1 : 0);

const discover: Command = {
  usage: 'mcp-servers discover [--project DIR] [--api-url URL] [--json]',
  summary: 'list the MCP servers your AI editors are set up with, read from their configuration files (nothing is run)',
  options: {
    project: { type: 'string', valueName: 'DIR', description: 'the project whose own files are read too (default: the current folder)' },
    'api-url': {
      type: 'string',
      valueName: 'URL',
      description: `Statusdesk's address, to recognise its own entries (default: SERVICE_API_URL, else the running services', else ${DEFAULT_SERVICE_URL})`,
    },
    ...json,
  },
  async run(values) {
    const discovery = await discoverMcpServers({
      home: homedir(),
      platform: process.platform,
      cwd: projectOf(values),
      env: process.env,
      serviceUrls: ownAddresses(values),
    });
    // Problems go to stderr with --json too: they are also in its answer, for programs.
    for (const problem of discovery.problems) note(`statusdesk mcp-servers discover: ${problem.file}: ${problem.message}`);
    if (values.json) {
      printJson({ servers: discovery.found.map(shownServer), problems: discovery.problems, read: discovery.read });
      return exitCodeOf(discovery);
    }
    const { found, read } = discovery;
    if (found.length > 0) {
      printTable(
        ['NAME', 'EDITOR', 'SCOPE', 'TRANSPORT', 'TARGET', 'SOURCE'],
        found.map((server) => [
          server.itself ? `${server.name} (itself)` : server.name,
          unique(server.sources.map((source) => source.editor)),
          unique(server.sources.map((source) => source.scope)),
          server.transport,
          server.transport === 'http' ? server.server : commandLine([server.server, ...server.args]),
          server.files.join(', '),
        ]),
      );
    }
    for (const server of found) for (const warning of server.warnings) note(`${server.name}: ${warning}`);
    const ownCount = found.filter((server) => server.itself).length;
    note(
      read.length === 0 && discovery.problems.length === 0
        ? 'No MCP configuration of Claude Desktop, Claude Code, Cursor, VS Code or Windsurf was found.'
        : `${found.length} server${found.length === 1 ? '' : 's'} in ${read.length} file${read.length === 1 ? '' : 's'}${ownCount > 0 ? `, ${ownCount} of them Statusdesk itself` : ''}; nothing was run.`,
    );
    return exitCodeOf(discovery);
  },
};

const add: Command = {
  usage: 'mcp-servers add NAME... [--frequency F] [--project DIR] [--api-url URL] [--json]',
  summary: "make a monitor of each named server your editors are set up with (a stdio server's command then runs at every check)",
  options: {
    project: discover.options.project!,
    frequency: { type: 'string', valueName: 'F', description: `how often each is checked: ${frequencies.join(', ')} (default 5m)` },
    ...address,
    ...json,
  },
  positionals: 'many',
  async run(values, names) {
    if (names.length === 0) throw new UsageError('name at least one server, as `statusdesk mcp-servers discover` lists it');
    const frequency = oneOf('frequency', str(values, 'frequency') ?? '5m', frequencies);
    const { found } = await discoverMcpServers({
      home: homedir(),
      platform: process.platform,
      cwd: projectOf(values),
      env: process.env,
      serviceUrls: ownAddresses(values),
    });
    const picked = names.map((name) => {
      const server = found.find((candidate) => candidate.name === name || candidate.sources.some((source) => source.name === name));
      if (!server) throw new UsageError(`no MCP server named "${name}" was found; \`statusdesk mcp-servers discover\` lists them`);
      if (server.itself) throw new UsageError(`"${name}" is Statusdesk itself: it is watched already`);
      return server;
    });
    const api = client(values);
    const created = [];
    // Only what was picked is created; a stdio server's command runs from its first check on.
    for (const server of picked) {
      const input = monitorInputOf(server);
      const { monitor } = await api.monitors.createMCPMonitor({
        monitor: {
          ...input,
          transport: input.transport === 'stdio' ? MCPTransport.MCP_TRANSPORT_STDIO : MCPTransport.MCP_TRANSPORT_HTTP,
          periodicity: periodicity.wire(frequency),
        },
      });
      created.push({ id: monitor!.id, name: monitor!.name, transport: input.transport, server: input.server });
    }
    if (values.json) return printJson({ monitors: created });
    printTable(
      ['ID', 'NAME', 'TRANSPORT', 'SERVER'],
      created.map((m) => [m.id, m.name, m.transport, m.server]),
    );
  },
};

export const mcpServerCommands: Record<string, Command> = {
  'mcp-servers discover': discover,
  'mcp-servers add': add,
};
