/**
 * The DNS probe against a real DNS server on loopback (test/support/dns-server.ts): every record
 * type, each failure a resolver answers (NXDOMAIN, no data, SERVFAIL, REFUSED, NOTIMP), no answer
 * at all, nothing listening, a truncated answer asked again over TCP, the rules held to the
 * answers, the degraded threshold, the destination policy, the system's resolvers in turn, and
 * the stop signal. Each outcome of the reference's table (docs/reference/monitors.md, DNS).
 */
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns';
import { after, before, describe, test } from 'node:test';
import { probeDns, systemResolvers } from '../server/checks/dns-probe.ts';
import { createDestinationPolicy, parseAllowList } from '../server/domain/destinations.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import type { ConfigOf } from '../server/domain/monitors/monitor-rules.ts';
import { parseResolver, type ResolverAddress, reverseName } from '../server/domain/monitors/types/dns.ts';
import { closedUdpPort, type DnsServer, startDnsServer, type Zone } from './support/dns-server.ts';

type DnsConfig = Parameters<typeof probeDns>[0];

const SOA = { mname: 'ns1.example.test', rname: 'hostmaster.example.test', serial: 2024010101, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 };
/** TXT strings long enough that their answer does not fit a UDP answer of 1232 bytes: the server truncates it. */
const LONG_TXT = Array.from({ length: 8 }, (_, i) => [`key${i}=${'x'.repeat(200)}`]);
const MANY = Array.from({ length: 150 }, (_, i) => `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`);

const ZONE: Zone = {
  'example.test': {
    A: ['192.0.2.10', '192.0.2.11'],
    AAAA: ['2001:db8::10'],
    MX: [
      { preference: 10, exchange: 'Mail.Example.test.' },
      { preference: 20, exchange: 'mail2.example.test' },
    ],
    TXT: ['v=spf1 -all', ['v=DKIM1; ', 'p=MIGf']],
    NS: ['ns1.example.test', 'ns2.example.test'],
    SOA,
  },
  'www.example.test': { CNAME: 'example.test' },
  '_sip._tcp.example.test': { SRV: [{ priority: 10, weight: 5, port: 5060, target: 'sip.example.test' }] },
  [reverseName('192.0.2.10')]: { PTR: ['host.example.test'] },
  [reverseName('2001:db8::10')]: { PTR: ['host6.example.test'] },
  'long.example.test': { TXT: LONG_TXT },
  'many.example.test': { A: MANY },
  'slow.example.test': { A: ['192.0.2.20'], delayMs: 150 },
  'bare.example.test': { A: ['192.0.2.30'] },
  'gone.example.test': { fail: 'NXDOMAIN' },
  'broken.example.test': { fail: 'SERVFAIL' },
  'private.example.test': { fail: 'REFUSED' },
  'old.example.test': { fail: 'NOTIMP' },
  'silent.example.test': { silent: true },
};

let server: DnsServer;
let server6: DnsServer;
before(async () => {
  server = await startDnsServer(ZONE);
  server6 = await startDnsServer(ZONE, '::1');
});
after(async () => {
  await server.close();
  await server6.close();
});

const monitor = (overrides: Partial<DnsConfig> & { host: string }): DnsConfig => ({
  recordType: 'A',
  resolver: server.address,
  contains: [],
  equals: [],
  minAnswers: 1,
  maxAnswers: 0,
  timeout: 2000,
  degraded: null,
  retry: 0,
  ...overrides,
});

/** The queries the server received for `name` since `from` (an index into its log), over UDP and TCP. */
const asked = (dns: DnsServer, name: string, from = { udp: 0, tcp: 0 }) => ({
  udp: dns.queries.udp.slice(from.udp).filter((q) => q.startsWith(`${name} `)).length,
  tcp: dns.queries.tcp.slice(from.tcp).filter((q) => q.startsWith(`${name} `)).length,
});
const mark = (dns: DnsServer) => ({ udp: dns.queries.udp.length, tcp: dns.queries.tcp.length });

const check = (overrides: Partial<DnsConfig> & { host: string }, options: Parameters<typeof probeDns>[1] = {}) => probeDns(monitor(overrides), options);

function assertUp(result: ProbeResult, answers: string[]) {
  assert.equal(result.result, 'up', result.message);
  assert.deepEqual(result.dns!.answers, answers);
  assert.equal(result.dns!.rcode, 'NOERROR');
  assert.equal(result.attempts, 1);
  assert.ok(result.timing.dns !== null && result.timing.dns >= 0, 'the query is timed');
  assert.ok(result.timing.total! >= result.timing.dns!, 'the whole check is at least its query');
}

describe('each record type, in its one written form', () => {
  const cases: [ConfigOf<'dns'>['recordType'], string, string[]][] = [
    ['A', 'example.test', ['192.0.2.10', '192.0.2.11']],
    ['AAAA', 'example.test', ['2001:db8::10']],
    ['CNAME', 'www.example.test', ['example.test']],
    // Names lower case and without the final dot, whatever the server wrote.
    ['MX', 'example.test', ['10 mail.example.test', '20 mail2.example.test']],
    // A record's strings joined.
    ['TXT', 'example.test', ['v=spf1 -all', 'v=DKIM1; p=MIGf']],
    ['NS', 'example.test', ['ns1.example.test', 'ns2.example.test']],
    ['SRV', '_sip._tcp.example.test', ['10 5 5060 sip.example.test']],
    ['SOA', 'example.test', ['ns1.example.test hostmaster.example.test 2024010101 7200 3600 1209600 300']],
  ];
  for (const [recordType, host, answers] of cases) {
    test(`${recordType} ${host}`, async () => {
      const result = await check({ host, recordType });
      assertUp(result, answers);
      assert.deepEqual(
        { name: result.dns!.name, recordType: result.dns!.recordType, resolver: result.dns!.resolver, systemResolver: result.dns!.systemResolver },
        { name: host, recordType, resolver: server.address, systemResolver: false },
      );
      assert.equal(
        result.message,
        `${answers.length} ${recordType} ${answers.length === 1 ? 'answer' : 'answers'} in ${result.latencyMs} ms from ${server.address}: ${answers.join(', ')}`,
      );
      assert.deepEqual(result.dns!.assertions, [], 'no rule was set, none is recorded');
    });
  }

  test('PTR of an IPv4 address asks for its reverse name', async () => {
    const result = await check({ host: '192.0.2.10', recordType: 'PTR' });
    assertUp(result, ['host.example.test']);
    assert.equal(result.dns!.name, '10.2.0.192.in-addr.arpa');
  });

  test('PTR of an IPv6 address asks for its nibbles under ip6.arpa', async () => {
    const result = await check({ host: '2001:db8::10', recordType: 'PTR' });
    assertUp(result, ['host6.example.test']);
    assert.equal(result.dns!.name, '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  });

  test('A of an alias gets the addresses at the end of the CNAME', async () => {
    assertUp(await check({ host: 'www.example.test' }), ['192.0.2.10', '192.0.2.11']);
  });

  test('a name asked in upper case with its final dot is asked as written in lower case', async () => {
    const result = await check({ host: 'EXAMPLE.test.' });
    assertUp(result, ['192.0.2.10', '192.0.2.11']);
    assert.equal(result.dns!.name, 'example.test');
  });

  test('a resolver on IPv6 loopback, written [::1]:port', async () => {
    const result = await check({ host: 'example.test', resolver: server6.address });
    assertUp(result, ['192.0.2.10', '192.0.2.11']);
    assert.equal(result.dns!.resolver, server6.address);
  });

  test('an answer too big for UDP comes truncated and is asked again over TCP', async () => {
    const from = mark(server);
    const result = await check({ host: 'long.example.test', recordType: 'TXT' });
    assertUp(
      result,
      LONG_TXT.map((strings) => strings.join('')),
    );
    assert.deepEqual(asked(server, 'long.example.test', from), { udp: 1, tcp: 1 }, 'one query over UDP, the same again over TCP');
  });
});

describe('the failures a resolver answers: each its own message, none asked again', () => {
  const cases: [string, string, string, (server: string) => string][] = [
    ['NXDOMAIN for a name not in the zone', 'nowhere.example.test', 'NXDOMAIN', (s) => `NXDOMAIN: nowhere.example.test does not exist (answered by ${s})`],
    ['NXDOMAIN', 'gone.example.test', 'NXDOMAIN', (s) => `NXDOMAIN: gone.example.test does not exist (answered by ${s})`],
    [
      'SERVFAIL',
      'broken.example.test',
      'SERVFAIL',
      (s) =>
        `SERVFAIL: ${s} failed to answer for broken.example.test (a server failure, often an unreachable or broken authoritative server, or DNSSEC that does not validate)`,
    ],
    [
      'REFUSED',
      'private.example.test',
      'REFUSED',
      (s) => `REFUSED: ${s} refused to answer for private.example.test (it does not serve this name, or not to this machine)`,
    ],
    ['NOTIMP', 'old.example.test', 'NOTIMP', (s) => `NOTIMP: ${s} does not answer A queries`],
  ];
  for (const [what, host, rcode, message] of cases) {
    test(what, async () => {
      const from = mark(server);
      const result = await check({ host, retry: 3 });
      assert.equal(result.result, 'down');
      assert.equal(result.message, message(server.address));
      assert.equal(result.dns!.rcode, rcode);
      assert.deepEqual(result.dns!.answers, []);
      assert.equal(result.attempts, 1);
      assert.deepEqual(asked(server, host, from), { udp: 1, tcp: 0 }, 'an answer is never asked again');
    });
  }

  test('no records of the type: the name exists (NOERROR, an empty answer)', async () => {
    const from = mark(server);
    const result = await check({ host: 'bare.example.test', recordType: 'TXT', retry: 3 });
    assert.equal(result.result, 'down');
    assert.equal(result.message, `no TXT records: bare.example.test exists but has none of that type (answered by ${server.address})`);
    assert.equal(result.dns!.rcode, 'NOERROR');
    assert.equal(result.attempts, 1);
    assert.deepEqual(asked(server, 'bare.example.test', from), { udp: 1, tcp: 0 });
  });
});

describe('no answer at all', () => {
  test('a server that never answers: timed out, each query asked again within the budget', async () => {
    const from = mark(server);
    const result = await check({ host: 'silent.example.test', timeout: 600, retry: 2 });
    assert.equal(result.result, 'down');
    assert.equal(result.message, `timed out after 600 ms: no answer from ${server.address} (3 queries)`);
    assert.equal(result.dns!.rcode, null);
    assert.equal(result.timing.dns, null);
    assert.equal(result.attempts, 3);
    assert.equal(asked(server, 'silent.example.test', from).udp, 3, 'a query per try: the budget split three ways');
    assert.ok(result.latencyMs >= 590 && result.latencyMs < 1500, `the whole check is bounded by its timeout, took ${result.latencyMs} ms`);
  });

  test('nothing listening at the resolver: refused at once, asked again up to retry', async () => {
    const address = `127.0.0.1:${await closedUdpPort()}`;
    const result = await check({ host: 'example.test', resolver: address, retry: 2, timeout: 3000 });
    assert.equal(result.result, 'down');
    assert.equal(result.message, `no DNS server at ${address}: connection refused (3 queries)`);
    assert.equal(result.attempts, 3);
    assert.ok(result.latencyMs < 2000, `refusals end the check early (with short pauses between), took ${result.latencyMs} ms`);
  });

  test('the stop signal ends a check in flight', async () => {
    const stop = new AbortController();
    const started = performance.now();
    const pending = check({ host: 'silent.example.test', timeout: 10_000 }, { stop: stop.signal });
    setTimeout(() => stop.abort(), 50);
    const result = await pending;
    assert.equal(result.result, 'down');
    assert.ok(performance.now() - started < 2000, 'it did not wait for its timeout');
  });
});

describe('the degraded threshold', () => {
  test('an answer slower than degraded is degraded, and says so', async () => {
    const result = await check({ host: 'slow.example.test', degraded: 50 });
    assert.equal(result.result, 'degraded');
    assert.equal(result.message, `1 A answer from ${server.address} in ${result.latencyMs} ms, slower than the degraded threshold of 50 ms: 192.0.2.20`);
    assert.ok(result.latencyMs >= 150);
  });

  test('an answer within it is up', async () => {
    assert.equal((await check({ host: 'slow.example.test', degraded: 1500 })).result, 'up');
  });
});

describe('the rules held to the answers', () => {
  test('contains: every value among the answers, in their written form', async () => {
    const result = await check({ host: 'example.test', recordType: 'MX', contains: ['10 MAIL.example.test.'] });
    assert.equal(result.result, 'up', result.message);
    assert.deepEqual(result.dns!.assertions, [
      { assertion: 'contains 10 mail.example.test', passed: true, actual: '10 mail.example.test, 20 mail2.example.test' },
    ]);
  });

  test('contains fails: names what is missing and what was found', async () => {
    const result = await check({ host: 'example.test', contains: ['192.0.2.10', '192.0.2.12'] });
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'expected the A answers to contain 192.0.2.12, found 192.0.2.10, 192.0.2.11');
    assert.deepEqual(result.dns!.assertions, [{ assertion: 'contains 192.0.2.10, 192.0.2.12', passed: false, actual: '192.0.2.10, 192.0.2.11' }]);
  });

  test('equals: exactly these, in any order; an IPv6 address in any of its forms', async () => {
    assert.equal((await check({ host: 'example.test', equals: ['192.0.2.11', '192.0.2.10'] })).result, 'up');
    assert.equal((await check({ host: 'example.test', recordType: 'AAAA', equals: ['2001:DB8:0:0::10'] })).result, 'up');
  });

  test('equals fails with one answer more, or one fewer', async () => {
    const fewer = await check({ host: 'example.test', equals: ['192.0.2.10'] });
    assert.equal(fewer.result, 'down');
    assert.equal(fewer.message, 'expected the A answers to be exactly 192.0.2.10, found 192.0.2.10, 192.0.2.11');
    const more = await check({ host: 'example.test', equals: ['192.0.2.10', '192.0.2.11', '192.0.2.12'] });
    assert.equal(more.message, 'expected the A answers to be exactly 192.0.2.10, 192.0.2.11, 192.0.2.12, found 192.0.2.10, 192.0.2.11');
  });

  test('the count of answers: too few, too many, exactly', async () => {
    const few = await check({ host: 'example.test', minAnswers: 3 });
    assert.equal(few.result, 'down');
    assert.equal(few.message, 'expected at least 3 A answers, found 2: 192.0.2.10, 192.0.2.11');
    assert.deepEqual(few.dns!.assertions, [{ assertion: 'answers at least 3', passed: false, actual: '2' }]);
    const many = await check({ host: 'example.test', maxAnswers: 1 });
    assert.equal(many.message, 'expected exactly 1 A answer, found 2: 192.0.2.10, 192.0.2.11');
    const range = await check({ host: 'example.test', recordType: 'NS', minAnswers: 1, maxAnswers: 2 });
    assert.equal(range.result, 'up');
    assert.deepEqual(range.dns!.assertions, [{ assertion: 'answers 1 to 2', passed: true, actual: '2' }]);
  });

  test('several rules failing: every message, joined', async () => {
    const result = await check({ host: 'example.test', contains: ['192.0.2.12'], minAnswers: 3 });
    assert.equal(
      result.message,
      'expected the A answers to contain 192.0.2.12, found 192.0.2.10, 192.0.2.11; expected at least 3 A answers, found 2: 192.0.2.10, 192.0.2.11',
    );
  });

  test('a big answer: the rules see every answer, the record keeps 100, the message quotes a few', async () => {
    const result = await check({ host: 'many.example.test', contains: [MANY.at(-1)!] });
    assert.equal(result.result, 'up', result.message);
    assert.equal(result.dns!.answers.length, 100);
    assert.ok(result.message.length < 400, `the message stays short: ${result.message.length} characters`);
    assert.match(result.message, /^150 A answers in .* and \d+ more$/);
  });
});

describe('the destination policy judges the resolver', () => {
  test("a resolver on this service's own port is refused, and nothing is asked", async () => {
    const policy = createDestinationPolicy();
    policy.listening('127.0.0.1', [server.port]);
    const from = mark(server);
    const result = await check({ host: 'example.test' }, { destinations: policy });
    assert.equal(result.result, 'down');
    assert.equal(
      result.message,
      `127.0.0.1:${server.port} is this service's own port, which the destination policy refuses (the owner can allow it with STATUSDESK_ALLOWED_DESTINATIONS)`,
    );
    assert.equal(result.dns!.resolver, server.address);
    assert.equal(result.dns!.rcode, null);
    assert.equal(result.attempts, 0);
    assert.deepEqual(asked(server, 'example.test', from), { udp: 0, tcp: 0 });
  });

  test('allowed by the owner, it is asked', async () => {
    const policy = createDestinationPolicy({ allow: parseAllowList(`127.0.0.1:${server.port}`) });
    policy.listening('127.0.0.1', [server.port]);
    assert.equal((await check({ host: 'example.test' }, { destinations: policy })).result, 'up');
  });
});

describe("the system's resolvers", () => {
  const address = (dns: DnsServer): ResolverAddress => parseResolver(dns.address) as ResolverAddress;

  test('asked when the monitor names none, and the record says so', async () => {
    const result = await check({ host: 'example.test', resolver: '' }, { system: () => [address(server)] });
    assertUp(result, ['192.0.2.10', '192.0.2.11']);
    assert.equal(result.dns!.systemResolver, true);
    assert.equal(result.dns!.resolver, server.address);
  });

  test('one that does not answer, then one that fails to: the next one answers, and is the one recorded', async () => {
    const failing = await startDnsServer({ 'example.test': { fail: 'SERVFAIL' } });
    try {
      const closed = { host: '127.0.0.1', port: await closedUdpPort() };
      const result = await check({ host: 'example.test', resolver: '' }, { system: () => [closed, address(failing), address(server6)] });
      assert.equal(result.result, 'up', result.message);
      assert.equal(result.dns!.resolver, server6.address);
      assert.equal(result.attempts, 3);
    } finally {
      await failing.close();
    }
  });

  test('an answer ends the check: NXDOMAIN from the first is not asked of the next', async () => {
    const from = mark(server6);
    const result = await check({ host: 'nowhere.example.test', resolver: '' }, { system: () => [address(server), address(server6)] });
    assert.equal(result.message, `NXDOMAIN: nowhere.example.test does not exist (answered by ${server.address})`);
    assert.deepEqual(asked(server6, 'nowhere.example.test', from), { udp: 0, tcp: 0 });
  });

  test('when every one fails to answer, the last failure is the result, naming its resolver', async () => {
    const broken = await startDnsServer({ 'example.test': { fail: 'SERVFAIL' } });
    const refusing = await startDnsServer({ 'example.test': { fail: 'REFUSED' } }, '::1');
    try {
      const result = await check({ host: 'example.test', resolver: '', retry: 2 }, { system: () => [address(broken), address(refusing)] });
      assert.equal(result.result, 'down');
      assert.equal(result.message, `REFUSED: ${refusing.address} refused to answer for example.test (it does not serve this name, or not to this machine)`);
      assert.equal(result.dns!.resolver, refusing.address);
      assert.equal(result.attempts, 2, 'each asked once: an answer, even a failure, is not asked again');
    } finally {
      await broken.close();
      await refusing.close();
    }
  });

  test('none configured: the check says to name one', async () => {
    const result = await check({ host: 'example.test', resolver: '' }, { system: () => [] });
    assert.equal(result.result, 'down');
    assert.equal(result.message, "this machine's configuration names no DNS resolver: name one in the monitor");
  });

  test("as this machine's configuration lists them (read, not asked)", () => {
    const configured = new Resolver().getServers().map((text) => parseResolver(text));
    assert.deepEqual(systemResolvers(), configured);
  });
});
