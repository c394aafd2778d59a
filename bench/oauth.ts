/**
 * OAuth benchmark: the token endpoint's refresh grant, and what a bearer token costs on /mcp next
 * to an API key.
 *
 *   npm run bench:oauth -- [--rounds N] [--round-ms MS] [--warmup-ms MS]
 *
 * Measured, at 1 and 16 concurrent clients:
 * - `POST /oauth/token` grant_type=refresh_token: each client holds its own grant (its own
 *   registered client, approved once) and presents the refresh token the previous answer gave it,
 *   as an editor does; every answer rotates it. Requests per second, p50/p99. Beside it, as the
 *   floor of the same front, `GET /.well-known/oauth-authorization-server` (a constant JSON).
 * - `tools/list` on /mcp (2025-11-25, stateless) with `Authorization: Bearer svc_oat_...` beside
 *   the same request with `x-service-key` (a write key of the same workspace; both list the same 23
 *   tools, the same bytes). Ratio: the bearer request's cost over the key's (key rps / bearer rps,
 *   median of the per-round ratios). Aim: at most 1.10 (a bearer costs at most 10 % more).
 *
 * The service runs as shipped: `statusdesk serve` (the bundle in dist/) in its own process, with
 * STATUSDESK_CHECKS=off and STATUSDESK_RATE_LIMIT=0, its access log to a file. The grants are
 * made as a person would: register, /oauth/authorize, the dashboard's ticket and cookie, approval
 * through the owner's local tools on the data folder (as `statusdesk oauth approve`), the waiting
 * page's redirectTo, the code grant.
 *
 * The load generator is httpLoad of bench/support/load.ts: keep-alive HTTP/1.1 connections on
 * 127.0.0.1, one request in flight on each, rounds of fixed duration; key and bearer rounds
 * alternate and swap which goes first (compare of bench/support/figures.ts); figures are medians
 * of the rounds. Every answer must be a 200. The key's request is the bearer's baseline; the
 * token endpoint has none but the metadata document on the same front.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { arch, availableParallelism, loadavg, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { compare, parseNumber, table } from './support/figures.ts';
import { httpLoad, type LoadFigures, requestBytes, summarise } from './support/load.ts';
import { SERVE, spawnReady } from './support/processes.ts';

const CPUS = availableParallelism();
const AIM_COST_RATIO = 1.1;
const CLIENT_COUNTS = [1, 16];
const TOOLS = 23;
const REQUEST_TIMEOUT_MS = 15_000;

const line = (text: string) => process.stderr.write(`${text}\n`);
const fixed = (digits: number) => (value: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const f0 = fixed(0);
const f2 = fixed(2);
const round2 = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : null);

const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

const refreshBody = (refreshToken: string, clientId: string) =>
  new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString();

// ---- grants, as a person makes them ---------------------------------------------------------

interface Grant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

async function oauthJson(response: Response, what: string): Promise<any> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `count` grants of fresh loopback clients, write access in the personal workspace. */
async function makeGrants(apiUrl: string, dashboardUrl: string, dataDir: string, count: number): Promise<Grant[]> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const started: { clientId: string; verifier: string; requestId: string; cookie: string }[] = [];
  for (let i = 0; i < count; i++) {
    const registered = await oauthJson(
      await fetch(`${apiUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: `bench ${i + 1}`, redirect_uris: [redirectUri] }),
      }),
      'register',
    );
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${apiUrl}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'write',
      resource: `${apiUrl}/mcp`,
    })) {
      authorize.searchParams.set(name, value);
    }
    const toTicket = await fetch(authorize, { redirect: 'manual' });
    const ticketUrl = toTicket.headers.get('location');
    if (toTicket.status !== 303 || !ticketUrl) throw new Error(`authorize: ${toTicket.status} ${await toTicket.text()}`);
    const bound = await fetch(ticketUrl, { redirect: 'manual' });
    const cookie = bound.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('statusdesk_consent_'));
    const requestId = new URL(bound.headers.get('location') ?? '', dashboardUrl).searchParams.get('request');
    if (!cookie || !requestId) throw new Error(`consent ticket: ${bound.status}, no cookie or request`);
    started.push({ clientId: registered.client_id, verifier, requestId, cookie });
  }
  // The owner approves through the local tools on the data folder, as `statusdesk oauth approve` does.
  const { withLocalOwner } = await import('../server/cli/local.ts');
  await withLocalOwner(dataDir, async (services, owner) => {
    for (const s of started) await services.oauth.approve(owner, { id: s.requestId }, { access: 'write' });
  });
  const grants: Grant[] = [];
  for (const s of started) {
    const view = await oauthJson(await fetch(`${dashboardUrl}/oauth/consent/requests/${s.requestId}`, { headers: { cookie: s.cookie } }), 'waiting page');
    const code = view.redirectTo ? new URL(view.redirectTo).searchParams.get('code') : null;
    if (!code) throw new Error(`waiting page: no code (${view.status})`);
    const tokens = await oauthJson(
      await fetch(`${apiUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: s.clientId,
          code_verifier: s.verifier,
        }).toString(),
      }),
      'code grant',
    );
    grants.push({ clientId: s.clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
  }
  return grants;
}

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<number> {
  let rounds: number;
  let roundMs: number;
  let warmupMs: number;
  try {
    const { values } = parseArgs({ options: { rounds: { type: 'string' }, 'round-ms': { type: 'string' }, 'warmup-ms': { type: 'string' } }, strict: true });
    rounds = parseNumber('rounds', values.rounds, 5, 1, 15);
    roundMs = parseNumber('round-ms', values['round-ms'], 2_000, 200, 60_000);
    warmupMs = parseNumber('warmup-ms', values['warmup-ms'], 1_000, 0, 30_000);
  } catch (error) {
    process.stderr.write(`bench:oauth: ${(error as Error).message}\nUsage: npm run bench:oauth -- [--rounds N] [--round-ms MS] [--warmup-ms MS]\n`);
    return 2;
  }
  const loadBefore = loadavg()[0]!;
  const root = await mkdtemp(join(tmpdir(), 'statusdesk-bench-oauth-'));
  const dataDir = join(root, 'data');
  const problems: string[] = [];
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STATUSDESK_')));
  const service = await spawnReady(
    'statusdesk serve',
    [...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0', '--host', '127.0.0.1'],
    { ...env, STATUSDESK_CHECKS: 'off', STATUSDESK_RATE_LIMIT: '0' },
    join(root, 'service.log'),
    (ready) => Number(new URL(String(ready.apiUrl)).port),
  );
  try {
    const apiUrl = String(service.ready.apiUrl);
    const dashboardUrl = String(service.ready.dashboardUrl);
    const host = new URL(apiUrl).host;
    const pid = service.child.pid;
    line(`service ready at ${apiUrl} (pid ${pid})`);

    const { withLocalOwner } = await import('../server/cli/local.ts');
    const key = await withLocalOwner(dataDir, async (services, owner) => {
      const ws = await services.workspaces.getBySlug(owner, 'personal');
      return (await services.keys.create(owner, { workspaceId: Number(ws.id), name: 'bench:oauth', scope: 'write' })).secret;
    });
    const maxClients = Math.max(...CLIENT_COUNTS);
    const grants = await makeGrants(apiUrl, dashboardUrl, dataDir, maxClients);
    line(`${grants.length} grants made through register → authorize → consent → code grant; a write key`);

    // ---- checks: both credentials list the same tools; a refresh rotates ----
    const listWith = async (headers: Record<string, string>) => {
      const response = await fetch(`${apiUrl}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...headers },
        body: TOOLS_LIST,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`tools/list: ${response.status} ${text.slice(0, 300)}`);
      const data = text.startsWith('{')
        ? text
        : text
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5))
            .join('');
      return { tools: (JSON.parse(data).result.tools as unknown[]).length, bytes: Buffer.byteLength(text) };
    };
    const byBearer = await listWith({ authorization: `Bearer ${grants[0]!.accessToken}` });
    const byKey = await listWith({ 'x-service-key': key });
    if (byBearer.tools !== TOOLS || byKey.tools !== TOOLS)
      throw new Error(`tools/list named ${byBearer.tools} (bearer) and ${byKey.tools} (key) tools, expected ${TOOLS}`);
    line(`tools/list: ${TOOLS} tools, ${byBearer.bytes} bytes with the bearer, ${byKey.bytes} with the key`);

    // Each lane's refresh chain: the refresh token of its last answer.
    const chains = grants.map((g) => ({ clientId: g.clientId, refreshToken: g.refreshToken }));
    const rotated = (lane: number, body: string) => {
      chains[lane]!.refreshToken = (JSON.parse(body) as { refresh_token: string }).refresh_token;
    };
    const refreshNext = (lane: number) => {
      const chain = chains[lane]!;
      return requestBytes(
        'POST',
        host,
        '/oauth/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        refreshBody(chain.refreshToken, chain.clientId),
      );
    };
    const metadataRequest = requestBytes('GET', host, '/.well-known/oauth-authorization-server', {});
    const bearerRequests = grants.map((g) => requestBytes('POST', host, '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${g.accessToken}` }, TOOLS_LIST));
    const keyRequest = requestBytes('POST', host, '/mcp', { ...MCP_HEADERS, 'x-service-key': key }, TOOLS_LIST);

    const run = (connections: number, durationMs: number, kind: 'refresh' | 'metadata' | 'bearer' | 'key') => {
      const load = { port: service.port, connections, durationMs, serverPid: pid };
      if (kind === 'refresh') return httpLoad({ ...load, request: refreshNext, answered: rotated });
      if (kind === 'metadata') return httpLoad({ ...load, request: () => metadataRequest });
      // Each lane its own grant, as separate editors would be; the key is one credential.
      if (kind === 'bearer') return httpLoad({ ...load, request: (lane) => bearerRequests[lane]! });
      return httpLoad({ ...load, request: () => keyRequest });
    };

    const tokenRows: string[][] = [['request', 'clients', 'rps', 'p50 ms', 'p99 ms', 'server us/req']];
    const mcpRows: string[][] = [
      ['tools/list', 'clients', 'bearer rps', 'p50 ms', 'p99 ms', 'key rps', 'p50 ms', 'p99 ms', 'cost bearer/key', `aim <= ${AIM_COST_RATIO}`],
    ];
    const json: Record<string, unknown>[] = [];
    let aimMet = true;
    for (const clients of CLIENT_COUNTS) {
      for (const kind of ['refresh', 'metadata'] as const) {
        if (warmupMs > 0) await run(clients, warmupMs, kind);
        const samples: LoadFigures[] = [];
        for (let r = 0; r < rounds; r++) samples.push(await run(clients, roundMs, kind));
        const errors = samples.reduce((n, s) => n + s.errors, 0);
        if (errors) problems.push(`${kind}, ${clients} clients: ${errors} failed; first: ${samples.find((s) => s.firstError)!.firstError}`);
        const f = summarise(samples);
        const label = kind === 'refresh' ? 'POST /oauth/token refresh_token' : 'GET /.well-known/oauth-authorization-server';
        tokenRows.push([label, String(clients), f0(f.rps), f2(f.p50), f2(f.p99), f0(f.serverUsPerRequest)]);
        json.push({
          request: label,
          clients,
          rps: round2(f.rps),
          p50Ms: round2(f.p50),
          p99Ms: round2(f.p99),
          serverUsPerRequest: round2(f.serverUsPerRequest),
        });
        line(`${label}, ${clients} client(s): ${f0(f.rps)} rps, p50 ${f2(f.p50)} ms, p99 ${f2(f.p99)} ms`);
      }
      // The cost of a bearer: the key's rps over the bearer's, per round.
      const {
        samples,
        ratios: costs,
        ratio: cost,
      } = await compare<'key' | 'bearer', LoadFigures>(
        ['key', 'bearer'],
        { rounds, roundMs, warmupMs },
        (side, ms) => run(clients, ms, side),
        (r, last) => line(`tools/list, ${clients} client(s), round ${r + 1}/${rounds}: bearer ${f0(last.bearer.rps)} rps | key ${f0(last.key.rps)} rps`),
      );
      for (const side of ['bearer', 'key'] as const) {
        const errors = samples[side].reduce((n, s) => n + s.errors, 0);
        if (errors) problems.push(`tools/list ${side}, ${clients} clients: ${errors} failed; first: ${samples[side].find((s) => s.firstError)!.firstError}`);
      }
      const b = summarise(samples.bearer);
      const k = summarise(samples.key);
      const met = cost <= AIM_COST_RATIO;
      aimMet &&= met;
      mcpRows.push(['tools/list', String(clients), f0(b.rps), f2(b.p50), f2(b.p99), f0(k.rps), f2(k.p50), f2(k.p99), f2(cost), met ? 'met' : 'MISSED']);
      json.push({
        request: 'tools/list',
        clients,
        bearer: { rps: round2(b.rps), p50Ms: round2(b.p50), p99Ms: round2(b.p99) },
        key: { rps: round2(k.rps), p50Ms: round2(k.p50), p99Ms: round2(k.p99) },
        costRatio: round2(cost),
        costs: costs.map(round2),
        met,
      });
    }
    const loadAfter = loadavg()[0]!;
    const out = [
      '',
      `OAuth: Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs; 1-minute load average ${f2(loadBefore)} before, ${f2(loadAfter)} after`,
      'Service: statusdesk serve (dist/ bundle) in its own process, STATUSDESK_CHECKS=off, STATUSDESK_RATE_LIMIT=0, log level info to a file.',
      `Load: httpLoad (bench/support/load.ts), keep-alive HTTP/1.1 on 127.0.0.1, one request in flight per connection; ${warmupMs} ms warm-up, ${rounds} rounds of ${roundMs} ms; medians of the rounds.`,
      'Refresh: each client its own grant, presenting the refresh token its previous answer rotated to (every request is a write: claim, two new tokens).',
      'tools/list (2025-11-25, stateless): bearer (each client its own grant) and key rounds alternate; cost = key rps / bearer rps, median of the rounds.',
      '',
      table(tokenRows),
      '',
      table(mcpRows),
      '',
      `Aim: a bearer token costs at most ${Math.round((AIM_COST_RATIO - 1) * 100)} % more than a key on tools/list: ${aimMet ? 'met' : 'MISSED'}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    if (problems.length) process.stdout.write(`\nProblems:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.stdout.write(
      `${JSON.stringify({ bench: 'oauth', node: process.version, cpus: CPUS, rounds, roundMs, warmupMs, aimCostRatio: AIM_COST_RATIO, aimMet, rows: json, problems })}\n`,
    );
    return problems.length ? 1 : 0;
  } catch (error) {
    const tail = service.logTail();
    if (tail) line(`--- service log (tail) ---\n${tail}\n---`);
    throw error;
  } finally {
    const problem = await service.stop();
    if (problem) line(`bench:oauth: service: ${problem}`);
    await rm(root, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench:oauth: ${String((error as Error)?.stack ?? error)}\n`);
  process.exitCode = 1;
}
