import type { Command } from './flags.ts';

export type { Command, Options, Values } from './flags.ts';
export { restBase } from './flags.ts';

type Commands = Record<string, Command>;

/**
 * The command modules, each by the first words of the commands it defines: a command runs with its
 * own module alone, so `serve` loads neither the client library, the login code nor the other
 * commands. Help, and a name no module claims, load every module.
 */
const MODULES: [firstWords: string[], load: () => Promise<Commands>][] = [
  [['serve'], async () => ({ serve: (await import('./serve-command.ts')).serveCommand })],
  [['dashboard'], async () => ({ dashboard: (await import('./dashboard-command.ts')).dashboardCommand })],
  [['runner'], async () => ({ runner: (await import('./runner-command.ts')).runnerCommand })],
  [['keys', 'workspaces', 'whoami', 'login', 'logout'], async () => (await import('./account-commands.ts')).accountCommands],
  [['oauth'], async () => (await import('./oauth-commands.ts')).oauthCommands],
  [['members'], async () => (await import('./member-commands.ts')).memberCommands],
  [['mcp'], async () => ({ mcp: (await import('./mcp-bridge.ts')).mcpCommand })],
  [['mcp-servers'], async () => (await import('./mcp-server-commands.ts')).mcpServerCommands],
  [['monitors'], async () => (await import('./monitor-commands.ts')).monitorCommands],
  [['pages'], async () => (await import('./page-commands.ts')).pageCommands],
  [['reports', 'maintenance'], async () => (await import('./report-commands.ts')).reportCommands],
  [['channels'], async () => (await import('./channel-commands.ts')).channelCommands],
  [['locations'], async () => (await import('./location-commands.ts')).locationCommands],
  [['settings'], async () => (await import('./settings-commands.ts')).settingsCommands],
  [['apply', 'export'], async () => (await import('./config-as-code/commands.ts')).configCommands],
];

/** Every command, by name: for help, and for the nearest name to one mistyped. */
export async function allCommands(): Promise<Commands> {
  return Object.assign({}, ...(await Promise.all(MODULES.map(([, load]) => load()))));
}

/** The commands of the module that claims the first word of argv; none when no module does. */
export async function commandsOf(argv: string[]): Promise<Commands> {
  const module = MODULES.find(([words]) => words.includes(argv[0] ?? ''));
  return module ? module[1]() : {};
}
