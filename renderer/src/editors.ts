// How each AI editor is set up to use Statusdesk's MCP server: the command, the configuration file
// and the one-click install link, in the formats the editors document. Pure functions of the
// service's addresses and the credential, so the texts are tested without a browser.
//
// - Claude Code: `claude mcp add --transport http <name> <url>`, a key with `--header "name: value"`
//   after the address (the option takes several values, so it cannot come before the name).
// - Cursor: `~/.cursor/mcp.json` with `mcpServers.<name>.url` and `headers`; the install link is
//   `cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64 of the server's JSON>`.
// - VS Code: `mcp.json` with `servers.<name>` of `type: "http"`, `url` and `headers`; the install
//   link is `vscode:mcp/install?<URL-encoded JSON of the server with its name>`.
// - Claude Desktop: `claude_desktop_config.json` starts local programs only, so it runs the stdio
//   bridge `statusdesk mcp`, which finds the service in SERVICE_API_URL and signs in with
//   SERVICE_API_KEY, or else with the login of `statusdesk login`.

export type EditorId = 'claude-code' | 'cursor' | 'vscode' | 'claude-desktop';

export interface Editor {
  id: EditorId;
  label: string;
}

export const EDITORS: readonly Editor[] = [
  { id: 'claude-code', label: 'Claude Code' },
  { id: 'cursor', label: 'Cursor' },
  { id: 'vscode', label: 'VS Code' },
  { id: 'claude-desktop', label: 'Claude Desktop' },
];

export const isEditorId = (value: string | null | undefined): value is EditorId => EDITORS.some((editor) => editor.id === value);

export const editorLabel = (id: EditorId): string => EDITORS.find((editor) => editor.id === id)?.label ?? id;

/** The name the server is added under in every editor. */
export const SERVER_NAME = 'statusdesk';

/** The header an API key travels in (SPEC: `x-service-key`). */
export const KEY_HEADER = 'x-service-key';

/** Where the service is when nothing says otherwise: the bridge and `statusdesk login` need no address then. */
export const DEFAULT_API_URL = 'http://localhost:3000';

/** How the editor proves itself: OAuth, approved in Statusdesk, or the secret of an API key. */
export type Credential = { kind: 'oauth' } | { kind: 'key'; secret: string };

/** The service's addresses as the session gives them. */
export interface Service {
  /** The API port, e.g. `http://localhost:3000`. */
  apiUrl: string;
  /** The MCP endpoint, e.g. `http://localhost:3000/mcp`. */
  mcpUrl: string;
}

const headersOf = (credential: Credential): Record<string, string> | undefined => (credential.kind === 'key' ? { [KEY_HEADER]: credential.secret } : undefined);

/**
 * One argument of a command line, safe to paste into a POSIX shell and, for the values this
 * screen makes (addresses, `name: svc_…`), into PowerShell and cmd.exe too: bare when it needs no
 * quoting, in double quotes when nothing in it is special there, else in POSIX single quotes.
 */
export function shellArgument(value: string): string {
  if (/^[\w@+=:,./-]+$/.test(value)) return value;
  if (/^[^"$`\\!%]*$/.test(value)) return `"${value}"`;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `claude mcp add`: over HTTP to the MCP address, with the key's header when there is a key. */
export function claudeCodeCommand(service: Service, credential: Credential): string {
  const words = ['claude', 'mcp', 'add', '--transport', 'http', SERVER_NAME, service.mcpUrl];
  if (credential.kind === 'key') words.push('--header', `${KEY_HEADER}: ${credential.secret}`);
  return words.map(shellArgument).join(' ');
}

/** The server as Cursor's mcp.json and its install link describe it. */
export function cursorServer(service: Service, credential: Credential): { url: string; headers?: Record<string, string> } {
  const headers = headersOf(credential);
  return headers ? { url: service.mcpUrl, headers } : { url: service.mcpUrl };
}

/** `~/.cursor/mcp.json` (or a project's `.cursor/mcp.json`) with only Statusdesk in it. */
export function cursorConfigFile(service: Service, credential: Credential): string {
  return json({ mcpServers: { [SERVER_NAME]: cursorServer(service, credential) } });
}

/** Base64 of the UTF-8 bytes of `text` (btoa alone takes Latin-1 only). */
export function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Cursor's install link: it asks Cursor to add the server, showing its configuration first. */
export function cursorInstallLink(service: Service, credential: Credential): string {
  const config = base64(JSON.stringify(cursorServer(service, credential)));
  return `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(SERVER_NAME)}&config=${encodeURIComponent(config)}`;
}

/** The server as VS Code's mcp.json describes it. */
export function vscodeServer(service: Service, credential: Credential): { type: 'http'; url: string; headers?: Record<string, string> } {
  const headers = headersOf(credential);
  return headers ? { type: 'http', url: service.mcpUrl, headers } : { type: 'http', url: service.mcpUrl };
}

/** An `mcp.json` of VS Code (the workspace's `.vscode/mcp.json` or the user's) with only Statusdesk in it. */
export function vscodeConfigFile(service: Service, credential: Credential): string {
  return json({ servers: { [SERVER_NAME]: vscodeServer(service, credential) } });
}

/** VS Code's install link: the server's configuration with its name, as `code --add-mcp` takes it. */
export function vscodeInstallLink(service: Service, credential: Credential): string {
  return `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: SERVER_NAME, ...vscodeServer(service, credential) }))}`;
}

/** `statusdesk login`, for a service elsewhere than the default address told where it is. */
export function loginCommand(service: Service): string {
  return service.apiUrl === DEFAULT_API_URL ? 'statusdesk login' : `statusdesk login --api-url ${shellArgument(service.apiUrl)}`;
}

/**
 * Claude Desktop's `claude_desktop_config.json` with Statusdesk in it: the bridge as the program,
 * the service's address when it is not the default, and the key when there is one (without a
 * key, the bridge uses the login of `statusdesk login`).
 */
export function claudeDesktopConfigFile(service: Service, credential: Credential): string {
  const env: Record<string, string> = {};
  if (service.apiUrl !== DEFAULT_API_URL) env.SERVICE_API_URL = service.apiUrl;
  if (credential.kind === 'key') env.SERVICE_API_KEY = credential.secret;
  const server = Object.keys(env).length > 0 ? { command: 'statusdesk', args: ['mcp'], env } : { command: 'statusdesk', args: ['mcp'] };
  return json({ mcpServers: { [SERVER_NAME]: server } });
}

/** A block of text to copy: a command to run or the content of a file. */
export interface Snippet {
  /** What it is, as its copy button names it: "Command", "~/.cursor/mcp.json". */
  label: string;
  kind: 'command' | 'file';
  text: string;
}

/** One step of an editor's setup. */
export interface SetupStep {
  text: string;
  snippet?: Snippet;
}

/** A link that opens the editor and asks it to add the server. */
export interface InstallLink {
  label: string;
  href: string;
  /** True when the link itself holds the key's secret. */
  carriesSecret: boolean;
}

export interface EditorSetup {
  editor: EditorId;
  installLink?: InstallLink;
  /** What to do instead of, or without, the link, in order. */
  steps: SetupStep[];
  /** How to see that it worked, in the editor. */
  check: string;
}

/** Everything the screen shows for one editor and one credential. */
export function editorSetup(editor: EditorId, service: Service, credential: Credential): EditorSetup {
  const withKey = credential.kind === 'key';
  const approve =
    'The first time it connects, your browser opens: approve it in Statusdesk (or under Settings, Integrations, Connected apps), choosing the workspace and its access.';
  switch (editor) {
    case 'claude-code':
      return {
        editor,
        steps: [
          {
            text: 'Run this in a terminal, in the project where you use Claude Code:',
            snippet: { label: 'Command', kind: 'command', text: claudeCodeCommand(service, credential) },
          },
          withKey
            ? {
                text: 'Add --scope user to the command to use Statusdesk in all your projects. The key is kept in your own Claude Code settings, not in the project.',
              }
            : { text: `In Claude Code, run /mcp, choose ${SERVER_NAME} and Authenticate. ${approve}` },
        ],
        check: `claude mcp list shows ${SERVER_NAME} as connected; inside Claude Code, /mcp lists its tools.`,
      };
    case 'cursor':
      return {
        editor,
        installLink: { label: 'Add to Cursor', href: cursorInstallLink(service, credential), carriesSecret: withKey },
        steps: [
          {
            text: 'Or add it by hand to ~/.cursor/mcp.json (every project), or to .cursor/mcp.json in one project:',
            snippet: { label: '~/.cursor/mcp.json', kind: 'file', text: cursorConfigFile(service, credential) },
          },
          withKey
            ? {
                text: 'If the file already lists other servers, add the statusdesk entry beside them under mcpServers. Keep a file with a key out of version control.',
              }
            : {
                text: `If the file already lists other servers, add the statusdesk entry beside them under mcpServers. In Cursor's MCP settings, sign in to ${SERVER_NAME} when it asks. ${approve}`,
              },
        ],
        check: `In Cursor's settings, the MCP section lists ${SERVER_NAME} with its tools.`,
      };
    case 'vscode':
      return {
        editor,
        installLink: { label: 'Add to VS Code', href: vscodeInstallLink(service, credential), carriesSecret: withKey },
        steps: [
          withKey
            ? {
                text: 'Or run MCP: Open User Configuration from the Command Palette and add it there (your own profile, never committed):',
                snippet: { label: 'mcp.json', kind: 'file', text: vscodeConfigFile(service, credential) },
              }
            : {
                text: 'Or add it to .vscode/mcp.json in your workspace (it holds no secret, so you can commit it):',
                snippet: { label: '.vscode/mcp.json', kind: 'file', text: vscodeConfigFile(service, credential) },
              },
          withKey
            ? { text: `If the file already lists other servers, add the ${SERVER_NAME} entry beside them under servers.` }
            : {
                text: `If the file already lists other servers, add the ${SERVER_NAME} entry beside them under servers. When VS Code asks to allow ${SERVER_NAME} to sign in, allow it. ${approve}`,
              },
        ],
        check: `Run MCP: List Servers from the Command Palette: ${SERVER_NAME} is running; in Chat, agent mode, the tools picker lists its tools.`,
      };
    case 'claude-desktop':
      return {
        editor,
        steps: [
          ...(withKey
            ? []
            : [
                {
                  text: 'Claude Desktop starts Statusdesk’s bridge, statusdesk mcp, which signs in with your command-line login. Log in once: it opens your browser; approve it in Statusdesk, where it is named Statusdesk CLI.',
                  snippet: { label: 'Command', kind: 'command', text: loginCommand(service) } satisfies Snippet,
                },
              ]),
          {
            text: 'In Claude Desktop, open Settings, Developer, Edit Config, and add Statusdesk under mcpServers:',
            snippet: { label: 'claude_desktop_config.json', kind: 'file', text: claudeDesktopConfigFile(service, credential) },
          },
          {
            text: 'Quit Claude Desktop completely and start it again: it reads the file only when it starts. If it cannot find statusdesk, put the command’s full path in command.',
          },
        ],
        check: `In a new chat, the tools menu lists ${SERVER_NAME} and its tools.`,
      };
  }
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
