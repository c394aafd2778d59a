import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where each AI editor keeps its MCP servers, on macOS, Windows and Linux, as the editors document
 * it. docs/guides/mcp-servers.md lists the same files; a change here is a change there.
 */

export type EditorId = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode' | 'windsurf';

/** `user`: every project of the user; `project`: one project (a file in it, or its entry in ~/.claude.json). */
export type McpScope = 'user' | 'project';

/**
 * How a file holds its servers:
 * - `mcpServers`: a top-level `mcpServers` object (Claude Desktop, `.mcp.json`, Cursor, Windsurf);
 * - `claude-code`: `~/.claude.json`, with the user's `mcpServers` and each project's under `projects[<folder>].mcpServers`;
 * - `servers`: VS Code's `mcp.json`, a top-level `servers` object;
 * - `vscode-settings`: VS Code's user `settings.json`, under `mcp.servers`.
 */
export type FileFormat = 'mcpServers' | 'claude-code' | 'servers' | 'vscode-settings';

export interface EditorFile {
  editor: EditorId;
  scope: McpScope;
  file: string;
  format: FileFormat;
  /** Whether the editor reads it as JSON with comments and trailing commas (VS Code's files), rather than plain JSON. */
  comments: boolean;
}

export interface MachineFolders {
  /** The user's home folder. */
  home: string;
  platform: NodeJS.Platform;
  /** The project folder whose own files (`.mcp.json`, `.cursor/`, `.vscode/`) are read too. */
  cwd?: string;
  /** The environment that moves the application data folder: APPDATA on Windows, XDG_CONFIG_HOME elsewhere but macOS. */
  env?: Record<string, string | undefined>;
}

/**
 * The folder Electron apps (Claude Desktop, VS Code) keep their settings in: `~/Library/Application
 * Support` on macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME` or `~/.config` elsewhere.
 */
export function appDataFolder({ home, platform, env = {} }: MachineFolders): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA || join(home, 'AppData', 'Roaming');
  // The XDG specification ignores a relative XDG_CONFIG_HOME.
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
}

/** Every file discovery reads, in the order it reads them; the first file a server is found in names it. */
export function editorFiles(folders: MachineFolders): EditorFile[] {
  const { home } = folders;
  const appData = appDataFolder(folders);
  const files: EditorFile[] = [
    { editor: 'claude-desktop', scope: 'user', file: join(appData, 'Claude', 'claude_desktop_config.json'), format: 'mcpServers', comments: false },
    { editor: 'claude-code', scope: 'user', file: join(home, '.claude.json'), format: 'claude-code', comments: false },
    { editor: 'cursor', scope: 'user', file: join(home, '.cursor', 'mcp.json'), format: 'mcpServers', comments: false },
    { editor: 'vscode', scope: 'user', file: join(appData, 'Code', 'User', 'settings.json'), format: 'vscode-settings', comments: true },
    { editor: 'vscode', scope: 'user', file: join(appData, 'Code', 'User', 'mcp.json'), format: 'servers', comments: true },
    { editor: 'windsurf', scope: 'user', file: join(home, '.codeium', 'windsurf', 'mcp_config.json'), format: 'mcpServers', comments: false },
  ];
  if (folders.cwd !== undefined) {
    const project = resolve(folders.cwd);
    const own: EditorFile[] = [
      { editor: 'claude-code', scope: 'project', file: join(project, '.mcp.json'), format: 'mcpServers', comments: false },
      { editor: 'cursor', scope: 'project', file: join(project, '.cursor', 'mcp.json'), format: 'mcpServers', comments: false },
      { editor: 'vscode', scope: 'project', file: join(project, '.vscode', 'mcp.json'), format: 'servers', comments: true },
    ];
    // A project that is the home folder itself has Cursor's user file as its own: read it once, as the user's.
    files.push(...own.filter((candidate) => !files.some((known) => known.file === candidate.file)));
  }
  return files;
}
