import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type RunnerCheck, RunnerCheckSchema } from '../proto/gen/runner/v1/runner_pb.js';
import { fromRunnerCheck, toRunnerCheck } from '../server/checks/check-runner.ts';
import { parsePingOutput, type PingStatistics } from '../server/checks/ping-output.ts';
import { PING_MISSING, PingArgumentError, type PingProbeConfig, pingArguments, probePing } from '../server/checks/ping-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import { pingHostProblem } from '../server/domain/monitors/types/ping.ts';
import { AppError } from '../server/errors.ts';
import { storedCheck } from './support/checks.ts';
import { type FakePing, isRunning, fakePing as makeFakePing } from './support/fake-ping.ts';

/**
 * The ping probe: its reader of ping's output on recorded outputs of Linux (iputils, BusyBox),
 * macOS and Windows; its command line, made of validated values only; the system's ping against
 * 127.0.0.1 and ::1 where this machine lets it run; and what loopback cannot give without
 * privileges (lost packets, slow answers, a ping that hangs or may not send) through a fake
 * `ping` on the search path the probe is given, which prints a recorded output.
 */

// ---- recorded outputs -------------------------------------------------------------------------

const IPUTILS_UP = `PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.
64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.072 ms
64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.051 ms
64 bytes from 127.0.0.1: icmp_seq=3 ttl=64 time=0.048 ms

--- 127.0.0.1 ping statistics ---
3 packets transmitted, 3 received, 0% packet loss, time 203ms
rtt min/avg/max/mdev = 0.048/0.057/0.072/0.010 ms
`;

const IPUTILS_V6_UP = `PING ::1(::1) 56 data bytes
64 bytes from ::1: icmp_seq=1 ttl=64 time=0.039 ms
64 bytes from ::1: icmp_seq=2 ttl=64 time=0.052 ms

--- ::1 ping statistics ---
2 packets transmitted, 2 received, 0% packet loss, time 203ms
rtt min/avg/max/mdev = 0.039/0.045/0.052/0.006 ms
`;

const IPUTILS_LOSS = `PING 192.168.1.20 (192.168.1.20) 56(84) bytes of data.
64 bytes from 192.168.1.20: icmp_seq=1 ttl=64 time=2.91 ms
From 192.168.1.10 icmp_seq=2 Destination Host Unreachable
64 bytes from 192.168.1.20: icmp_seq=3 ttl=64 time=3.05 ms

--- 192.168.1.20 ping statistics ---
3 packets transmitted, 2 received, +1 errors, 33.3333% packet loss, time 2003ms
rtt min/avg/max/mdev = 2.910/2.980/3.050/0.070 ms
`;

const IPUTILS_DUPLICATES = `PING 192.168.1.255 (192.168.1.255) 56(84) bytes of data.
64 bytes from 192.168.1.4: icmp_seq=1 ttl=64 time=0.310 ms
64 bytes from 192.168.1.5: icmp_seq=1 ttl=64 time=0.402 ms (DUP!)
64 bytes from 192.168.1.4: icmp_seq=2 ttl=64 time=0.298 ms

--- 192.168.1.255 ping statistics ---
2 packets transmitted, 2 received, +1 duplicates, 0% packet loss, time 1001ms
rtt min/avg/max/mdev = 0.298/0.336/0.402/0.046 ms
`;

const IPUTILS_TOTAL_LOSS = `PING 10.255.255.1 (10.255.255.1) 56(84) bytes of data.

--- 10.255.255.1 ping statistics ---
3 packets transmitted, 0 received, 100% packet loss, time 2049ms

`;

const IPUTILS_UNKNOWN_HOST = 'ping: nosuch.invalid: Name or service not known\n';

const IPUTILS_NOT_PERMITTED = `ping: socktype: SOCK_RAW
ping: socket: Operation not permitted
ping: => missing cap_net_raw+p capability or setuid?
`;

/** An iputils ping ended before its summary: what its replies say is what is known. */
const IPUTILS_CUT_SHORT = `PING 192.168.1.20 (192.168.1.20) 56(84) bytes of data.
64 bytes from 192.168.1.20: icmp_seq=1 ttl=64 time=4.20 ms
64 bytes from 192.168.1.20: icmp_seq=2 ttl=64 time=5.80 ms
`;

const BUSYBOX_UP = `PING 127.0.0.1 (127.0.0.1): 56 data bytes
64 bytes from 127.0.0.1: seq=0 ttl=64 time=0.062 ms
64 bytes from 127.0.0.1: seq=1 ttl=64 time=0.101 ms
64 bytes from 127.0.0.1: seq=2 ttl=64 time=0.095 ms

--- 127.0.0.1 ping statistics ---
3 packets transmitted, 3 packets received, 0% packet loss
round-trip min/avg/max = 0.062/0.086/0.101 ms
`;

const BUSYBOX_TOTAL_LOSS = `PING 10.255.255.1 (10.255.255.1): 56 data bytes

--- 10.255.255.1 ping statistics ---
3 packets transmitted, 0 packets received, 100% packet loss
`;

const BUSYBOX_UNKNOWN_HOST = "ping: bad address 'nosuch.invalid'\n";
const BUSYBOX_NOT_PERMITTED = 'ping: permission denied (are you root?)\n';

const MACOS_UP = `PING 127.0.0.1 (127.0.0.1): 56 data bytes
64 bytes from 127.0.0.1: icmp_seq=0 ttl=64 time=0.041 ms
64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.098 ms
64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.068 ms

--- 127.0.0.1 ping statistics ---
3 packets transmitted, 3 packets received, 0.0% packet loss
round-trip min/avg/max/stddev = 0.041/0.069/0.098/0.023 ms
`;

const MACOS_LOSS = `PING 192.168.1.20 (192.168.1.20): 56 data bytes
64 bytes from 192.168.1.20: icmp_seq=0 ttl=64 time=3.482 ms
Request timeout for icmp_seq 1
64 bytes from 192.168.1.20: icmp_seq=2 ttl=64 time=4.120 ms

--- 192.168.1.20 ping statistics ---
3 packets transmitted, 2 packets received, 33.3% packet loss
round-trip min/avg/max/stddev = 3.482/3.801/4.120/0.319 ms
`;

const MACOS_TOTAL_LOSS = `PING 10.255.255.1 (10.255.255.1): 56 data bytes
Request timeout for icmp_seq 0
Request timeout for icmp_seq 1
Request timeout for icmp_seq 2

--- 10.255.255.1 ping statistics ---
3 packets transmitted, 0 packets received, 100.0% packet loss
`;

const MACOS_UNKNOWN_HOST = 'ping: cannot resolve nosuch.invalid: Unknown host\n';

const MACOS_PING6_UP = `PING6(56=40+8+8 bytes) ::1 --> ::1
16 bytes from ::1, icmp_seq=0 hlim=64 time=0.060 ms
16 bytes from ::1, icmp_seq=1 hlim=64 time=0.093 ms

--- ::1 ping6 statistics ---
2 packets transmitted, 2 packets received, 0.0% packet loss
round-trip min/avg/max/std-dev = 0.060/0.077/0.093/0.017 ms
`;

const crlf = (text: string) => text.replace(/\n/g, '\r\n');

const WINDOWS_UP = crlf(`
Pinging 127.0.0.1 with 32 bytes of data:
Reply from 127.0.0.1: bytes=32 time<1ms TTL=128
Reply from 127.0.0.1: bytes=32 time<1ms TTL=128
Reply from 127.0.0.1: bytes=32 time=1ms TTL=128

Ping statistics for 127.0.0.1:
    Packets: Sent = 3, Received = 3, Lost = 0 (0% loss),
Approximate round trip times in milli-seconds:
    Minimum = 0ms, Maximum = 1ms, Average = 0ms
`);

const WINDOWS_LOSS = crlf(`
Pinging 192.168.1.20 with 32 bytes of data:
Reply from 192.168.1.20: bytes=32 time=3ms TTL=64
Request timed out.
Reply from 192.168.1.20: bytes=32 time=5ms TTL=64
Reply from 192.168.1.20: bytes=32 time=4ms TTL=64

Ping statistics for 192.168.1.20:
    Packets: Sent = 4, Received = 3, Lost = 1 (25% loss),
Approximate round trip times in milli-seconds:
    Minimum = 3ms, Maximum = 5ms, Average = 4ms
`);

const WINDOWS_TOTAL_LOSS = crlf(`
Pinging 10.255.255.1 with 32 bytes of data:
Request timed out.
Request timed out.
Request timed out.

Ping statistics for 10.255.255.1:
    Packets: Sent = 3, Received = 0, Lost = 3 (100% loss),
`);

/** Windows counts "Destination host unreachable" answers as received: no echo came back. */
const WINDOWS_UNREACHABLE = crlf(`
Pinging 192.168.1.250 with 32 bytes of data:
Reply from 192.168.1.10: Destination host unreachable.
Reply from 192.168.1.10: Destination host unreachable.
Reply from 192.168.1.10: Destination host unreachable.

Ping statistics for 192.168.1.250:
    Packets: Sent = 3, Received = 3, Lost = 0 (0% loss),
`);

const WINDOWS_UNKNOWN_HOST = crlf('Ping request could not find host nosuch.invalid. Please check the name and try again.\n');

const WINDOWS_V6_UP = crlf(`
Pinging ::1 with 32 bytes of data:
Reply from ::1: time<1ms
Reply from ::1: time<1ms

Ping statistics for ::1:
    Packets: Sent = 2, Received = 2, Lost = 0 (0% loss),
Approximate round trip times in milli-seconds:
    Minimum = 0ms, Maximum = 0ms, Average = 0ms
`);

/** Windows writes in the system's language whatever the environment: its summary is read by its shape. */
const WINDOWS_GERMAN_LOSS = crlf(`
Ping wird ausgeführt für 192.168.1.1 mit 32 Bytes Daten:
Antwort von 192.168.1.1: Bytes=32 Zeit=2ms TTL=64
Zeitüberschreitung der Anforderung.
Antwort von 192.168.1.1: Bytes=32 Zeit=4ms TTL=64

Ping-Statistik für 192.168.1.1:
    Pakete: Gesendet = 3, Empfangen = 2, Verloren = 1
    (33% Verlust),
Ca. Zeitangaben in Millisek.:
    Minimum = 2ms, Maximum = 4ms, Mittelwert = 3ms
`);

const stats = (transmitted: number, received: number, lossPercent: number, rtt: [number, number, number] | null): PingStatistics => ({
  transmitted,
  received,
  lossPercent,
  rttMinMs: rtt?.[0] ?? null,
  rttAvgMs: rtt?.[1] ?? null,
  rttMaxMs: rtt?.[2] ?? null,
});

describe("reading ping's output, as recorded on each platform", () => {
  const statistics: [string, string, number, PingStatistics][] = [
    ['iputils, every packet answered', IPUTILS_UP, 3, stats(3, 3, 0, [0.048, 0.057, 0.072])],
    ['iputils over IPv6', IPUTILS_V6_UP, 2, stats(2, 2, 0, [0.039, 0.045, 0.052])],
    ['iputils, one of three lost (with an error line)', IPUTILS_LOSS, 3, stats(3, 2, 33.3, [2.91, 2.98, 3.05])],
    ['iputils, a duplicate answer counts once', IPUTILS_DUPLICATES, 2, stats(2, 2, 0, [0.298, 0.336, 0.402])],
    ['iputils, every packet lost', IPUTILS_TOTAL_LOSS, 3, stats(3, 0, 100, null)],
    ['iputils ended before its summary: its replies', IPUTILS_CUT_SHORT, 3, stats(3, 2, 33.3, [4.2, 5, 5.8])],
    ['BusyBox, every packet answered', BUSYBOX_UP, 3, stats(3, 3, 0, [0.062, 0.086, 0.101])],
    ['BusyBox, every packet lost', BUSYBOX_TOTAL_LOSS, 3, stats(3, 0, 100, null)],
    ['macOS, every packet answered', MACOS_UP, 3, stats(3, 3, 0, [0.041, 0.069, 0.098])],
    ['macOS, one of three lost', MACOS_LOSS, 3, stats(3, 2, 33.3, [3.482, 3.801, 4.12])],
    ['macOS, every packet lost', MACOS_TOTAL_LOSS, 3, stats(3, 0, 100, null)],
    ["macOS' ping6", MACOS_PING6_UP, 2, stats(2, 2, 0, [0.06, 0.077, 0.093])],
    ['Windows, every packet answered', WINDOWS_UP, 3, stats(3, 3, 0, [0, 0, 1])],
    ['Windows, one of four lost', WINDOWS_LOSS, 4, stats(4, 3, 25, [3, 4, 5])],
    ['Windows, every packet lost', WINDOWS_TOTAL_LOSS, 3, stats(3, 0, 100, null)],
    ['Windows, "destination host unreachable" answers are no echo', WINDOWS_UNREACHABLE, 3, stats(3, 0, 100, null)],
    ['Windows over IPv6 (replies without TTL)', WINDOWS_V6_UP, 2, stats(2, 2, 0, [0, 0, 0])],
    ['Windows in German, its loss on a line of its own', WINDOWS_GERMAN_LOSS, 3, stats(3, 2, 33.3, [2, 3, 4])],
  ];
  for (const [name, output, sent, expected] of statistics) {
    test(name, () => {
      assert.deepEqual(parsePingOutput(output, sent), { kind: 'statistics', statistics: expected });
    });
  }

  const others: [string, string, string, RegExp][] = [
    ['iputils, unknown host', IPUTILS_UNKNOWN_HOST, 'unknown-host', /Name or service not known/],
    ['BusyBox, unknown host', BUSYBOX_UNKNOWN_HOST, 'unknown-host', /bad address/],
    ['macOS, unknown host', MACOS_UNKNOWN_HOST, 'unknown-host', /cannot resolve/],
    ['Windows, unknown host', WINDOWS_UNKNOWN_HOST, 'unknown-host', /could not find host/],
    ['iputils without CAP_NET_RAW', IPUTILS_NOT_PERMITTED, 'not-permitted', /Operation not permitted/],
    ['BusyBox without the right to send', BUSYBOX_NOT_PERMITTED, 'not-permitted', /permission denied/],
    ['something else: its first line', 'ping: invalid argument: 9999\nUsage: ping ...\n', 'unreadable', /^ping: invalid argument: 9999$/],
  ];
  for (const [name, output, kind, line] of others) {
    test(name, () => {
      const read = parsePingOutput(output, 3);
      assert.equal(read.kind, kind);
      assert.match((read as { line: string }).line, line);
    });
  }
});

// ---- the command line -------------------------------------------------------------------------

describe('the command line is made of validated values only', () => {
  test('each flavor gets its own flags, for IPv4 and IPv6', () => {
    assert.deepEqual(pingArguments('iputils', '127.0.0.1', 3, 1000), {
      program: 'ping',
      args: ['-n', '-c', '3', '-i', '0.2', '-W', '1', '127.0.0.1'],
      expectedMs: 1400,
    });
    assert.deepEqual(pingArguments('iputils', '::1', 2, 1500).args, ['-n', '-c', '2', '-i', '0.2', '-W', '2', '-6', '::1']);
    assert.deepEqual(pingArguments('busybox', '10.0.0.1', 3, 500), { program: 'ping', args: ['-c', '3', '-W', '1', '10.0.0.1'], expectedMs: 3000 });
    assert.deepEqual(pingArguments('busybox', 'fd00::1', 1, 1000).args, ['-c', '1', '-W', '1', '-6', 'fd00::1']);
    assert.deepEqual(pingArguments('bsd', '192.168.1.20', 3, 500), {
      program: 'ping',
      args: ['-n', '-c', '3', '-W', '500', '-t', '3', '192.168.1.20'],
      expectedMs: 2500,
    });
    assert.deepEqual(pingArguments('bsd', '::1', 2, 1000), { program: 'ping6', args: ['-n', '-c', '2', '::1'], expectedMs: 2000 });
    assert.deepEqual(pingArguments('windows', '127.0.0.1', 4, 800), { program: 'ping', args: ['-n', '4', '-w', '800', '-4', '127.0.0.1'], expectedMs: 6200 });
    assert.deepEqual(pingArguments('windows', '::1', 1, 800).args, ['-n', '1', '-w', '800', '-6', '::1']);
  });

  test('hostile hosts never make a command line: only an IP address is given to ping', () => {
    for (const host of ['-f', '-c 1000 127.0.0.1', ';rm -rf /', '$(x)', '`id`', 'a b', 'nas.local', 'x'.repeat(300), '', '127.0.0.1;id']) {
      for (const flavor of ['iputils', 'busybox', 'bsd', 'windows'] as const) {
        assert.throws(() => pingArguments(flavor, host, 3, 1000), PingArgumentError, `${flavor} refuses ${JSON.stringify(host)}`);
      }
    }
  });

  test('counts and waits outside the bounds are refused there too', () => {
    for (const count of [0, 11, 2.5, Number.NaN, -1]) assert.throws(() => pingArguments('iputils', '127.0.0.1', count, 1000), PingArgumentError);
    for (const wait of [99, 10_001, 250.5, Number.POSITIVE_INFINITY]) assert.throws(() => pingArguments('iputils', '127.0.0.1', 3, wait), PingArgumentError);
  });

  test('the rules refuse the same hosts before anything is stored, saying why', () => {
    assert.match(pingHostProblem('-f')!, /not an option/);
    for (const host of [';rm', '$(x)', 'a b', 'nas.local;id']) assert.match(pingHostProblem(host)!, /must be a hostname/);
    assert.match(pingHostProblem('nas.local:80')!, /without a port/);
    assert.match(pingHostProblem('https://nas.local')!, /without a scheme/);
    assert.match(pingHostProblem('[::1]')!, /without brackets/);
    assert.match(pingHostProblem('fe80::1%eth0')!, /zone index/);
    assert.match(pingHostProblem('1.2.3')!, /not an IP address/);
    for (const host of ['127.0.0.1', '::1', 'nas.local', 'router', 'db-1.internal.example.com']) assert.equal(pingHostProblem(host), undefined, host);
  });
});

// ---- the probe --------------------------------------------------------------------------------

const config = (over: Partial<PingProbeConfig> = {}): PingProbeConfig => ({
  host: '127.0.0.1',
  count: 3,
  packetTimeout: 1000,
  degradedLoss: 0,
  timeout: 10_000,
  degraded: null,
  retry: 0,
  ...over,
});
const destinations = createDestinationPolicy();

describe("the system's ping on loopback", () => {
  /** Why the system's ping cannot be run here, for each address; undefined where it can. */
  const unavailable = new Map<string, string | undefined>();

  before(async () => {
    for (const host of ['127.0.0.1', '::1']) {
      const result = await probePing(config({ host, count: 1 }), { destinations });
      unavailable.set(host, result.result === 'down' ? `the system's ping cannot ping ${host} on this machine: ${result.message}` : undefined);
    }
  });

  for (const host of ['127.0.0.1', '::1']) {
    test(`${host}: every packet answered, the round trips recorded, the latency their average`, async (t) => {
      if (unavailable.get(host)) return t.skip(unavailable.get(host));
      const result = await probePing(config({ host, count: 3 }), { destinations });
      assert.equal(result.result, 'up', result.message);
      assert.equal(result.attempts, 1);
      const ping = result.ping!;
      assert.deepEqual([ping.address, ping.transmitted, ping.received, ping.lossPercent], [host, 3, 3, 0]);
      assert.ok(ping.rttMinMs! <= ping.rttAvgMs! && ping.rttAvgMs! <= ping.rttMaxMs!, JSON.stringify(ping));
      assert.equal(result.latencyMs, ping.rttAvgMs);
      assert.match(result.message, new RegExp(`^3 of 3 packets answered by ${host.replace(/[.]/g, '\\.')}, round trip [\\d.]+ ms on average`));
      assert.equal(result.timing.dns, null, 'an address is not looked up');
    });
  }

  test('a name is resolved first, and ping is given the address', async (t) => {
    if (unavailable.get('127.0.0.1') && unavailable.get('::1')) return t.skip(unavailable.get('127.0.0.1'));
    const result = await probePing(config({ host: 'localhost', count: 1 }), { destinations });
    assert.equal(result.result, 'up', result.message);
    assert.match(result.ping!.address, /^(127\.0\.0\.1|::1)$/);
    assert.match(result.message, /answered by localhost \((127\.0\.0\.1|::1)\)/);
    assert.notEqual(result.timing.dns, null);
  });

  test('a name that does not resolve is down with its own message, and tried again up to retry', async () => {
    const result = await probePing(config({ host: 'no-such-host.invalid', retry: 1 }), { destinations });
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'DNS lookup failed: no such host (no-such-host.invalid)');
    assert.equal(result.attempts, 2);
    assert.equal(result.ping, null);
  });

  test('the destination policy judges the address: a metadata address and its name are refused, ping never runs', async () => {
    const folder = await fakePing(IPUTILS_UP);
    for (const host of ['169.254.169.254', 'metadata.google.internal', '169.254.10.20']) {
      const result = await probePing(config({ host, retry: 2 }), { destinations, path: folder.path });
      assert.equal(result.result, 'down');
      assert.match(result.message, /which the destination policy refuses \(the owner can allow it with STATUSDESK_ALLOWED_DESTINATIONS\)/);
      assert.equal(result.attempts, 1, 'a refusal is not tried again');
    }
    assert.equal(await folder.args(), undefined, 'the fake ping never ran');
  });
});

// ---- a fake ping ------------------------------------------------------------------------------

const folders: { remove(): Promise<void> }[] = [];
after(() => Promise.all(folders.map((f) => f.remove())));

/** A fake ping (support/fake-ping.ts), removed after the file's tests. */
async function fakePing(output: string, options: { hang?: boolean } = {}): Promise<FakePing> {
  const folder = await makeFakePing(output, options);
  folders.push(folder);
  return folder;
}

describe('a fake ping on the search path, printing recorded outputs', { skip: process.platform === 'win32' && 'the fake ping is a shell script' }, () => {
  test('it is given the address, with the flags of iputils, never the name', async () => {
    const folder = await fakePing(IPUTILS_UP);
    const result = await probePing(config({ host: 'localhost', count: 3, packetTimeout: 2000 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(result.result, 'up', result.message);
    const args = (await folder.args())!;
    assert.deepEqual(args.slice(0, -1), ['-n', '-c', '3', '-i', '0.2', '-W', '2', ...(args.at(-1) === '::1' ? ['-6'] : [])]);
    assert.match(args.at(-1)!, /^(127\.0\.0\.1|::1)$/);
  });

  test("macOS' and Windows' flags, by the platform the probe is told", async () => {
    const mac = await fakePing(MACOS_UP);
    const onMac = await probePing(config({ count: 3, packetTimeout: 500 }), { destinations, path: mac.path, platform: 'darwin' });
    assert.equal(onMac.result, 'up', onMac.message);
    assert.deepEqual(await mac.args(), ['-n', '-c', '3', '-W', '500', '-t', '3', '127.0.0.1']);
    const windows = await fakePing(WINDOWS_UP);
    const onWindows = await probePing(config({ count: 3, packetTimeout: 500 }), { destinations, path: windows.path, platform: 'win32' });
    assert.equal(onWindows.result, 'up', onWindows.message);
    assert.deepEqual(await windows.args(), ['-n', '3', '-w', '500', '-4', '127.0.0.1']);
    assert.deepEqual(onWindows.ping, { address: '127.0.0.1', transmitted: 3, received: 3, lossPercent: 0, rttMinMs: 0, rttAvgMs: 0, rttMaxMs: 1 });
  });

  test('some packets lost: degraded above the loss threshold, up at or below it', async () => {
    const folder = await fakePing(IPUTILS_LOSS);
    const degraded = await probePing(config({ degradedLoss: 0 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(degraded.result, 'degraded');
    assert.equal(
      degraded.message,
      '1 of 3 packets lost (33.3 %), above the degraded threshold of 0 % loss, round trip 2.98 ms on average (min 2.91 ms, max 3.05 ms)',
    );
    assert.equal(degraded.latencyMs, 2.98);
    assert.deepEqual(degraded.ping, { address: '127.0.0.1', transmitted: 3, received: 2, lossPercent: 33.3, rttMinMs: 2.91, rttAvgMs: 2.98, rttMaxMs: 3.05 });
    const up = await probePing(config({ degradedLoss: 50 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(up.result, 'up');
    assert.match(up.message, /^2 of 3 packets answered by 127\.0\.0\.1, round trip 2\.98 ms on average/);
  });

  test('a slow average round trip is degraded above the latency threshold', async () => {
    const folder = await fakePing(MACOS_LOSS.replace('33.3% packet loss', '0.0% packet loss').replace('2 packets received', '3 packets received'));
    const result = await probePing(config({ degraded: 3 }), { destinations, path: folder.path, platform: 'darwin' });
    assert.equal(result.result, 'degraded');
    assert.equal(result.message, 'round trip 3.801 ms on average, slower than the degraded threshold of 3 ms (3 of 3 packets answered)');
    const fast = await probePing(config({ degraded: 4 }), { destinations, path: folder.path, platform: 'darwin' });
    assert.equal(fast.result, 'up');
  });

  test('every packet lost is down, tried again up to retry, and the last round is recorded', async () => {
    const folder = await fakePing(IPUTILS_TOTAL_LOSS);
    const result = await probePing(config({ retry: 2 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'no answer from 127.0.0.1: all 3 packets lost');
    assert.equal(result.attempts, 3);
    assert.deepEqual(result.ping, { address: '127.0.0.1', transmitted: 3, received: 0, lossPercent: 100, rttMinMs: null, rttAvgMs: null, rttMaxMs: null });
    const windows = await fakePing(WINDOWS_UNREACHABLE);
    const unreachable = await probePing(config(), { destinations, path: windows.path, platform: 'win32' });
    assert.equal(unreachable.result, 'down', 'answers of "destination host unreachable" are no echo');
    assert.equal(unreachable.message, 'no answer from 127.0.0.1: all 3 packets lost');
  });

  test('a ping that may not send ICMP is down with what to change, and not tried again', async () => {
    const folder = await fakePing(IPUTILS_NOT_PERMITTED);
    const result = await probePing(config({ retry: 3 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(result.result, 'down');
    assert.match(
      result.message,
      /ping may not send ICMP here: give the ping program CAP_NET_RAW .* net\.ipv4\.ping_group_range \(ping: socket: Operation not permitted\)$/,
    );
    assert.equal(result.attempts, 1);
  });

  test('no ping on the search path is down, saying what to install', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'ping-probe-empty-'));
    folders.push({ remove: () => rm(empty, { recursive: true, force: true }) });
    const result = await probePing(config({ retry: 3 }), { destinations, path: empty });
    assert.equal(result.result, 'down');
    assert.equal(result.message, PING_MISSING);
    assert.match(result.message, /iputils-ping on Debian and Ubuntu/);
    assert.equal(result.attempts, 1);
  });

  test('a ping that runs past what its packets may take is interrupted, and what it printed is read', async () => {
    const folder = await fakePing(IPUTILS_CUT_SHORT, { hang: true });
    const started = Date.now();
    // One packet of 100 ms: iputils waits whole seconds, so ping gets 1 s, and a second of margin.
    const result = await probePing(config({ count: 1, packetTimeout: 100, timeout: 30_000 }), { destinations, path: folder.path, platform: 'linux' });
    const took = Date.now() - started;
    assert.ok(took >= 1900 && took < 5000, `ended after ${took} ms`);
    assert.equal(result.result, 'up', result.message);
    assert.deepEqual([result.ping!.transmitted, result.ping!.received], [2, 2]);
    assert.equal(isRunning(await folder.pid()), false, 'the fake ping was ended');
  });

  test("the check's timeout kills ping at once, and the stop signal does too", async () => {
    const folder = await fakePing('', { hang: true });
    const result = await probePing(config({ count: 10, packetTimeout: 1000, timeout: 300, retry: 3 }), { destinations, path: folder.path, platform: 'linux' });
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'timed out after 300 ms');
    assert.ok(result.latencyMs < 1500, `took ${result.latencyMs} ms`);
    assert.equal(isRunning(await folder.pid()), false, 'the fake ping was killed');

    const stopped = await fakePing('', { hang: true });
    const stop = new AbortController();
    const check = probePing(config({ count: 10, timeout: 20_000 }), { destinations, path: stopped.path, platform: 'linux', stop: stop.signal });
    // Stopped once ping runs (its pid file is written first thing).
    for (let i = 0; i < 100 && !(await stopped.pid().catch(() => 0)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    const ended = await check;
    assert.equal(ended.result, 'down');
    assert.ok(ended.latencyMs < 5000, `took ${ended.latencyMs} ms`);
    assert.equal(isRunning(await stopped.pid()), false, 'the stop killed the fake ping');
  });
});

// ---- a private location's report --------------------------------------------------------------

describe("a private location's runner reports a ping check's record", () => {
  const office = { runner: 'office', regions: ['office'], workspaceId: 3 };
  const record = { address: '192.168.1.10', transmitted: 3, received: 2, lossPercent: 33.3, rttMinMs: 0.3, rttAvgMs: 0.41, rttMaxMs: 0.6 };
  const check = { ...storedCheck(9, 3, Date.UTC(2026, 0, 15, 12), 'degraded', 0.41), ping: record };
  const wire = (): RunnerCheck => fromBinary(RunnerCheckSchema, toBinary(RunnerCheckSchema, create(RunnerCheckSchema, toRunnerCheck(5, check))));

  test('the record survives the wire whole, null round trips included', () => {
    assert.deepEqual(fromRunnerCheck(wire(), office), { ...check, runner: 'office', regions: ['office'] });
    const lost = { ...check, ping: { ...record, received: 0, lossPercent: 100, rttMinMs: null, rttAvgMs: null, rttMaxMs: null } };
    const message = fromBinary(RunnerCheckSchema, toBinary(RunnerCheckSchema, create(RunnerCheckSchema, toRunnerCheck(6, lost))));
    assert.deepEqual(fromRunnerCheck(message, office).ping, lost.ping);
  });

  test('what a hostile runner may not report of it is refused, naming the field', () => {
    const refused = (change: (ping: NonNullable<RunnerCheck['ping']>) => void) => {
      const message = wire();
      change(message.ping!);
      try {
        fromRunnerCheck(message, office);
      } catch (error) {
        assert.ok(error instanceof AppError && error.code === 'VALIDATION', String(error));
        return error.message;
      }
      return assert.fail('the report was accepted');
    };
    assert.match(
      refused((p) => (p.address = '-f')),
      /^ping\.address: must be an IP address/,
    );
    assert.match(
      refused((p) => (p.received = 4)),
      /^ping\.received: received must not exceed transmitted/,
    );
    assert.match(
      refused((p) => (p.lossPercent = 101)),
      /^ping\.lossPercent: must be 0 to 100/,
    );
    assert.match(
      refused((p) => (p.rttAvgMs = -1)),
      /^ping\.rttAvgMs: must not be negative/,
    );
  });
});
