// The app's own settings, a small JSON file in its user-data folder. A file that is missing, broken
// or from another version never stops the app: each setting that does not read as valid takes its
// default, and the others are kept.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

const port = z.number().int().min(1024).max(65535);

const SettingsSchema = z.object({
  openAtLogin: z.boolean(),
  /** The service's ports last time it started: kept so editors' saved addresses keep working. */
  ports: z
    .object({ api: port, dashboard: port })
    .refine((ports) => ports.api !== ports.dashboard, 'the two ports differ')
    .optional(),
  /** When the statusdesk command was last put on the PATH (ISO 8601). */
  cliInstalledAt: z.iso.datetime().optional(),
});

/** The same settings, each falling back on its own when the file holds something else. */
const StoredSettingsSchema = z.object({
  openAtLogin: SettingsSchema.shape.openAtLogin.catch(false),
  ports: SettingsSchema.shape.ports.catch(undefined),
  cliInstalledAt: SettingsSchema.shape.cliInstalledAt.catch(undefined),
});

export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = { openAtLogin: false };

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

export function readSettings(file: string): Settings {
  const parsed = StoredSettingsSchema.safeParse(readJson(file));
  if (!parsed.success) return DEFAULT_SETTINGS;
  const { openAtLogin, ports, cliInstalledAt } = parsed.data;
  return { openAtLogin, ...(ports && { ports }), ...(cliInstalledAt && { cliInstalledAt }) };
}

/** Writes the whole file at once (a temporary file renamed over it), readable by this user only. */
export function writeSettings(file: string, settings: Settings): void {
  const valid = SettingsSchema.parse(settings);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(valid, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
