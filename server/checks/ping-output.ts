/**
 * What the system's `ping` printed, read into packets and round-trip times. One reader for every
 * format the probe meets, whichever machine it runs on: Linux's iputils and BusyBox, macOS and the
 * BSDs, and Windows. The probe runs ping with LC_ALL=C, so a Unix ping writes English and a dot
 * for decimals; Windows' ping writes in the system's language whatever the environment, so its
 * summary is read by its shape (`= 4, … = 4, … = 0 (0% …)`), not by its words.
 */

/** The packets of one run of ping and their round-trip times in milliseconds (null without an answer). */
export interface PingStatistics {
  transmitted: number;
  received: number;
  /** Of the packets transmitted, in percent (0 to 100). */
  lossPercent: number;
  rttMinMs: number | null;
  rttAvgMs: number | null;
  rttMaxMs: number | null;
}

export type PingOutput =
  /** The packets counted: from ping's summary, or from its reply lines when it was ended before one. */
  | { kind: 'statistics'; statistics: PingStatistics }
  /** Ping could not resolve the host it was given. */
  | { kind: 'unknown-host'; line: string }
  /** Ping may not open an ICMP socket here (no CAP_NET_RAW, no ping socket allowed). */
  | { kind: 'not-permitted'; line: string }
  /** Nothing of the above: the output's first line, to report. */
  | { kind: 'unreadable'; line: string };

// Unix (iputils, BusyBox, macOS, BSD): "3 packets transmitted, 2 received, +1 errors, 33.3333% packet loss, time 2003ms"
// and "3 packets transmitted, 3 packets received, 0.0% packet loss".
const UNIX_COUNTS = /(\d+) packets transmitted, (\d+) (?:packets )?received/;
const UNIX_LOSS = /([\d.]+)% packet loss/;
// "rtt min/avg/max/mdev = 0.035/0.045/0.056/0.008 ms" (iputils), "round-trip min/avg/max = …" (BusyBox),
// "round-trip min/avg/max/stddev = …" (macOS, BSD), "round-trip min/avg/max/std-dev = …" (macOS ping6).
const UNIX_RTT = /(?:rtt|round-trip) min\/avg\/max(?:\/[\w-]+)? = ([\d.]+)\/([\d.]+)\/([\d.]+)/;
// "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms", BusyBox's "seq=0", and "time<1 ms".
const UNIX_REPLY = /\bbytes from\b.*\btime[=<]([\d.]+) ?ms/;

// Windows: "    Packets: Sent = 4, Received = 4, Lost = 0 (0% loss)," in any language.
const WINDOWS_COUNTS = /=\s*(\d+),[^=\n]*=\s*(\d+),[^=\n]*=\s*(\d+)\s*\((\d+)%/;
// "    Minimum = 0ms, Maximum = 1ms, Average = 0ms": minimum, maximum, then average.
const WINDOWS_RTT = /=\s*(\d+)\s?ms,[^=\n]*=\s*(\d+)\s?ms,[^=\n]*=\s*(\d+)\s?ms/;
// A reply line: "Reply from 127.0.0.1: bytes=32 time<1ms TTL=128", "Reply from ::1: time=1ms". An
// unreachable answer ("Reply from 10.0.0.1: Destination host unreachable.") has no time, and is
// counted as received by Windows' summary, though no echo came back.
const WINDOWS_REPLY = /[=<](\d+)\s?ms\b/;

const UNKNOWN_HOST =
  /unknown host|cannot resolve|name or service not known|bad address|temporary failure in name resolution|no address associated with hostname|could not find host/i;
const NOT_PERMITTED = /operation not permitted|permission denied|are you root|missing cap_net_raw/i;

const percentOf = (lost: number, transmitted: number) => (transmitted === 0 ? 0 : Math.round((lost / transmitted) * 1000) / 10);

/** The round trips of reply lines (before any summary) as statistics of `sent` packets; undefined without a reply. */
function fromReplies(rtts: number[], sent: number): PingStatistics | undefined {
  if (rtts.length === 0) return undefined;
  const transmitted = Math.max(sent, rtts.length);
  return {
    transmitted,
    received: rtts.length,
    lossPercent: percentOf(transmitted - rtts.length, transmitted),
    rttMinMs: Math.min(...rtts),
    rttAvgMs: Math.round((rtts.reduce((sum, rtt) => sum + rtt, 0) / rtts.length) * 1000) / 1000,
    rttMaxMs: Math.max(...rtts),
  };
}

function unixStatistics(text: string, lines: string[], sent: number): PingStatistics | undefined {
  const counts = UNIX_COUNTS.exec(text);
  if (!counts) {
    // Ended before its summary: the replies it printed are what is known.
    const rtts = lines.flatMap((line) => {
      const reply = UNIX_REPLY.exec(line);
      return reply ? [Number(reply[1])] : [];
    });
    return fromReplies(rtts, sent);
  }
  const transmitted = Number(counts[1]);
  // Duplicates are answers counted twice: at most every packet was answered.
  const received = Math.min(Number(counts[2]), transmitted);
  const loss = UNIX_LOSS.exec(text);
  const rtt = received > 0 ? UNIX_RTT.exec(text) : null;
  return {
    transmitted,
    received,
    // iputils writes 33.3333, macOS 33.3: one decimal is kept.
    lossPercent: loss ? Math.min(100, Math.round(Number(loss[1]) * 10) / 10) : percentOf(transmitted - received, transmitted),
    rttMinMs: rtt ? Number(rtt[1]) : null,
    rttAvgMs: rtt ? Number(rtt[2]) : null,
    rttMaxMs: rtt ? Number(rtt[3]) : null,
  };
}

function windowsStatistics(lines: string[], sent: number): PingStatistics | undefined {
  const summary = lines.findIndex((line) => WINDOWS_COUNTS.test(line));
  // The echo replies, before the summary (whose own line of times has "= 0ms" too).
  const rtts = (summary === -1 ? lines : lines.slice(0, summary)).flatMap((line) => {
    if (WINDOWS_RTT.test(line)) return [];
    const reply = WINDOWS_REPLY.exec(line);
    return reply ? [Number(reply[1])] : [];
  });
  if (summary === -1) return fromReplies(rtts, sent);
  const [, sentText] = WINDOWS_COUNTS.exec(lines[summary]!)!;
  const transmitted = Number(sentText);
  const received = Math.min(rtts.length, transmitted);
  const times =
    received > 0
      ? lines
          .slice(summary + 1)
          .map((line) => WINDOWS_RTT.exec(line))
          .find(Boolean)
      : undefined;
  return {
    transmitted,
    received,
    lossPercent: percentOf(transmitted - received, transmitted),
    rttMinMs: times ? Number(times[1]) : null,
    rttAvgMs: times ? Number(times[3]) : null,
    rttMaxMs: times ? Number(times[2]) : null,
  };
}

/**
 * Reads what ping printed (its stdout and stderr together). `sent`: the packets it was asked to
 * send, which stand for what it transmitted when it was ended before its summary.
 */
export function parsePingOutput(text: string, sent: number): PingOutput {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const statistics = UNIX_COUNTS.test(text) || !WINDOWS_COUNTS.test(text) ? unixStatistics(text, lines, sent) : windowsStatistics(lines, sent);
  if (statistics) return { kind: 'statistics', statistics };
  const windows = windowsStatistics(lines, sent);
  if (windows) return { kind: 'statistics', statistics: windows };
  const unknown = lines.find((line) => UNKNOWN_HOST.test(line));
  if (unknown) return { kind: 'unknown-host', line: unknown };
  const refused = lines.find((line) => NOT_PERMITTED.test(line));
  if (refused) return { kind: 'not-permitted', line: refused };
  return { kind: 'unreadable', line: lines.find((line) => line !== '') ?? '' };
}
