/**
 * What the heartbeat tests share: a clock the engine reads that a test moves instead of waiting
 * for a deadline, a heartbeat monitor made over ConnectRPC with its ping URL, pings by curl (a
 * real child process), and the check results stored for a monitor.
 */
import { execFile } from 'node:child_process';
import type { Client } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HeartbeatMonitor, HeartbeatMonitorSchema, MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { Db } from '../../server/db/open.ts';
import { eventually } from './wait.ts';

/** A wall clock that runs with real time but can be moved forward: what the engine, its deadlines and the pings read. */
export function movableClock() {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    shift: (ms: number) => void (skew += ms),
    /** Moves the clock to `t`, forward only (the scheduler reads a clock going back as a gap). */
    setTo: (t: number) => void (skew = Math.max(skew, t - Date.now())),
  };
}
export type Clock = ReturnType<typeof movableClock>;

/** A heartbeat monitor as made, with its ping URL and token, shown this once. */
export interface MadeHeartbeat {
  monitor: HeartbeatMonitor;
  pingUrl: string;
  token: string;
}

export async function createHeartbeat(
  rpc: Client<typeof MonitorService>,
  fields: MessageInitShape<typeof HeartbeatMonitorSchema> & { name: string; schedule: string },
): Promise<MadeHeartbeat> {
  const { monitor, pingUrl } = await rpc.createHeartbeatMonitor({ monitor: { periodicity: 6, regions: ['iad'], ...fields } });
  const token = /\/ping\/(hb_[A-Za-z0-9_-]{43})$/.exec(pingUrl)?.[1];
  if (!monitor || !token) throw new Error(`no monitor or ping URL in the answer: ${pingUrl}`);
  return { monitor, pingUrl, token };
}

export interface CurlAnswer {
  status: number;
  body: string;
  headers: string;
}

/** Runs curl against `url` (`args` before it), and gives the answer's status, headers and body. */
export function curl(url: string, args: string[] = []): Promise<CurlAnswer> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '--max-time', '10', '-D', '-', ...args, url], { timeout: 15_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`curl failed: ${stderr || error.message}`));
      // With -D -, the headers come first, then a blank line, then the body.
      const split = stdout.indexOf('\r\n\r\n');
      const headers = stdout.slice(0, split);
      resolve({ status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(headers)?.[1]), headers: headers.toLowerCase(), body: stdout.slice(split + 4) });
    });
  });
}

export interface StoredResult {
  id: number;
  result: string;
  message: string;
  latency_ms: number;
  started_at: number;
  details: string | null;
}

/** The check results stored for a monitor, oldest first. */
export async function resultsOf(db: Db, monitorId: string): Promise<StoredResult[]> {
  return db
    .selectFrom('check_results')
    .select(['id', 'result', 'message', 'latency_ms', 'started_at', 'details'])
    .where('monitor_id', '=', Number(monitorId))
    .orderBy('id')
    .execute();
}

/** The heartbeat record of a stored result. */
export const heartbeatOf = (r: StoredResult) => (JSON.parse(r.details ?? '{}') as { heartbeat?: Record<string, unknown> }).heartbeat;

/** Waits for a stored result of the monitor after `after` results that `match` picks (results wait up to a second to be written). */
export async function resultAfter(db: Db, monitorId: string, after: number, match: (r: StoredResult) => boolean, what: string): Promise<StoredResult> {
  const results = await eventually(
    () => resultsOf(db, monitorId),
    (rs) => rs.slice(after).some(match),
    what,
    8_000,
    50,
  );
  return results.slice(after).find(match)!;
}
