import { AppError } from '../errors.ts';
import { address, type Command, connection, dataDir, json, type Options, required, restBase, serviceUrl, str, unreachable } from './flags.ts';
import { withLocalOwner } from './local.ts';
import { fetchWith, logInTo, logOutOf, serviceCredential, serviceOrigin } from './login.ts';
import { CredentialRefused, printJson, printTable } from './output.ts';

const workspace = { workspace: { type: 'string', valueName: 'SLUG', description: 'the workspace, by its slug' } } as const satisfies Options;

const keysCreate: Command = {
  usage: 'keys create --workspace SLUG --scope read|write --name NAME [--data-dir D]',
  summary: 'create an API key and print its secret, shown only once (for SERVICE_API_KEY)',
  options: {
    ...dataDir,
    ...workspace,
    scope: { type: 'string', valueName: 'read|write', description: 'what the key may do: read, or read and write' },
    name: { type: 'string', valueName: 'NAME', description: 'a name to tell the key by' },
  },
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
  summary: 'list the API keys of every workspace, or of one',
  options: { ...dataDir, ...json, workspace: { ...workspace.workspace, description: 'only the keys of this workspace' } },
  async run(values) {
    const slug = str(values, 'workspace');
    const keys = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const workspaces = slug ? [await services.workspaces.getBySlug(owner, slug)] : await services.workspaces.list(owner);
      const lists = await Promise.all(workspaces.map(async (w) => (await services.keys.list(owner, Number(w.id))).map((k) => ({ ...k, workspace: w.slug }))));
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
  summary: 'revoke an API key: the service refuses it from then on',
  options: { ...dataDir },
  positionals: 1,
  async run(values, [id]) {
    const key = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.keys.revoke(owner, id!));
    process.stderr.write(`Revoked key ${key.id} (${key.name}) at ${key.revokedAt}.\n`);
  },
};

const workspacesCreate: Command = {
  usage: 'workspaces create --name N --slug S --plan hobby|starter|pro|scale [--json] [--data-dir D]',
  summary: 'create a workspace and print its slug',
  options: {
    ...dataDir,
    ...json,
    name: { type: 'string', valueName: 'NAME', description: "the workspace's name" },
    slug: { type: 'string', valueName: 'SLUG', description: 'its short name in commands and addresses (lower-case letters, digits, -)' },
    plan: { type: 'string', valueName: 'hobby|starter|pro|scale', description: 'the plan, which sets its limits' },
  },
  async run(values) {
    const input = { name: required(values, 'name'), slug: required(values, 'slug'), plan: required(values, 'plan') as 'scale' };
    const workspace = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.workspaces.create(owner, input));
    if (values.json) return printJson(workspace);
    process.stdout.write(`${workspace.slug}\n`);
  },
};

const workspacesList: Command = {
  usage: 'workspaces list [--json] [--data-dir D]',
  summary: 'list the workspaces',
  options: { ...dataDir, ...json },
  async run(values) {
    const workspaces = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.workspaces.list(owner));
    if (values.json) return printJson(workspaces);
    printTable(
      ['ID', 'SLUG', 'NAME', 'PLAN', 'CREATED'],
      workspaces.map((w) => [w.id, w.slug, w.name, w.plan, w.createdAt]),
    );
  },
};

const whoami: Command = {
  usage: 'whoami [--api-url URL] [--json]',
  summary: 'show the workspace and the credential the service sees (SERVICE_API_KEY, else the login)',
  options: connection,
  async run(values) {
    const base = restBase(serviceUrl(values));
    const credential = serviceCredential(base);
    let response: Response;
    try {
      response = await fetchWith(credential, `${base}/v1/whoami`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (error instanceof AppError || unreachable(error)) throw error;
      const cause = (error as Error & { cause?: NodeJS.ErrnoException }).cause;
      throw new AppError('INTERNAL', `cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, any>;
    if (response.status === 401) throw new CredentialRefused(body.message);
    if (!response.ok) throw new AppError(body.code ?? 'INTERNAL', `${response.status} ${body.message ?? response.statusText}`);
    if (values.json) return printJson(body);
    // An OAuth login is named as the audit log names it, oat_<grant id>.
    printTable(
      ['WORKSPACE', 'SLUG', 'PLAN', 'KEY', 'SCOPES'],
      [[body.name, body.slug, body.plan, body.actor?.keyId ?? body.actor?.grantId, body.actor?.scopes?.join(',')]],
    );
  },
};

/** The service a login is kept under: its origin, which is also its OAuth issuer. */
const issuerOf = (values: Parameters<Command['run']>[0]) => serviceOrigin(serviceUrl(values));

const login: Command = {
  usage: 'login [--api-url URL] [--no-browser]',
  summary: 'log in through the browser; client commands then work without SERVICE_API_KEY',
  options: { ...address, 'no-browser': { type: 'boolean', description: 'print the address to visit instead of opening the browser' } },
  run: (values) => logInTo(issuerOf(values), values['no-browser'] !== true),
};

const logout: Command = {
  usage: 'logout [--api-url URL]',
  summary: 'revoke the login to the service and forget it',
  options: address,
  run: (values) => logOutOf(issuerOf(values)),
};

/** The commands on the data folder's keys and workspaces, and of the login to a service. */
export const accountCommands: Record<string, Command> = {
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'workspaces create': workspacesCreate,
  'workspaces list': workspacesList,
  whoami,
  login,
  logout,
};
