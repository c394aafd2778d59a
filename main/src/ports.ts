// The service's two loopback ports. Editors and OAuth clients remember the API's address
// (http://localhost:3000/mcp, the issuer), so the app keeps the ports it used before whenever it
// can, then tries the defaults, then the next free pair.
import { createServer } from 'node:net';

export interface Ports {
  api: number;
  dashboard: number;
}

export const DEFAULT_PORTS: Ports = { api: 3000, dashboard: 3001 };
/** Pairs tried after the defaults (3002/3003, 3004/3005, …) before giving up. */
export const MAX_PAIRS_TRIED = 50;

const isUsablePort = (port: number) => Number.isInteger(port) && port >= 1024 && port <= 65535;

async function pairIsFree(ports: Ports, isFree: (port: number) => Promise<boolean>): Promise<boolean> {
  if (!isUsablePort(ports.api) || !isUsablePort(ports.dashboard) || ports.api === ports.dashboard) return false;
  return (await isFree(ports.api)) && (await isFree(ports.dashboard));
}

/** The remembered ports if both are free, else the defaults, else the first free pair after them. */
export async function choosePorts(remembered: Ports | undefined, isFree: (port: number) => Promise<boolean>): Promise<Ports> {
  if (remembered && (await pairIsFree(remembered, isFree))) return remembered;
  for (let pair = 0; pair <= MAX_PAIRS_TRIED; pair++) {
    const candidate = { api: DEFAULT_PORTS.api + 2 * pair, dashboard: DEFAULT_PORTS.api + 2 * pair + 1 };
    if (await pairIsFree(candidate, isFree)) return candidate;
  }
  const last = DEFAULT_PORTS.api + 2 * MAX_PAIRS_TRIED + 1;
  throw new Error(`no two free ports between ${DEFAULT_PORTS.api} and ${last}: close a program that uses them, or free the ports Statusdesk used before`);
}

type Bind = 'free' | 'taken' | 'no-address';

function tryListen(port: number, host: string): Promise<Bind> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT' ? 'no-address' : 'taken'));
    server.listen(port, host, () => server.close(() => resolve('free')));
  });
}

/**
 * The service listens on 127.0.0.1, but its addresses say localhost, which browsers may try as ::1
 * first: a port some other program holds on ::1 would catch the dashboard's traffic, so it is not
 * free either (unless the machine has no IPv6 loopback at all).
 */
export async function isPortFree(port: number): Promise<boolean> {
  if ((await tryListen(port, '127.0.0.1')) !== 'free') return false;
  return (await tryListen(port, '::1')) !== 'taken';
}
