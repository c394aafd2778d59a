import { type McpServerFactory, ProtocolError, ProtocolErrorCode, Server, type Tool as ListedTool } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Actor, type Credential, isCredential } from '../domain/actor.ts';
import { planOf } from '../domain/plans.ts';
import type { Services } from '../services.ts';
import { validationError } from '../domain/validation.ts';
import type { AppError, ErrorCode } from '../errors.ts';
import { storageFullCause } from '../db/storage-full.ts';
import { asAppError } from '../http/errors.ts';
import { oncePerFrozen } from '../http/once-per-frozen.ts';
import { contentTools } from './content-tools.ts';
import { monitorTools } from './monitor-tools.ts';
import { pageTools } from './page-tools.ts';
import { type Resource, resourcesOf, type ResourceSources } from './resources.ts';
import type { Tool, ToolContext } from './tool.ts';
import { workspaceTools } from './workspace-tools.ts';

/** Every tool of SPEC 4.3, in the order tools/list shows them. */
const allTools: readonly Tool[] = [...pageTools, ...monitorTools, ...workspaceTools, ...contentTools];

const writeTools = new Set(allTools.filter((t) => t.access === 'write').map((t) => t.name));

/** Whether a tool changes things, and so needs the write scope. */
export function isWriteTool(name: string): boolean {
  return writeTools.has(name);
}

/** Errors the caller can fix by changing the input: a tool result, so the model sees and retries (SPEC 7). */
const toolErrors = new Set<ErrorCode>(['NOT_FOUND', 'VALIDATION', 'CONFLICT', 'LIMIT_EXCEEDED', 'PRECONDITION_FAILED']);
/** JSON-RPC codes of the errors that are not the input's fault; -32000 to -32099 are the server's own. */
const jsonRpcCodes: Partial<Record<ErrorCode, number>> = {
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  STORAGE_FULL: -32007,
  INTERNAL: ProtocolErrorCode.InternalError,
};

const INSTRUCTIONS = [
  'Statusdesk monitors network endpoints (TCP, gRPC health, HTTP) and publishes status pages.',
  'Look up pageId with list_status_pages and pageComponentIds with list_page_components before creating reports or maintenance.',
  'Publishing tools require notify: true tells the page subscribers, false never does and cannot be undone.',
  'Documentation: search_docs and get_doc_page; the reference of this server is the mcp-server-reference resource.',
].join(' ');

/** A tool as tools/list shows it; schemas are converted once, not per request. */
function listing(tool: Tool): ListedTool {
  const { $schema: _in, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' });
  const { $schema: _out, ...outputSchema } = z.toJSONSchema(tool.output, { io: 'output' });
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as ListedTool['inputSchema'],
    outputSchema: outputSchema as ListedTool['outputSchema'],
    annotations: tool.annotations,
  };
}

interface ToolSet {
  /** What this caller can call: the plan's tools. A write tool a read credential calls reaches the service, which refuses it. */
  callable: Map<string, Tool>;
  /** What tools/list shows this caller: the callable tools its scope allows. */
  listed: ListedTool[];
}

/** The four tool sets (read or write scope, with or without the audit log), built once. */
function toolSets() {
  // Built on first use, not at start-up: the service starts before anyone asks for tools.
  let listings: Map<string, ListedTool> | undefined;
  const sets = new Map<string, ToolSet>();
  return (canWrite: boolean, auditLog: boolean): ToolSet => {
    const key = `${canWrite}:${auditLog}`;
    let set = sets.get(key);
    if (!set) {
      const callable = allTools.filter((t) => t.feature !== 'auditLog' || auditLog);
      set = {
        callable: new Map(callable.map((t) => [t.name, t])),
        listed: callable
          .filter((t) => t.access !== 'write' || canWrite)
          .map((t) => (listings ??= new Map(allTools.map((l) => [l.name, listing(l)]))).get(t.name)!),
      };
      sets.set(key, set);
    }
    return set;
  };
}

/**
 * The JSON text of a tool answer, kept by the answer when it is frozen: a tool that answers again
 * with the same frozen object (list_monitors, while nothing it shows changed) is not stringified
 * again.
 */
const textOf = oncePerFrozen((answer: object) => JSON.stringify(answer));

/**
 * The tool result of an error the caller can fix: `CODE: message` as its one text content, and no
 * `structuredContent`. An error is not the tool's output, so it cannot match the outputSchema, and
 * 1.x SDK clients (the MCP Inspector, most editors) check structuredContent against it even when
 * isError is set: they would throw -32602 and the model would never read the message. A VALIDATION
 * message already names each rejected field and its rule (`field: rule; field: rule`).
 */
function toolError(error: AppError) {
  return { content: [{ type: 'text' as const, text: `${error.code}: ${error.message}` }], isError: true };
}

export interface McpServerOptions extends ResourceSources {
  services: Services;
  version: string;
  log: Logger;
}

/** The caller an MCP request was admitted as (set by the route, read by the factory). */
function actorOf(extra: Record<string, unknown> | undefined): Credential {
  const actor = extra?.actor as Actor | undefined;
  if (!actor || !isCredential(actor)) throw new ProtocolError(jsonRpcCodes.UNAUTHORIZED!, 'the request reached the MCP server without a credential');
  return actor;
}

/**
 * The factory of the per-request MCP server: one fresh instance for each HTTP request, holding
 * that request's caller and nothing else, so nothing can leak between clients.
 */
export function createMcpServerFactory(options: McpServerOptions): McpServerFactory {
  const { services, content, log } = options;
  const setFor = toolSets();
  const resources: Resource[] = resourcesOf(options);
  const resourceList = resources.map(({ read: _read, ...listed }) => listed);

  return async ({ authInfo }) => {
    const actor = actorOf(authInfo?.extra);
    // The plan decides only whether the audit tools exist: read it when a request needs to know.
    const toolsOfPlan = async () => setFor(actor.scopes.includes('write'), planOf((await services.identity.whoami(actor)).plan).auditLog);
    const everyPlan = setFor(actor.scopes.includes('write'), true);
    const context: ToolContext = { actor, workspaceId: actor.workspaceId, services, content };

    const server = new Server(
      { name: 'statusdesk', title: 'Statusdesk', version: options.version },
      { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler('tools/list', async () => ({ tools: (await toolsOfPlan()).listed }));
    server.setRequestHandler('tools/call', async (request) => {
      const { name, arguments: args } = request.params;
      let tool = everyPlan.callable.get(name);
      if (tool?.feature !== undefined) tool = (await toolsOfPlan()).callable.get(name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${name}: call tools/list for the tools this credential can use`);
      const parsed = tool.input.safeParse(args ?? {}, {
        error: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
      });
      if (!parsed.success) {
        const invalid = validationError(parsed.error.issues);
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid arguments for ${name}: ${invalid.message}`, {
          code: 'VALIDATION',
          violations: invalid.violations,
        });
      }
      try {
        const result = await tool.run(context, parsed.data);
        return { content: [{ type: 'text', text: textOf(result) }], structuredContent: result };
      } catch (thrown) {
        const error = asAppError(thrown);
        if (toolErrors.has(error.code)) return toolError(error);
        if (error.code === 'INTERNAL') log.error({ err: thrown, tool: name }, 'mcp tool failed');
        if (error.code === 'STORAGE_FULL')
          log.error({ err: thrown, tool: name }, `the database is full; the change was not stored (${storageFullCause(thrown)})`);
        throw new ProtocolError(jsonRpcCodes[error.code] ?? ProtocolErrorCode.InternalError, error.message, { code: error.code });
      }
    });
    server.setRequestHandler('resources/list', () => ({ resources: resourceList }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
    server.setRequestHandler('resources/read', async (request) => {
      const resource = resources.find((r) => r.uri === request.params.uri);
      if (!resource)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${request.params.uri}: resources/list names the three there are`);
      return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: await resource.read() }] };
    });
    return server;
  };
}
