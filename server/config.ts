import { AppError } from './errors.ts';
import type { MetadataNetwork } from './oauth/client-metadata.ts';
import { resolveDataDir } from './db/open.ts';

export interface ServiceConfig {
  dataDir: string;
  /** Address to bind; loopback unless the user opts in. */
  host: string;
  /** API, RPC, MCP and OAuth port; 0 picks a free one. */
  port: number;
  /** Dashboard port; 0 picks a free one. */
  dashboardPort: number;
  /** Origin of /mcp and /oauth/*, fixed by configuration (SPEC 5.3); default http://localhost:<port>. */
  oauthIssuer?: string;
  /** Address serving the dashboard and /oauth/consent; default http://localhost:<dashboard port>. */
  dashboardUrl?: string;
  /** Base of the documentation links; default the service's own /docs. */
  docsUrl?: string;
  maxBodyBytes: number;
  logLevel: string;
  /** Check active monitors on their schedule (STATUSDESK_CHECKS=off turns it off). */
  scheduleChecks: boolean;
  /** Most checks in flight at once. */
  checkConcurrency?: number;
  /** How often metrics go to each monitor's OTLP endpoint (OTEL_METRIC_EXPORT_INTERVAL, ms). */
  otlpIntervalMs?: number;
  /** Where visitors reach status pages and subscription links (STATUSDESK_PUBLIC_URL); default the API address. */
  publicUrl?: string;
  /** The mail relay for subscriber mail and email channels (STATUSDESK_SMTP_URL). */
  smtpUrl?: string;
  /** Sender of the service's mail (STATUSDESK_MAIL_FROM). */
  mailFrom?: string;
  /** Calls per minute per credential across REST, RPC and MCP (STATUSDESK_RATE_LIMIT); 0 turns the limit off. */
  rateLimitPerMinute?: number;
  /** AI-assistant domains whose https redirects OAuth clients may register (STATUSDESK_OAUTH_REDIRECT_DOMAINS). */
  oauthRedirectDomains?: string[];
  /** How Client ID Metadata Documents are fetched; set only by tests, which keep every packet on loopback. */
  metadataNetwork?: MetadataNetwork;
  /**
   * The 32-byte key that seals stored credentials, when it is kept outside the data folder (the
   * desktop app keeps it in the system keychain); without it, the data folder's key file.
   */
  sealingKey?: Buffer;
}

export const DEFAULT_PORT = 3000;
export const DEFAULT_DASHBOARD_PORT = 3001;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** An origin-only URL (scheme, host, port) from a setting, or a clear error naming the setting. */
export function originSetting(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('VALIDATION', `${name}: must be an http or https URL, got ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('VALIDATION', `${name}: must be an http or https URL, got ${value}`);
  }
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new AppError('VALIDATION', `${name}: must be an origin without a path, like http://localhost:3000`);
  }
  return url.origin;
}

export function parsePort(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new AppError('VALIDATION', `${name}: must be a port number from 0 to 65535, got ${value}`);
  return port;
}

function smtpSetting(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'smtp:' && url?.protocol !== 'smtps:') {
    throw new AppError('VALIDATION', 'STATUSDESK_SMTP_URL: must be an smtp:// or smtps:// URL, like smtps://user:password@smtp.example.com:465');
  }
  return value;
}

function switchSetting(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (['on', 'true', '1'].includes(value)) return true;
  if (['off', 'false', '0'].includes(value)) return false;
  throw new AppError('VALIDATION', `${name}: must be on or off, got ${value}`);
}

function rateSetting(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new AppError('VALIDATION', `STATUSDESK_RATE_LIMIT: must be a whole number of calls per minute (0 turns the limit off), got ${value}`);
  return Number(value);
}

function domainsSetting(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const domains = value.split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
  const bad = domains.find((d) => !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(d));
  if (bad) throw new AppError('VALIDATION', `STATUSDESK_OAUTH_REDIRECT_DOMAINS: must be domain names separated by commas, like claude.ai,cursor.com; got ${bad}`);
  return domains;
}

function countSetting(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new AppError('VALIDATION', `${name}: must be a whole number of 1 or more, got ${value}`);
  return Number(value);
}

export function serviceConfig(
  flags: { dataDir?: string; host?: string; port?: string; dashboardPort?: string },
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig {
  return {
    dataDir: resolveDataDir(flags.dataDir, env),
    host: flags.host ?? '127.0.0.1',
    port: parsePort('--port', flags.port, DEFAULT_PORT),
    dashboardPort: parsePort('--dashboard-port', flags.dashboardPort, DEFAULT_DASHBOARD_PORT),
    oauthIssuer: originSetting('OAUTH_ISSUER', env.OAUTH_ISSUER),
    dashboardUrl: originSetting('DASHBOARD_URL', env.DASHBOARD_URL),
    docsUrl: originSetting('STATUSDESK_DOCS_URL', env.STATUSDESK_DOCS_URL),
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    logLevel: env.STATUSDESK_LOG_LEVEL ?? 'info',
    scheduleChecks: switchSetting('STATUSDESK_CHECKS', env.STATUSDESK_CHECKS, true),
    checkConcurrency: countSetting('STATUSDESK_CHECK_CONCURRENCY', env.STATUSDESK_CHECK_CONCURRENCY),
    otlpIntervalMs: countSetting('OTEL_METRIC_EXPORT_INTERVAL', env.OTEL_METRIC_EXPORT_INTERVAL),
    publicUrl: originSetting('STATUSDESK_PUBLIC_URL', env.STATUSDESK_PUBLIC_URL),
    smtpUrl: smtpSetting(env.STATUSDESK_SMTP_URL),
    mailFrom: env.STATUSDESK_MAIL_FROM || undefined,
    rateLimitPerMinute: rateSetting(env.STATUSDESK_RATE_LIMIT),
    oauthRedirectDomains: domainsSetting(env.STATUSDESK_OAUTH_REDIRECT_DOMAINS),
  };
}
