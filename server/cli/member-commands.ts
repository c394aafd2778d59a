import { DEFAULT_DASHBOARD_PORT, serviceConfig } from '../config.ts';
import { confirmed, yes } from './confirm.ts';
import { type Command, dataDir, json, note, oneOf, type Options, parseDuration, str, type Values } from './flags.ts';
import { withLocalOwner } from './local.ts';
import { printJson, printTable, UsageError } from './output.ts';

const ROLES = ['member', 'admin', 'owner'] as const;
const HOUR_MS = 3_600_000;

const workspace = {
  workspace: { type: 'string', valueName: 'SLUG', description: 'the workspace, by its slug (default personal)' },
} as const satisfies Options;

const slugOf = (values: Values) => str(values, 'workspace') ?? 'personal';

const membersList: Command = {
  usage: 'members list [--workspace SLUG] [--json] [--data-dir D]',
  summary: 'list the people of a workspace and their roles',
  options: { ...dataDir, ...json, ...workspace },
  async run(values) {
    const members = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const ws = await services.workspaces.getBySlug(owner, slugOf(values));
      return services.members.list(owner, Number(ws.id));
    });
    if (values.json) return printJson(members);
    printTable(
      ['ID', 'NAME', 'ROLE', 'JOINED'],
      members.map((m) => [m.userId, m.name, m.role, m.joinedAt]),
    );
  },
};

const membersInvite: Command = {
  usage: 'members invite [--workspace SLUG] [--role member|admin|owner] [--note TEXT] [--expires 72h] [--dashboard-url URL] [--data-dir D]',
  summary: 'make a one-time invitation link to the workspace and print it, shown only once',
  options: {
    ...dataDir,
    ...workspace,
    role: { type: 'string', valueName: 'member|admin|owner', description: 'the role the invited person gets (default member)' },
    note: { type: 'string', valueName: 'TEXT', description: 'who it is for, shown in the list of invitations' },
    expires: { type: 'string', valueName: 'DURATION', description: 'how long the link works: 1h to 30d (default 72h)' },
    'dashboard-url': {
      type: 'string',
      valueName: 'URL',
      description: "the dashboard's address in the link (default: DASHBOARD_URL, else the running service's dashboard, else http://localhost:3001)",
    },
  },
  async run(values) {
    const role = oneOf('role', str(values, 'role') ?? 'member', ROLES);
    const expires = str(values, 'expires');
    const ms = expires === undefined ? undefined : parseDuration('expires', expires);
    if (ms !== undefined && ms % HOUR_MS !== 0) throw new UsageError(`--expires must be a whole number of hours (like 24h or 3d), got "${expires}"`);
    const input = { role, note: str(values, 'note') ?? '', ...(ms === undefined ? {} : { expiresInHours: ms / HOUR_MS }) };
    const { invitation, token, service } = await withLocalOwner(str(values, 'data-dir'), async (services, owner, folder) => {
      const ws = await services.workspaces.getBySlug(owner, slugOf(values));
      return { ...(await services.members.invite(owner, Number(ws.id), input)), service: folder.service };
    });
    // The address named, else the dashboard's public one, else the dashboard of the service running on the folder.
    const dashboardUrl = (
      str(values, 'dashboard-url') ??
      serviceConfig({}).dashboardUrl ??
      service?.dashboardUrl ??
      `http://localhost:${DEFAULT_DASHBOARD_PORT}`
    ).replace(/\/+$/, '');
    process.stdout.write(`${dashboardUrl}/invite/${token}\n`);
    note(`the link works once, until ${invitation.expiresAt}, and makes its person ${role === 'member' ? 'a' : 'an'} ${role}; it is not shown again`);
  },
};

const membersRole: Command = {
  usage: 'members role USER_ID member|admin|owner [--workspace SLUG] [--data-dir D]',
  summary: "change a member's role",
  options: { ...dataDir, ...workspace },
  positionals: 2,
  async run(values, [userId, roleName]) {
    const role = oneOf('role', roleName!, ROLES);
    const member = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const ws = await services.workspaces.getBySlug(owner, slugOf(values));
      return services.members.changeRole(owner, Number(ws.id), userId!, { role });
    });
    note(`${member.name} (${member.userId}) is now ${member.role === 'member' ? 'a' : 'an'} ${member.role}.`);
  },
};

const membersRemove: Command = {
  usage: 'members remove USER_ID [--yes] [--workspace SLUG] [--data-dir D]',
  summary: 'remove a person from the workspace, revoking their connected apps and API keys in it (asks first; --yes when not on a terminal)',
  options: { ...dataDir, ...workspace, ...yes },
  positionals: 1,
  async run(values, [userId]) {
    const go = await confirmed(values, async () => {
      const members = await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
        const ws = await services.workspaces.getBySlug(owner, slugOf(values));
        return services.members.list(owner, Number(ws.id));
      });
      const member = members.find((m) => m.userId === userId);
      return `Remove ${member ? `${member.name} (${userId})` : `member ${userId}`} from ${slugOf(values)}? Their connected apps and API keys in it are revoked.`;
    });
    if (!go) return 1;
    await withLocalOwner(str(values, 'data-dir'), async (services, owner) => {
      const ws = await services.workspaces.getBySlug(owner, slugOf(values));
      await services.members.remove(owner, Number(ws.id), userId!);
    });
    note(`Removed member ${userId} from ${slugOf(values)}.`);
  },
};

/** The commands on a workspace's people, on the data folder as its owner. */
export const memberCommands: Record<string, Command> = {
  'members list': membersList,
  'members invite': membersInvite,
  'members role': membersRole,
  'members remove': membersRemove,
};
