import { Resolver } from 'node:dns';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { AssertionResult, DnsCheck, DnsResponseCode, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import {
  answerCountWords,
  canonicalName,
  type DnsRecordType,
  parseResolver,
  queriedName,
  readValue,
  type ResolverAddress,
  resolverText,
} from '../domain/monitors/types/dns.ts';
import { Deadline, emptyTiming, round } from './connection.ts';
import { degradedMessage, probeResult } from './outcome.ts';

/**
 * The DNS check (docs/reference/monitors.md, DNS): one query for the monitor's record type, with
 * Node's own resolver (node:dns, c-ares: UDP, and TCP when an answer comes truncated), to the
 * monitor's resolver or to each of the system's in turn; the answers recorded in one written form
 * and held to what the monitor expects.
 *
 * What is retried: a query that got no answer (no reply in its share of the budget, or nothing
 * listening), up to Retry more times. An answer is never retried; SERVFAIL, REFUSED, NOTIMP and
 * FORMERR from one of the system's resolvers move on to the next one, as the system's own lookups
 * do. The Timeout bounds the whole check; each query gets an even share of it.
 */

type DnsConfig = Pick<
  ConfigOf<'dns'>,
  'host' | 'recordType' | 'resolver' | 'contains' | 'equals' | 'minAnswers' | 'maxAnswers' | 'timeout' | 'degraded' | 'retry'
>;

export interface DnsProbeOptions {
  /** Ends the checks in flight (the runner closes). */
  stop?: AbortSignal;
  /** Where checks may connect: a resolver the monitor names must pass it. */
  destinations?: DestinationPolicy;
  /** The system's resolvers, in order; absent: as this machine's configuration lists them (`systemResolvers`). */
  system?: () => ResolverAddress[];
}

/** The most answers a check records, and the longest each: the count and the rules see them all. */
const RECORDED_ANSWERS = 100;
const RECORDED_ANSWER_LENGTH = 2048;
/** The longest list of answers a message quotes: a runner's messages are bounded. */
const QUOTED_LENGTH = 300;
/** How long the system's resolvers, as its configuration lists them, are kept before it is read again. */
const SYSTEM_SERVERS_MS = 30_000;
/** The fewest milliseconds a query is given, whatever the budget's share. */
const LEAST_QUERY_MS = 50;

/** What c-ares's error codes say of the answer: its response code, or that none came. */
const RESPONSE_CODES: Record<string, DnsResponseCode> = {
  ENOTFOUND: 'NXDOMAIN',
  ENODATA: 'NOERROR',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ENOTIMP: 'NOTIMP',
  EFORMERR: 'FORMERR',
};

/** A resolver's failures to answer: the next of the system's resolvers is asked. */
const SERVER_FAILURES: ReadonlySet<DnsResponseCode> = new Set(['SERVFAIL', 'REFUSED', 'NOTIMP', 'FORMERR']);

/** The method of node:dns's Resolver that asks for each record type. */
const METHODS = {
  A: 'resolve4',
  AAAA: 'resolve6',
  CNAME: 'resolveCname',
  MX: 'resolveMx',
  TXT: 'resolveTxt',
  NS: 'resolveNs',
  SRV: 'resolveSrv',
  SOA: 'resolveSoa',
  PTR: 'resolvePtr',
} as const satisfies Record<DnsRecordType, keyof Resolver>;

/** An answer of node:dns in the written form the record keeps and the rules compare (domain/monitors/types/dns.ts). */
function answersOf(recordType: DnsRecordType, records: unknown): string[] {
  switch (recordType) {
    case 'A':
    case 'AAAA':
      return (records as string[]).map((address) => readValue(recordType, address) ?? address);
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return (records as string[]).map(canonicalName);
    case 'MX':
      return (records as { priority: number; exchange: string }[]).map((mx) => `${mx.priority} ${canonicalName(mx.exchange) || '.'}`);
    case 'SRV':
      return (records as { priority: number; weight: number; port: number; name: string }[]).map(
        (srv) => `${srv.priority} ${srv.weight} ${srv.port} ${canonicalName(srv.name) || '.'}`,
      );
    case 'SOA': {
      const soa = records as { nsname: string; hostmaster: string; serial: number; refresh: number; retry: number; expire: number; minttl: number };
      return [`${canonicalName(soa.nsname)} ${canonicalName(soa.hostmaster)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minttl}`];
    }
    case 'TXT':
      // A record's strings joined, as SPF and DKIM read them.
      return (records as string[][]).map((strings) => strings.join(''));
  }
}

// ---- the resolvers ------------------------------------------------------------------------------

/**
 * Resolvers by server and query budget, one set per stop signal (per runner): a Resolver is a
 * c-ares channel, and making one reads the system's configuration (some 60 µs), so checks share
 * them. Node's resolver keeps no cache of answers: each query is asked anew. Stopping cancels the
 * queries in flight.
 */
const resolversUnder = new WeakMap<AbortSignal, Map<string, Resolver>>();
const unstopped = new AbortController().signal;
/** Kept per signal; beyond this, the oldest is dropped (its queries in flight still end). */
const MOST_RESOLVERS = 256;

function resolverFor(server: ResolverAddress, queryMs: number, stop: AbortSignal): Resolver {
  let resolvers = resolversUnder.get(stop);
  if (!resolvers) {
    const kept = (resolvers = new Map());
    resolversUnder.set(stop, kept);
    stop.addEventListener(
      'abort',
      () => {
        for (const resolver of kept.values()) resolver.cancel();
        kept.clear();
      },
      { once: true },
    );
  }
  const key = `${resolverText(server)}/${queryMs}`;
  let resolver = resolvers.get(key);
  if (!resolver) {
    if (resolvers.size >= MOST_RESOLVERS) resolvers.delete(resolvers.keys().next().value!);
    // One try: the check retries itself, so it knows how many queries went and to whom.
    resolver = new Resolver({ timeout: queryMs, tries: 1, maxTimeout: queryMs });
    resolver.setServers([resolverText(server)]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

let systemServers: { at: number; servers: ResolverAddress[] } | undefined;

/** The system's resolvers, as its configuration lists them now (read again every SYSTEM_SERVERS_MS: a laptop changes networks). */
export function systemResolvers(): ResolverAddress[] {
  const now = performance.now();
  if (!systemServers || now - systemServers.at > SYSTEM_SERVERS_MS) {
    const servers = new Resolver().getServers().flatMap((text) => {
      // A link-local resolver of the system's (`fe80::1%eth0`) is kept without its zone, which node:dns drops anyway.
      const parsed = parseResolver(text.replace(/%[^\]]*/, ''));
      return typeof parsed === 'string' ? [] : [parsed];
    });
    systemServers = { at: now, servers };
  }
  return systemServers.servers;
}

// ---- one query ------------------------------------------------------------------------------------

/** What one query came to: an answer (its records, or its response code), or none. */
type Asked =
  | { kind: 'answer'; rcode: DnsResponseCode; records: unknown; ms: number }
  /** `timeout`: no reply in the query's share, or the check's budget ended; `unreachable`: nothing listens there; `other`: c-ares's code. */
  | { kind: 'none'; why: 'timeout' | 'unreachable' | 'malformed' | 'other'; code: string };

/**
 * Asks one query, waiting `queryMs` at most (c-ares's own timer runs late by up to its period on
 * short waits: the query's share is kept by a timer of the check's). A late answer is dropped.
 */
function ask(resolver: Resolver, recordType: DnsRecordType, name: string, queryMs: number, deadline: Deadline): Promise<Asked> {
  return new Promise((resolve) => {
    let done = false;
    const started = performance.now();
    const giveUp = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      deadline.onEnd(undefined);
      resolve({ kind: 'none', why: 'timeout', code: 'ETIMEOUT' });
    };
    const timer = setTimeout(giveUp, Math.min(queryMs, deadline.remaining()));
    deadline.onEnd(giveUp);
    const answered = (error: NodeJS.ErrnoException | null, records?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      deadline.onEnd(undefined);
      const ms = round(performance.now() - started);
      if (!error) return resolve({ kind: 'answer', rcode: 'NOERROR', records, ms });
      const code = error.code ?? 'UNKNOWN';
      const rcode = RESPONSE_CODES[code];
      if (rcode) return resolve({ kind: 'answer', rcode, records: undefined, ms });
      const why =
        code === 'ETIMEOUT' || code === 'ECANCELLED' ? 'timeout' : code === 'ECONNREFUSED' ? 'unreachable' : code === 'EBADRESP' ? 'malformed' : 'other';
      resolve({ kind: 'none', why, code });
    };
    (resolver[METHODS[recordType]] as (name: string, callback: typeof answered) => void).call(resolver, name, answered);
  });
}

// ---- the check ------------------------------------------------------------------------------------

/** Waits `ms`, or until the budget ends. */
function pause(ms: number, deadline: Deadline): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => {
        deadline.onEnd(undefined);
        resolve();
      },
      Math.min(ms, deadline.remaining()),
    );
    deadline.onEnd(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** `192.0.2.1, 192.0.2.2`, cut short with how many more: for messages. */
function quoted(answers: readonly string[]): string {
  let text = '';
  for (const [i, answer] of answers.entries()) {
    const next = text === '' ? answer : `${text}, ${answer}`;
    if (next.length > QUOTED_LENGTH)
      return `${text === '' ? `${answer.slice(0, QUOTED_LENGTH)}…` : text} and ${answers.length - i - (text === '' ? 1 : 0)} more`;
    text = next;
  }
  return text || 'none';
}

/** The rules the monitor holds the answers to, each as the record shows it, and the message of each that fails. */
function assertionsOf(monitor: DnsConfig, answers: string[]): { assertions: AssertionResult[]; failures: string[] } {
  const assertions: AssertionResult[] = [];
  const failures: string[] = [];
  const type = monitor.recordType;
  const found = quoted(answers);
  const have = new Set(answers);
  const expected = (values: string[]) => values.map((value) => readValue(type, value) ?? value);
  if (monitor.contains.length > 0) {
    const wanted = expected(monitor.contains);
    const missing = wanted.filter((value) => !have.has(value));
    assertions.push({ assertion: `contains ${wanted.join(', ')}`, passed: missing.length === 0, actual: found });
    if (missing.length > 0) failures.push(`expected the ${type} answers to contain ${quoted(missing)}, found ${found}`);
  }
  if (monitor.equals.length > 0) {
    const wanted = expected(monitor.equals);
    const same = have.size === answers.length && wanted.length === answers.length && wanted.every((value) => have.has(value));
    assertions.push({ assertion: `equals ${wanted.join(', ')}`, passed: same, actual: found });
    if (!same) failures.push(`expected the ${type} answers to be exactly ${quoted(wanted)}, found ${found}`);
  }
  const { minAnswers: least, maxAnswers: most } = monitor;
  if (least !== 1 || most !== 0) {
    const count = answers.length;
    const passed = count >= least && (most === 0 || count <= most);
    const words = answerCountWords(least, most);
    assertions.push({ assertion: `answers ${words}`, passed, actual: String(count) });
    if (!passed) failures.push(`expected ${words} ${type} ${words.endsWith(' 1') ? 'answer' : 'answers'}, found ${count}: ${found}`);
  }
  return { assertions, failures };
}

/** Why an answer with a failing response code failed, in words that name the code. */
function answerFailure(rcode: DnsResponseCode, name: string, recordType: DnsRecordType, server: string): string {
  switch (rcode) {
    case 'NXDOMAIN':
      return `NXDOMAIN: ${name} does not exist (answered by ${server})`;
    case 'NOERROR':
      return `no ${recordType} records: ${name} exists but has none of that type (answered by ${server})`;
    case 'SERVFAIL':
      return `SERVFAIL: ${server} failed to answer for ${name} (a server failure, often an unreachable or broken authoritative server, or DNSSEC that does not validate)`;
    case 'REFUSED':
      return `REFUSED: ${server} refused to answer for ${name} (it does not serve this name, or not to this machine)`;
    case 'NOTIMP':
      return `NOTIMP: ${server} does not answer ${recordType} queries`;
    case 'FORMERR':
      return `FORMERR: ${server} could not read the query for ${name}`;
  }
}

/** Why no answer came, in words. */
function noAnswer(asked: Extract<Asked, { kind: 'none' }>, server: string, timeoutMs: number, queries: number): string {
  const sent = `${queries} ${queries === 1 ? 'query' : 'queries'}`;
  switch (asked.why) {
    case 'timeout':
      return `timed out after ${timeoutMs} ms: no answer from ${server} (${sent})`;
    case 'unreachable':
      return `no DNS server at ${server}: connection refused (${sent})`;
    case 'malformed':
      return `a malformed answer from ${server}`;
    case 'other':
      return `the query to ${server} failed: ${asked.code}`;
  }
}

/** The check of a DNS monitor. */
export async function probeDns(monitor: DnsConfig, options: DnsProbeOptions = {}): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const timing: Timing = emptyTiming();
  const recordType = monitor.recordType;
  const name = queriedName(monitor.host, recordType);
  const systemResolver = monitor.resolver === '';
  const record: DnsCheck = { name, recordType, rcode: null, resolver: null, systemResolver, answers: [], assertions: [] };
  let queries = 0;

  const finish = (result: 'up' | 'degraded' | 'down', message: string, latency = deadline.elapsed()): ProbeResult => {
    timing.total = latency;
    deadline.clear();
    return { ...probeResult(result, latency, timing, queries, message), dns: record };
  };

  const given = systemResolver ? undefined : parseResolver(monitor.resolver);
  if (typeof given === 'string') return finish('down', `the resolver ${monitor.resolver} is not one: ${given}`);
  const servers = given ? [given] : (options.system ?? systemResolvers)();
  if (servers.length === 0) return finish('down', "this machine's configuration names no DNS resolver: name one in the monitor");
  if (given) {
    const refused = options.destinations?.refusal(given.host, given.port);
    if (refused) {
      record.resolver = resolverText(given);
      return finish('down', refused);
    }
  }

  const stop = options.stop ?? unstopped;
  const rounds = monitor.retry + 1;
  // Each query's even share of the budget: a lost packet is asked again while the budget lasts.
  const queryMs = Math.max(LEAST_QUERY_MS, Math.floor(monitor.timeout / (rounds * servers.length)));
  let failure: string | undefined;
  let refusedLast = false;
  for (let n = 0; n < rounds && !deadline.expired; n++) {
    // Refused at once (nothing listening yet): a moment before asking again, as connections are retried.
    if (refusedLast) await pause(Math.min(100 * 2 ** (n - 1), 1000), deadline);
    for (const [i, server] of servers.entries()) {
      if (deadline.expired) break;
      const text = resolverText(server);
      queries++;
      record.resolver = text;
      const asked = await ask(resolverFor(server, queryMs, stop), recordType, name, queryMs, deadline);
      if (asked.kind === 'none') {
        failure = noAnswer(asked, text, monitor.timeout, queries);
        // A broken answer is an answer: asking again gets the same.
        if (asked.why === 'malformed' || asked.why === 'other') return finish('down', failure);
        refusedLast = asked.why === 'unreachable';
        continue;
      }
      timing.dns = asked.ms;
      record.rcode = asked.rcode;
      if (asked.records === undefined) {
        failure = answerFailure(asked.rcode, name, recordType, text);
        // A resolver that failed to answer: the system's next one may (not asked again otherwise).
        if (SERVER_FAILURES.has(asked.rcode) && i < servers.length - 1) continue;
        return finish('down', failure);
      }
      const answers = answersOf(recordType, asked.records);
      record.answers = answers.slice(0, RECORDED_ANSWERS).map((a) => (a.length > RECORDED_ANSWER_LENGTH ? `${a.slice(0, RECORDED_ANSWER_LENGTH)}…` : a));
      const { assertions, failures } = assertionsOf(monitor, answers);
      record.assertions = assertions;
      if (failures.length > 0) return finish('down', failures.join('; '));
      const latency = deadline.elapsed();
      const count = `${answers.length} ${recordType} ${answers.length === 1 ? 'answer' : 'answers'}`;
      return monitor.degraded !== null && latency > monitor.degraded
        ? finish('degraded', `${degradedMessage(`${count} from ${text}`, latency, monitor.degraded)}: ${quoted(answers)}`, latency)
        : finish('up', `${count} in ${latency} ms from ${text}: ${quoted(answers)}`, latency);
    }
  }
  return finish(
    'down',
    deadline.expired || failure === undefined
      ? `timed out after ${monitor.timeout} ms: no answer from ${record.resolver} (${queries} ${queries === 1 ? 'query' : 'queries'})`
      : failure,
  );
}
