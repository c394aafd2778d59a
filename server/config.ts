import { z } from 'zod';
import { resolveDataDir } from './db/open.ts';
import { DEFAULT_MAIL_FROM } from './delivery/outbound.ts';
import { ALLOW_SETTING, parseAllowList } from './domain/destinations.ts';
import { DEFAULT_REDIRECT_DOMAINS } from './domain/oauth/redirect-uris.ts';
import { DEFAULT_OIDC_NAME } from './domain/users/oidc.ts';
import { isOneLine } from './domain/validation.ts';
import { AppError } from './errors.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './http/rate-limit.ts';
import type { MetadataNetwork } from './oauth/client-metadata.ts';

export const DEFAULT_PORT = 3000;
export const DEFAULT_DASHBOARD_PORT = 3001;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * One setting of `statusdesk serve`: where it is read (a flag, an environment variable, or both,
 * the flag winning), its rule, its default and what it means. The parsing, its error messages
 * and the settings table of the reference (docs/reference/cli.md) all come from these entries.
 */
export interface Setting {
  flag?: string;
  env?: string;
  /** How the text becomes the value; its messages follow the setting's name. None for what Node.js itself reads. */
  rule?: z.ZodType;
  /** The value when unset, as the reference shows it (markdown). */
  default: string;
  /** What it sets, in one line of the reference (markdown). */
  description: string;
}

/** Text a rule refuses, shown after the rule's words. */
const got = (rule: string) => ({ error: (issue: { input?: unknown }) => `${rule}, got ${String(issue.input)}` });
/** Unset and empty are the same: the setting's default. */
const unsetIfEmpty = <T extends z.ZodType<unknown, string>>(rule: T) => z.preprocess((text) => (text === '' ? undefined : text), rule.optional());

const isHttpUrl = (text: string) => ['http:', 'https:'].includes(URL.parse(text)?.protocol ?? '');
const isOrigin = (text: string) => {
  const url = new URL(text);
  return url.pathname === '/' && !url.search && !url.hash;
};
/** An origin-only URL (scheme, host, port), normalised: no trailing slash, a lower-case host. */
const origin = unsetIfEmpty(
  z
    .string()
    .refine(isHttpUrl, { ...got('must be an http or https URL'), abort: true })
    .refine(isOrigin, 'must be an origin without a path, like http://localhost:3000')
    .transform((text) => new URL(text).origin),
);
const port = z
  .string()
  .refine((text) => /^\d+$/.test(text) && Number(text) <= 65535, got('must be a port number from 0 to 65535'))
  .transform(Number);
/** A whole number of 1 or more. */
const count = unsetIfEmpty(
  z
    .string()
    .refine((text) => /^\d+$/.test(text) && Number(text) >= 1, got('must be a whole number of 1 or more'))
    .transform(Number),
);
const onOrOff = z.stringbool({ truthy: ['on', 'true', '1'], falsy: ['off', 'false', '0'], case: 'sensitive', ...got('must be on or off') });
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const domains = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(
    z.array(z.string().regex(DOMAIN, { error: (issue) => `must be domain names separated by commas, like claude.ai,cursor.com; got ${String(issue.input)}` })),
  );
/** Never echoes the text: a database URL may hold a password. */
const postgresUrl = unsetIfEmpty(
  z
    .string()
    .refine(
      (text) => ['postgres:', 'postgresql:'].includes(URL.parse(text)?.protocol ?? ''),
      'must be a PostgreSQL URL, postgres://user:password@host:port/name (or postgresql://)',
    ),
);
/** Never echoes the whole list: its messages name the bad entry. */
const allowList = z.string().transform((text, ctx) => {
  try {
    return parseAllowList(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const smtpUrl = unsetIfEmpty(
  z
    .string()
    .refine(
      (text) => ['smtp:', 'smtps:'].includes(URL.parse(text)?.protocol ?? ''),
      'must be an smtp:// or smtps:// URL, like smtps://user:password@smtp.example.com:465',
    ),
);

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];
/** An OpenID Connect issuer: https, or http on loopback only (a provider on this machine). Not echoed: an address may carry a password. */
const issuerUrl = unsetIfEmpty(
  z.string().refine((text) => {
    const url = URL.parse(text);
    if (!url || url.username || url.password || url.search || url.hash) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTNAMES.includes(url.hostname));
  }, 'must be an https URL (http only on loopback) without credentials, query or fragment, like https://login.example.com'),
);
/** The settings OpenID Connect sign-in needs together: all or none. */
const OIDC_TOGETHER = ['oidcIssuer', 'oidcClientId', 'oidcClientSecret'] as const;

/** Every setting, in the order the reference lists them. */
const SETTINGS = {
  dataDir: {
    flag: '--data-dir',
    env: 'STATUSDESK_DATA_DIR',
    // Reached with the flag and the variable already tried: the platform's folder is what remains.
    rule: z
      .string()
      .optional()
      .transform((dir) => resolveDataDir(dir, {})),
    default:
      "the platform's app-data folder: `~/.local/share/statusdesk` on Linux (or `$XDG_DATA_HOME/statusdesk`), `~/Library/Application Support/statusdesk` on macOS, `%LOCALAPPDATA%\\statusdesk\\Data` on Windows",
    description: 'data folder',
  },
  database: {
    flag: '--database',
    env: 'STATUSDESK_DATABASE_URL',
    rule: postgresUrl,
    default: 'none: SQLite, `statusdesk.db` in the data folder',
    description:
      "PostgreSQL database to keep the data in, `postgres://user:password@host:port/name`, instead of the data folder's SQLite file (the folder still holds the sealing key); services on one database share its monitors, and the owner's local tools read `STATUSDESK_DATABASE_URL` (see [Sharing an instance on PostgreSQL](../guides/shared-instance-on-postgresql))",
  },
  stateDir: {
    env: 'STATUSDESK_STATE_DIR',
    // Read by service-record.ts, which the commands share: not a setting of the service alone.
    default:
      "`services` in the user's config folder: `~/.config/statusdesk/services` on Linux (or `$XDG_CONFIG_HOME/statusdesk/services`), `~/Library/Preferences/statusdesk/services` on macOS, `%APPDATA%\\statusdesk\\Config\\services` on Windows",
    description:
      'folder where the running service records its data folder, addresses and process id, for the other commands to find (see [The data folder](#the-data-folder))',
  },
  host: {
    flag: '--host',
    rule: z.string().default('127.0.0.1'),
    default: '`127.0.0.1`',
    description: 'address both ports listen on; any but loopback lets other machines reach them, and is logged as a warning (see [Security](security))',
  },
  port: {
    flag: '--port',
    rule: port.default(DEFAULT_PORT),
    default: `\`${DEFAULT_PORT}\``,
    description: 'port of the API, ConnectRPC, MCP and OAuth; `0` picks a free port',
  },
  dashboardPort: {
    flag: '--dashboard-port',
    rule: port.default(DEFAULT_DASHBOARD_PORT),
    default: `\`${DEFAULT_DASHBOARD_PORT}\``,
    description: 'port of the dashboard; `0` picks a free port',
  },
  oauthIssuer: {
    env: 'OAUTH_ISSUER',
    rule: origin,
    default: '`http://localhost:<port>`',
    description: 'origin of `/mcp` and `/oauth/*`, fixed by configuration',
  },
  dashboardUrl: {
    env: 'DASHBOARD_URL',
    rule: origin,
    default: '`http://localhost:<dashboard port>`',
    description: 'origin serving the dashboard and `/oauth/consent`',
  },
  docsUrl: {
    env: 'STATUSDESK_DOCS_URL',
    rule: origin,
    default: 'the API address',
    description:
      'origin of the documentation, without a path: the `docs` links of error envelopes point under its `/docs`, and the MCP resources `mcp-server-reference` and `site-index` are read from it (locally when it is this service, fetched otherwise)',
  },
  rateLimitPerMinute: {
    env: 'STATUSDESK_RATE_LIMIT',
    rule: unsetIfEmpty(z.string().regex(/^\d+$/, got('must be a whole number of calls per minute (0 turns the limit off)')).transform(Number)),
    default: `\`${DEFAULT_RATE_LIMIT_PER_MINUTE}\``,
    description:
      'calls per minute per credential, shared by REST (`/v1/*`), ConnectRPC and MCP; a whole number, `0` for no limit (see [Rate limits](errors#rate-limits))',
  },
  logLevel: {
    env: 'STATUSDESK_LOG_LEVEL',
    rule: z.string().default('info'),
    default: '`info`',
    description: '`debug`, `info`, `warn`, `error`, `silent`',
  },
  scheduleChecks: {
    env: 'STATUSDESK_CHECKS',
    rule: unsetIfEmpty(onOrOff).transform((on) => on ?? true),
    default: '`on`',
    description: '`off` stops scheduled checks (triggered checks still run)',
  },
  checkConcurrency: {
    env: 'STATUSDESK_CHECK_CONCURRENCY',
    rule: count,
    // The check engine's own default.
    default: '`500`',
    description: 'most checks in flight at once',
  },
  maxRawResults: {
    env: 'STATUSDESK_MAX_RAW_RESULTS',
    rule: count,
    // The result store's own default.
    default: '`10000000`',
    description:
      'most raw check results kept (about 130 bytes each on disk); the oldest are deleted first, and hourly rollups keep their counts (see [Checks](checks#results-status-and-summaries))',
  },
  checkLeaseMs: {
    env: 'STATUSDESK_CHECK_LEASE_MS',
    rule: count,
    // The check engine's own default.
    default: '`30000`',
    description:
      "milliseconds a service's hold on its share of the monitors lasts, renewed every third of it: a stopped service's share is checked by the others within it. For tests only: keep the default in production",
  },
  otlpIntervalMs: {
    env: 'OTEL_METRIC_EXPORT_INTERVAL',
    rule: count,
    // The check engine's own default.
    default: '`60000`',
    description: "milliseconds between metric exports to each monitor's OTLP endpoint",
  },
  oauthRedirectDomains: {
    env: 'STATUSDESK_OAUTH_REDIRECT_DOMAINS',
    rule: domains.optional(),
    default: `\`${DEFAULT_REDIRECT_DOMAINS.join(', ')}\``,
    description: "comma-separated AI-assistant domains whose https redirect URIs (and their subdomains') OAuth clients may register (see [OAuth](oauth))",
  },
  publicUrl: {
    env: 'STATUSDESK_PUBLIC_URL',
    rule: origin,
    default: 'the API address',
    description:
      'origin visitors and subscribers reach status pages at (the links in subscriber mail); its host reaches `/status/*` only (every other path answers it 403)',
  },
  smtpUrl: {
    env: 'STATUSDESK_SMTP_URL',
    rule: smtpUrl,
    default: 'none: the stored email settings, else no email subscriptions',
    description:
      'the mail relay for subscriber mail and for email channels without their own, `smtp://` or `smtps://user:password@host:port`; wins over the stored [email settings](#settings)',
  },
  mailFrom: {
    env: 'STATUSDESK_MAIL_FROM',
    rule: unsetIfEmpty(z.string()),
    default: `\`${DEFAULT_MAIL_FROM}\``,
    description: "sender of the service's mail; wins over the stored [email settings](#settings)' sender",
  },
  allowedDestinations: {
    env: ALLOW_SETTING,
    rule: allowList.optional(),
    default: 'none',
    description:
      'destinations the [destination policy](security#the-destination-policy) refuses that checks, redirects, channels, subscriber webhooks and OTLP exports may reach all the same: comma-separated addresses, networks and `address:port` pairs, like `169.254.169.254,127.0.0.1:3000,[::1]:3000`',
  },
  oidcIssuer: {
    env: 'STATUSDESK_OIDC_ISSUER',
    rule: issuerUrl,
    default: 'none: no sign-in with an OpenID Connect provider',
    description:
      "issuer of your organisation's OpenID Connect provider, like `https://login.example.com`, whose accounts may sign in to the dashboard; set with `STATUSDESK_OIDC_CLIENT_ID` and `STATUSDESK_OIDC_CLIENT_SECRET` (see [Signing in with your organisation's provider](../guides/shared-instance-on-postgresql#signing-in-with-your-organisations-provider-openid-connect))",
  },
  oidcClientId: {
    env: 'STATUSDESK_OIDC_CLIENT_ID',
    rule: unsetIfEmpty(z.string()),
    default: 'none',
    description: 'client id the provider gave the dashboard',
  },
  oidcClientSecret: {
    env: 'STATUSDESK_OIDC_CLIENT_SECRET',
    rule: unsetIfEmpty(z.string()),
    default: 'none',
    description: 'client secret the provider gave the dashboard',
  },
  oidcName: {
    env: 'STATUSDESK_OIDC_NAME',
    rule: unsetIfEmpty(
      z.string().max(60, 'must be at most 60 characters').refine(isOneLine, 'must be one line, without control characters or bidirectional overrides'),
    ),
    default: `\`${DEFAULT_OIDC_NAME}\``,
    description: 'name of the provider on the sign-in button: `Sign in with <name>`',
  },
  extraCaCerts: {
    env: 'NODE_EXTRA_CA_CERTS',
    default: 'none',
    description: 'a PEM file of extra certificate authorities trusted by TLS checks (read by Node.js at start)',
  },
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
type Parsed = { [K in keyof Settings as Settings[K] extends { rule: z.ZodType } ? K : never]: Settings[K] extends { rule: infer R } ? R : never };
type Flags = { [K in keyof Settings as Settings[K] extends { flag: string } ? K : never]?: string };

export type ServiceConfig = z.output<z.ZodObject<Parsed>> & {
  maxBodyBytes: number;
  /** How Client ID Metadata Documents are fetched; set only by tests, which keep every packet on loopback. */
  metadataNetwork?: MetadataNetwork;
  /**
   * The 32-byte key that seals stored credentials, when it is kept outside the data folder (the
   * desktop app keeps it in the system keychain); without it, the data folder's key file.
   */
  sealingKey?: Buffer;
  /** Where the dashboard's MCP server import reads the AI editors' files; set only by tests, which give folders of fixtures. */
  editorFolders?: { home: string; project: string };
  /**
   * The check engine's clock, which schedules checks and heartbeat deadlines and times pings; set
   * only by tests, which move it instead of waiting for a deadline.
   */
  now?: () => number;
};

/** The service's settings from `statusdesk serve`'s flags and the environment, or an error naming the first bad one and its rule. */
export function serviceConfig(flags: Flags, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const values: Record<string, unknown> = {};
  // Setting by setting rather than as one object: zod compiles an object's parser on its first
  // parse, which this one parse at start would not earn back.
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
    if (!setting.rule) continue;
    const flag = (flags as Record<string, string | undefined>)[key];
    // The flag wins; an empty one gives way to the variable.
    const fromFlag = setting.env === undefined || Boolean(flag);
    const result = setting.rule.safeParse(fromFlag ? flag : env[setting.env!]);
    if (!result.success) throw new AppError('VALIDATION', `${fromFlag ? setting.flag : setting.env}: ${result.error.issues[0]!.message}`);
    values[key] = result.data;
  }
  requireTogether(values);
  return { ...(values as z.output<z.ZodObject<Parsed>>), maxBodyBytes: DEFAULT_MAX_BODY_BYTES };
}

/** OpenID Connect sign-in needs its issuer, client id and secret together; a name alone names nothing. */
function requireTogether(values: Record<string, unknown>): void {
  const envOf = (key: keyof Settings) => (SETTINGS[key] as Setting).env!;
  const missing = OIDC_TOGETHER.filter((key) => values[key] === undefined);
  const anySet = missing.length < OIDC_TOGETHER.length || values.oidcName !== undefined;
  if (missing.length === 0 || !anySet) return;
  const all = OIDC_TOGETHER.map(envOf);
  const set = [...OIDC_TOGETHER, 'oidcName' as const].filter((key) => values[key] !== undefined).map(envOf);
  throw new AppError(
    'VALIDATION',
    `${missing.map(envOf).join(', ')}: must be set too, as sign-in with an OpenID Connect provider needs ${all.slice(0, -1).join(', ')} and ${all.at(-1)} together (${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set)`,
  );
}

/** An origin-only URL from a setting outside the service's own (`--public-url`), or a clear error naming it. */
export function originSetting(name: string, value: string | undefined): string | undefined {
  const result = origin.safeParse(value);
  if (!result.success) throw new AppError('VALIDATION', `${name}: ${result.error.issues[0]!.message}`);
  return result.data;
}

/** The PostgreSQL URL of the owner's local tools (STATUSDESK_DATABASE_URL), checked as `serve` checks it. */
export function databaseSetting(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { env: name } = SETTINGS.database;
  const result = postgresUrl.safeParse(env[name]);
  if (!result.success) throw new AppError('VALIDATION', `${name}: ${result.error.issues[0]!.message}`);
  return result.data;
}

/** The settings table of docs/reference/cli.md. */
/** A setting of `statusdesk serve` for its --help: the reference's line and default as plain text. */
export function settingHelp(name: 'database' | 'host' | 'port' | 'dashboardPort'): string {
  const { description, default: fallback } = SETTINGS[name];
  return `${description} (default ${fallback})`.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replaceAll('`', '');
}

export function settingsTable(): string {
  const code = (name: string | undefined) => (name ? [`\`${name}\``] : []);
  const rows = Object.values(SETTINGS as Record<string, Setting>).map((s) => {
    const names = [...code(s.flag), ...code(s.env)].join(', ');
    const meaning = s.flag && s.env ? `${s.description} (the flag wins)` : s.description;
    return `| ${names} | ${meaning} | ${s.default} |`;
  });
  return ['| Setting | Meaning | Default |', '|---|---|---|', ...rows].join('\n');
}
