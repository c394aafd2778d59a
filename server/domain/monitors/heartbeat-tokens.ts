import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashSecret, newSecret } from '../secrets.ts';
import { insertHeartbeat } from './heartbeat-repository.ts';

/**
 * The secret of a heartbeat monitor's ping URL (`/ping/<token>`): 256 random bits after this
 * prefix, shown once (on create and on rotation) and stored only as its SHA-256, as API keys are.
 */
export const PING_TOKEN_PREFIX = 'hb_';
const PING_TOKEN = /^hb_[A-Za-z0-9_-]{43}$/;

/** Whether `text` has the form of a ping token: anything else names no monitor, and is not looked up. */
export const isPingToken = (text: string) => PING_TOKEN.test(text);

export const newPingToken = () => newSecret(PING_TOKEN_PREFIX);

/** Makes a new heartbeat monitor's token, in the transaction that creates the monitor; returns it, the one time it is known. */
export async function issuePingToken(trx: Kysely<Database>, monitorId: number): Promise<string> {
  const token = newPingToken();
  await insertHeartbeat(trx, monitorId, hashSecret(token), new Date().toISOString());
  return token;
}
