import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { MCP_LIMITS } from '../../../../contract/limits.ts';
import { httpHeaders, httpUrl } from '../../validation.ts';
import { DEFAULTED_REGIONS } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

export const mcpTransports = ['http', 'stdio'] as const;
export type McpTransport = (typeof mcpTransports)[number];

/**
 * The PATH a stdio server gets when its environment names none: it runs with only the
 * environment its monitor gives, never the service's.
 */
export const DEFAULT_COMMAND_PATH = process.platform === 'win32' ? 'C:\\Windows\\System32;C:\\Windows' : '/usr/local/bin:/usr/bin:/bin';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Anything but NUL and line breaks: a value given to a program as one argument or variable. */
const NO_BREAKS = /^[^\0\r\n]*$/;

/**
 * The file a command names, found as the server's own PATH would find it: a path with a slash as
 * it is (relative to `cwd`), a bare name in each folder of PATH; undefined when there is none that
 * this user may run.
 */
export function findCommand(command: string, env: Record<string, string>, cwd: string): string | undefined {
  const runnable = (file: string) => {
    try {
      if (!statSync(file).isFile()) return false;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/') || command.includes('\\')) {
    const file = isAbsolute(command) ? command : join(cwd || process.cwd(), command);
    return runnable(file) ? file : undefined;
  }
  const extensions = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';') : [''];
  for (const folder of (env.PATH ?? DEFAULT_COMMAND_PATH).split(delimiter)) {
    if (!folder) continue;
    for (const extension of extensions) {
      const file = join(folder, command + extension);
      if (runnable(file)) return file;
    }
  }
  return undefined;
}

/** The fields a transport does not use, and the transport they belong to. */
const TRANSPORT_OF_FIELD: Record<string, McpTransport> = { headers: 'http', args: 'stdio', env: 'stdio', cwd: 'stdio' };

/**
 * MCP: the handshake with an MCP server, over Streamable HTTP or stdio, and the listing of its
 * tools (checks/mcp-probe.ts); the tools' fingerprints are pinned on the first successful check
 * and any later difference is a drift (domain/monitors/tool-pins.ts).
 */
export const mcp = defineMonitorType({
  type: 'mcp',
  title: 'MCP server',
  summary: 'Connects to an MCP server, over Streamable HTTP or stdio, and lists its tools.',
  message: 'MCPMonitor',
  target: 'server',
  targetIsUrl: false,
  targetWords: "the server's URL or command",
  timeoutWords: 'the budget of the whole check: connection or start, handshake and listing',
  targetKind: (config) => (config.transport === 'http' ? 'url' : 'command'),
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    server: {
      schema: z
        .string({ error: 'must be a string: the URL or the command' })
        .trim()
        .min(1, 'is required: the server URL (http) or the command that starts it (stdio)')
        .max(MCP_LIMITS.serverLength, `must be at most ${MCP_LIMITS.serverLength} characters`)
        .regex(NO_BREAKS, 'must not contain line breaks or NUL'),
      ui: {
        label: 'Server',
        hint: 'The URL of a Streamable HTTP server, or the command that starts a stdio server (its arguments apart).',
        placeholder: 'https://mcp.example.com/mcp',
      },
      docs: {
        rules:
          'with `http`, an absolute `http://` or `https://` URL without credentials (send them in a header); with `stdio`, the program to run: a name found on the PATH of `env` (or `' +
          DEFAULT_COMMAND_PATH +
          '` when `env` names none), or a path. A command checked from this machine must exist when the monitor is saved.',
      },
    },
    transport: {
      schema: z.enum(mcpTransports, { error: `must be one of ${mcpTransports.join(', ')}` }).default('http'),
      flag: { name: 'transport', description: 'http (Streamable HTTP, default) or stdio (a program run on this machine)', read: 'choice' },
      ui: { label: 'Transport', hint: 'http: Streamable HTTP. stdio: a program this machine runs for each check.' },
      docs: { rules: '`http` (Streamable HTTP) or `stdio` (a program run for each check, which `allowCommand` must allow)' },
    },
    headers: {
      schema: httpHeaders().default({}),
      flag: { name: 'header', valueName: 'k=v', description: 'a request header (http)', read: 'pairs' },
      ui: { label: 'Headers', hint: 'Sent with every request. An Authorization value is sealed at rest and never shown again.' },
      docs: {
        rules: 'http only. At most 32, 8 KiB in all; values of credential-like names (authorization, token, …) are sealed at rest and shown `[redacted]`.',
      },
    },
    args: {
      schema: z
        .array(
          z
            .string()
            .max(MCP_LIMITS.argLength, `an argument must be at most ${MCP_LIMITS.argLength} characters`)
            .regex(/^[^\0]*$/, 'an argument must not contain NUL'),
          { error: 'must be a list of arguments' },
        )
        .max(MCP_LIMITS.args, `must have at most ${MCP_LIMITS.args} arguments`)
        .default([]),
      flag: { name: 'arg', valueName: 'ARG', description: 'an argument of the command, in order (stdio)', read: 'list' },
      ui: { label: 'Arguments', hint: 'Given to the command as they are, one per line; no shell reads them.' },
      docs: { rules: `stdio only. At most ${MCP_LIMITS.args}, given as they are (no shell).` },
    },
    env: {
      schema: z
        .record(
          z.string().regex(ENV_NAME, 'must be an environment variable name: letters, digits and _, not starting with a digit'),
          z.string().regex(/^[^\0]*$/, 'a value must not contain NUL'),
        )
        .superRefine((entries, ctx) => {
          const count = Object.keys(entries).length;
          if (count > MCP_LIMITS.env) ctx.addIssue({ code: 'custom', message: `must have at most ${MCP_LIMITS.env} variables, got ${count}` });
          const bytes = Object.entries(entries).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
          if (bytes > MCP_LIMITS.envBytes) ctx.addIssue({ code: 'custom', message: `must be at most ${MCP_LIMITS.envBytes} bytes in all, got ${bytes}` });
        })
        .default({}),
      flag: { name: 'env', valueName: 'NAME=value', description: 'an environment variable of the command (stdio); values are sealed', read: 'pairs' },
      ui: { label: 'Environment', hint: 'The whole environment of the command: it gets none of the service’s. Every value is sealed at rest.' },
      docs: {
        rules: `stdio only. The command's whole environment: it inherits none of the service's. At most ${MCP_LIMITS.env} variables, ${MCP_LIMITS.envBytes / 1024} KiB in all; every value is sealed at rest and shown \`[redacted]\`.`,
      },
    },
    cwd: {
      schema: z
        .string()
        .trim()
        .max(MCP_LIMITS.cwdLength, `must be at most ${MCP_LIMITS.cwdLength} characters`)
        .regex(NO_BREAKS, 'must not contain line breaks or NUL')
        .refine((value) => value === '' || isAbsolute(value), 'must be an absolute path, or empty for a fresh empty folder')
        .default(''),
      flag: { name: 'cwd', valueName: 'DIR', description: 'the working folder of the command (stdio; default: a fresh empty folder)', read: 'text' },
      ui: { label: 'Working folder', hint: 'An absolute path. Empty: a fresh empty folder for each check, removed after.' },
      docs: {
        rules: 'stdio only. An absolute path; empty runs the command in a fresh empty folder, removed after the check.',
        default: 'a fresh empty folder',
      },
    },
    allowCommand: {
      schema: z.boolean({ error: 'must be true or false' }).default(false),
      flag: {
        name: 'allow-command',
        valueName: 'true|false',
        description: 'true allows running the command on the machine that checks it (stdio)',
        read: 'boolean',
      },
      ui: { label: 'Allow running this command', hint: 'A stdio server is a program run on this machine for every check, with the environment above.' },
      docs: {
        rules:
          'must be `true` for `stdio`: a stdio monitor runs a program on the machine that checks it. A private location runs it only if its runner was started with `--allow-commands`.',
      },
    },
  }),
  refine(value, ctx) {
    if (value.transport === 'http') {
      const url = httpUrl('the server of a Streamable HTTP MCP monitor').safeParse(value.server);
      if (!url.success) ctx.addIssue({ code: 'custom', path: ['server'], message: url.error.issues[0]!.message });
    } else {
      if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value.server)) {
        ctx.addIssue({ code: 'custom', path: ['server'], message: 'is a URL: a stdio server is a command; for a URL use transport http' });
      }
      if (!value.allowCommand) {
        ctx.addIssue({ code: 'custom', path: ['allowCommand'], message: 'must be true for transport stdio: the command is run on the machine that checks it' });
      }
    }
    for (const [field, transport] of Object.entries(TRANSPORT_OF_FIELD)) {
      const given = (value as Record<string, unknown>)[field];
      const empty = given === '' || (Array.isArray(given) ? given.length === 0 : Object.keys(given as object).length === 0);
      if (transport !== value.transport && !empty) ctx.addIssue({ code: 'custom', path: [field], message: `is for transport ${transport} only` });
    }
  },
  secretMaps: ['headers'],
  sealedMaps: ['env'],
  rows: (m) => [
    ['transport', m.transport],
    ...(m.transport === 'http'
      ? ([['headers', Object.keys(m.headers).join(',') || '-']] as [string, string][])
      : ([
          ['args', m.args.join(' ') || '-'],
          ['env', Object.keys(m.env).join(',') || '-'],
          ['cwd', m.cwd || '(a fresh empty folder)'],
          ['allow command', String(m.allowCommand)],
        ] as [string, string][])),
  ],
  example: {
    // A program every test machine has on the default PATH: the command must exist when saved.
    server: 'sh',
    transport: 'stdio',
    args: ['start-mcp.sh', '--read-only'],
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', API_TOKEN: 'example-token' },
    cwd: '/srv/mcp',
    allowCommand: true,
  },
  moreExamples: [{ server: 'https://mcp.example.com/mcp', transport: 'http', headers: { authorization: 'Bearer example-token', 'x-team': 'tools' } }],
});
