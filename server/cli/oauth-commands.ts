import { AppError } from '../errors.ts';
import { type Command, dataDir, json, note, oneOf, str } from './flags.ts';
import { withLocalOwner } from './local.ts';
import { printJson, printTable } from './output.ts';

/**
 * `statusdesk oauth pending|approve|deny`: the owner decides on an app's request to connect from
 * the command line, one of the trusted places the consent page points to. The commands work on the
 * data folder as the owner, as `keys` does; the waiting browser page sees the decision on its own.
 */

const ACCESS = ['read', 'write'] as const;

/** An unknown code most likely was mistyped or has expired: say where the live ones are. */
async function byCode<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', `${error.message}: see \`statusdesk oauth pending\``);
    throw error;
  }
}

const pending: Command = {
  usage: 'oauth pending [--json] [--data-dir D]',
  summary: 'list the apps waiting for your approval to connect, with their matching codes',
  options: { ...dataDir, ...json },
  async run(values) {
    const requests = await withLocalOwner(str(values, 'data-dir'), (services, owner) => services.oauth.pending(owner));
    if (values.json) return printJson(requests);
    if (requests.length === 0) return note('No app is waiting for approval.');
    printTable(
      ['CODE', 'CLIENT', 'SOURCE', 'REDIRECT HOST', 'ACCESS', 'EXPIRES'],
      requests.map((r) => [
        r.matchCode,
        r.client.name,
        r.client.source === 'metadata' ? `metadata ${r.client.host}` : 'registered',
        r.loopbackRedirect ? `${r.redirectHost} (loopback)` : r.redirectHost,
        r.access,
        r.expiresAt,
      ]),
    );
    note('Approve only the code your browser shows. A loopback redirect can be received by any program on this machine.');
  },
};

const approve: Command = {
  usage: 'oauth approve CODE [--workspace SLUG] [--access read|write] [--data-dir D]',
  summary: 'let the app whose request shows CODE connect to a workspace',
  options: {
    ...dataDir,
    workspace: { type: 'string', valueName: 'SLUG', description: 'the workspace the app gets (needed when there are several)' },
    access: { type: 'string', valueName: 'read|write', description: 'the access it gets (default: what it asked for)' },
  },
  positionals: 1,
  async run(values, [code]) {
    const slug = str(values, 'workspace');
    const given = str(values, 'access');
    const access = given === undefined ? undefined : oneOf('access', given, ACCESS);
    const { request, workspace } = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const chosen = slug === undefined ? undefined : await services.workspaces.getBySlug(owner, slug);
      const request = await byCode(services.oauth.approve(owner, { matchCode: code! }, { workspaceId: chosen && Number(chosen.id), access }));
      // Without --workspace the approval succeeds only when the owner has one workspace: that one.
      return { request, workspace: chosen?.slug ?? (await services.workspaces.list(owner)).map((w) => w.slug).join(', ') };
    });
    note(`approved ${request.client.name} for ${workspace} with ${access ?? request.access} access`);
  },
};

const deny: Command = {
  usage: 'oauth deny CODE [--data-dir D]',
  summary: 'refuse the app whose request shows CODE',
  options: { ...dataDir },
  positionals: 1,
  async run(values, [code]) {
    const request = await withLocalOwner(str(values, 'data-dir'), (services, owner) => byCode(services.oauth.deny(owner, { matchCode: code! })));
    note(`denied ${request.client.name}`);
  },
};

export const oauthCommands: Record<string, Command> = {
  'oauth pending': pending,
  'oauth approve': approve,
  'oauth deny': deny,
};
