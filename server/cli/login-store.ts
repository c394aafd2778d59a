import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import envPaths from 'env-paths';
import { AppError } from '../errors.ts';

/**
 * The logins of `statusdesk login`: `credentials.json` in the user's config folder, one entry per
 * issuer, so one machine can be logged in to several services. The file holds live tokens: it is
 * readable by its owner only, and every change replaces it whole (temp file, then rename), so a
 * command that reads it while another writes never sees half a file.
 */

export interface StoredLogin {
  /** The authorization server's issuer identifier, and the service's origin. */
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working (ISO 8601). */
  expiresAt: string;
  /** `read` or `write`: what the owner granted. */
  scope: string;
}

type Logins = Record<string, StoredLogin>;

const CREDENTIALS_FILE = 'credentials.json';
/** A lock older than this was left by a command that died while refreshing. */
const STALE_LOCK_MS = 30_000;

/** The user's config folder: STATUSDESK_CONFIG_DIR, else the platform's (`~/.config/statusdesk` on Linux). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATUSDESK_CONFIG_DIR || envPaths('statusdesk', { suffix: '' }).config;
}

export function credentialsPath(dir: string): string {
  return join(dir, CREDENTIALS_FILE);
}

function readLogins(dir: string): Logins {
  const path = credentialsPath(dir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const logins: unknown = JSON.parse(text);
    if (typeof logins === 'object' && logins !== null && !Array.isArray(logins)) return logins as Logins;
  } catch {
    // Described below, as a file that is not an object is.
  }
  throw new AppError('VALIDATION', `${path} is not a credentials file; delete it and run \`statusdesk login\` again`);
}

function writeLogins(dir: string, logins: Logins): void {
  mkdirSync(dirname(dir), { recursive: true });
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const path = credentialsPath(dir);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    // `mode` applies only when the file is created, and a leftover temp file could be anyone's:
    // 'wx' insists on a new one.
    writeFileSync(temp, `${JSON.stringify(logins, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    throw error;
  }
}

export function loadLogin(dir: string, issuer: string): StoredLogin | undefined {
  const logins = readLogins(dir);
  return Object.hasOwn(logins, issuer) ? logins[issuer] : undefined;
}

export function saveLogin(dir: string, login: StoredLogin): void {
  writeLogins(dir, { ...readLogins(dir), [login.issuer]: login });
}

/** Forgets the login to `issuer`; false when there was none. */
export function deleteLogin(dir: string, issuer: string): boolean {
  const logins = readLogins(dir);
  if (!Object.hasOwn(logins, issuer)) return false;
  delete logins[issuer];
  writeLogins(dir, logins);
  return true;
}

/**
 * Runs `work` while no other statusdesk command does: refreshing rotates the refresh token, and
 * the service treats a retired refresh token presented again as stolen and revokes the login, so
 * two commands must never refresh the same login at once.
 */
export async function withLoginLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = `${credentialsPath(dir)}.lock`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
    } catch {
      // Released meanwhile.
    }
    if (Date.now() > deadline) throw new AppError('CONFLICT', `${lock} is held by another statusdesk command; try again`);
    await sleep(50);
  }
  try {
    return await work();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already cleared as stale by a waiter; nothing to release.
    }
  }
}
