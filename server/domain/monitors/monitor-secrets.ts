import type { Sealer } from '../sealing.ts';
import { sealedMapNames, secretMapNames } from './monitor-types.ts';

/**
 * The credential-like values of a monitor: entries of the maps its type declares secret (request
 * headers, gRPC metadata: `secretMaps` in types/) and of its OTLP headers, whose names look like
 * credentials. This file is the one home of that rule: the HTTP probe uses it for
 * the response headers it stores, the monitor service for what it seals and what it shows.
 *
 * At rest such values are sealed (the `secrets` column) and `[redacted]` stands in their place in
 * the stored settings; every answer shows `[redacted]`; an update that sends `[redacted]` back for
 * a name that has a stored value keeps the stored value.
 */

/** Header and metadata names whose values are credentials. */
const SECRET_NAME = /authorization|cookie|token|secret|password|passwd|session|api-?key|credential|signature/i;
export const REDACTED = '[redacted]';

export const isSecretName = (name: string) => SECRET_NAME.test(name);

/** Whether an entry of a map is sealed: every entry of a sealed map (a command's environment), else by its name. */
const isSecretEntry = (map: string, name: string) => sealedMapNames.has(map) || isSecretName(name);

type Entries = Record<string, string>;

/** Response headers as stored and shown: lower-case names, credentials and cookies replaced. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    shown[name] = isSecretName(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return shown;
}

/** The sealed part of a monitor: the credential-like values of each of its maps, by map (`otlpHeaders` for OTLP's). */
export type MonitorSecrets = Partial<Record<string, Entries>>;

/** The parts of a monitor (or its configuration) that can hold credential-like values. */
interface WithSecrets {
  openTelemetry: { endpoint: string; headers: Entries } | null;
}

const OTLP_HEADERS = 'otlpHeaders';
const MAPS = [...secretMapNames, OTLP_HEADERS];

function mapOf(config: WithSecrets, map: string): Entries | undefined {
  return map === OTLP_HEADERS ? config.openTelemetry?.headers : ((config as unknown as Record<string, Entries | undefined>)[map] ?? undefined);
}

function withMaps<T extends WithSecrets>(config: T, change: (entries: Entries, map: string) => Entries): T {
  const next = { ...config } as Record<string, unknown>;
  for (const map of secretMapNames) {
    const entries = mapOf(config, map);
    if (entries) next[map] = change(entries, map);
  }
  if (config.openTelemetry) next.openTelemetry = { ...config.openTelemetry, headers: change(config.openTelemetry.headers, OTLP_HEADERS) };
  return next as T;
}

const redactEntries = (entries: Entries, map: string): Entries =>
  Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, isSecretEntry(map, k) ? REDACTED : v]));

/** Splits the credential-like values out: what is stored in the clear, and what is sealed (null when nothing). */
export function splitSecrets<T extends WithSecrets>(config: T): { clear: T; secrets: MonitorSecrets | null } {
  const secrets: MonitorSecrets = {};
  for (const map of MAPS) {
    const found = Object.entries(mapOf(config, map) ?? {}).filter(([k]) => isSecretEntry(map, k));
    if (found.length > 0) secrets[map] = Object.fromEntries(found);
  }
  return { clear: withMaps(config, redactEntries), secrets: Object.keys(secrets).length > 0 ? secrets : null };
}

/** Puts opened secrets back in place of `[redacted]`. */
export function joinSecrets<T extends WithSecrets>(config: T, secrets: MonitorSecrets | null): T {
  if (!secrets) return config;
  return withMaps(config, (entries, map) => Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, secrets[map]?.[k] ?? v])));
}

/** A monitor as every surface shows it: credential-like values `[redacted]`. */
export function redactSecrets<T extends WithSecrets>(config: T): T {
  return withMaps(config, redactEntries);
}

/**
 * A configuration about to be stored over `stored`: a credential-like value sent back as
 * `[redacted]` (as it was shown) keeps the stored value of the same name (matched without case).
 */
export function keepRedacted<T extends WithSecrets>(config: T, stored: WithSecrets): T {
  return withMaps(config, (entries, map) => {
    const before = new Map(Object.entries(mapOf(stored, map) ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v === REDACTED && isSecretEntry(map, k) ? (before.get(k.toLowerCase()) ?? v) : v]));
  });
}

/**
 * A keyed fingerprint of the credential-like values, for audit snapshots: it changes when they do
 * and reveals nothing without the key. Null when there are none.
 */
export function secretsFingerprint(sealer: Sealer, config: WithSecrets): string | null {
  const { secrets } = splitSecrets(config);
  return secrets ? sealer.token(`monitor-secrets:${JSON.stringify(secrets)}`).slice(0, 12) : null;
}

/** Opens a `secrets` column; null when empty or unreadable (the key file was lost: the values stay `[redacted]`). */
export function openSecrets(sealer: Sealer, sealed: string | null): MonitorSecrets | null {
  if (sealed === null) return null;
  try {
    return sealer.open<MonitorSecrets>(sealed);
  } catch {
    return null;
  }
}
