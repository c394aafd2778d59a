import { AppError } from '../errors.ts';
import { channelCommands } from './channel-commands.ts';
import { dashboardCommand } from './dashboard-command.ts';
import { type Command, dataDir, json, required, restBase, str } from './flags.ts';
import { withLocalOwner } from './local.ts';
import { fetchWith, loginCommands, serviceCredential } from './login.ts';
import { mcpCommand } from './mcp-bridge.ts';
import { monitorCommands } from './monitor-commands.ts';
import { oauthCommands } from './oauth-commands.ts';
import { printJson, printTable } from './output.ts';
import { pageCommands } from './page-commands.ts';
import { reportCommands } from './report-commands.ts';
import { serveCommand } from './serve-command.ts';

export type { Command, Options, Values } from './flags.ts';
export { restBase } from './flags.ts';

const keysCreate: Command = {
  usage: 'keys create --workspace SLUG --scope read|write --name NAME [--data-dir D]',
  options: { ...dataDir, workspace: { type: 'string' }, scope: { type: 'string' }, name: { type: 'string' } },
  async run(values) {
    const slug = required(values, 'workspace');
    const scope = required(values, 'scope');
    const name = required(values, 'name');
    const secret = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const workspace = await services.workspaces.getBySlug(owner, slug);
      const created = await services.keys.create(owner, { workspaceId: Number(workspace.id), name, scope: scope as 'read' });
      return created.secret;
    });
    process.stdout.write(`${secret}\n`);
    process.stderr.write('This is the only time the key is shown: store it now (for example as SERVICE_API_KEY).\n');
  },
};

const keysList: Command = {
  usage: 'keys list [--workspace SLUG] [--json] [--data-dir D]',
  options: { ...dataDir, ...json, workspace: { type: 'string' } },
  async run(values) {
    const slug = str(values, 'workspace');
    const keys = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const workspaces = slug ? [await services.workspaces.getBySlug(owner, slug)] : await services.workspaces.list(owner);
      const lists = await Promise.all(
        workspaces.map(async (w) => (await services.keys.list(owner, Number(w.id))).map((k) => ({ ...k, workspace: w.slug }))),
      );
      return lists.flat();
    });
    if (values.json) return printJson(keys);
    printTable(
      ['ID', 'WORKSPACE', 'NAME', 'PREFIX', 'SCOPES', 'CREATED', 'LAST USED', 'REVOKED'],
      keys.map((k) => [k.id, k.workspace, k.name, `${k.prefix}…`, k.scopes.join(',') + (k.legacy ? ' (legacy)' : ''), k.createdAt, k.lastUsedAt, k.revokedAt]),
    );
  },
};

const keysRevoke: Command = {
  usage: 'keys revoke ID [--data-dir D]',
  options: { ...dataDir },
  positionals: 1,
  async run(values, [id]) {
    const key = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.keys.revoke(owner, id!));
    process.stderr.write(`Revoked key ${key.id} (${key.name}) at ${key.revokedAt}.\n`);
  },
};

const workspacesCreate: Command = {
  usage: 'workspaces create --name N --slug S --plan hobby|starter|pro|scale [--json] [--data-dir D]',
  options: { ...dataDir, ...json, name: { type: 'string' }, slug: { type: 'string' }, plan: { type: 'string' } },
  async run(values) {
    const input = { name: required(values, 'name'), slug: required(values, 'slug'), plan: required(values, 'plan') as 'scale' };
    const workspace = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.workspaces.create(owner, input));
    if (values.json) return printJson(workspace);
    process.stdout.write(`${workspace.slug}\n`);
  },
};

const workspacesList: Command = {
  usage: 'workspaces list [--json] [--data-dir D]',
  options: { ...dataDir, ...json },
  async run(values) {
    const workspaces = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.workspaces.list(owner));
    if (values.json) return printJson(workspaces);
    printTable(['ID', 'SLUG', 'NAME', 'PLAN', 'CREATED'], workspaces.map((w) => [w.id, w.slug, w.name, w.plan, w.createdAt]));
  },
};

const whoami: Command = {
  usage: 'whoami [--url URL] [--json]   (key from SERVICE_API_KEY or the login of `statusdesk login`, address from SERVICE_API_URL)',
  options: { ...json, url: { type: 'string' } },
  async run(values) {
    const base = restBase(str(values, 'url') ?? process.env.SERVICE_API_URL ?? 'http://localhost:3000/rpc');
    const credential = serviceCredential(base);
    let response: Response;
    try {
      response = await fetchWith(credential, `${base}/v1/whoami`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (error instanceof AppError) throw error;
      const cause = (error as Error & { cause?: NodeJS.ErrnoException }).cause;
      throw new AppError('INTERNAL', `cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, any>;
    if (!response.ok) throw new AppError(body.code ?? 'INTERNAL', `${response.status} ${body.message ?? response.statusText}`);
    if (values.json) return printJson(body);
    // An OAuth login is named as the audit log names it, oat_<grant id>.
    printTable(['WORKSPACE', 'SLUG', 'PLAN', 'KEY', 'SCOPES'], [[body.name, body.slug, body.plan, body.actor?.keyId ?? body.actor?.grantId, body.actor?.scopes?.join(',')]]);
  },
};

export const commands: Record<string, Command> = {
  serve: serveCommand,
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'workspaces create': workspacesCreate,
  'workspaces list': workspacesList,
  whoami,
  dashboard: dashboardCommand,
  ...loginCommands,
  ...oauthCommands,
  mcp: mcpCommand,
  ...monitorCommands,
  ...pageCommands,
  ...reportCommands,
  ...channelCommands,
};
