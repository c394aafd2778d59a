/**
 * A latency histogram with logarithmic buckets (the DDSketch layout): bucket i holds values in
 * (γ^(i-1), γ^i], so any percentile read back is within 1% of the true value, and histograms of
 * different hours merge by adding counts. This is what lets a 14-day summary read 336 hourly rows
 * instead of 40,000 raw results.
 *
 * Encoded, the buckets come in ascending order, each as two unsigned LEB128 varints: its distance
 * from the bucket before it less one (the first's, from the lowest bucket), and its count. A monitor's
 * latencies fill neighbouring buckets with counts under 128, so a bucket takes two bytes: an
 * hour's rollup at 30 s holds up to 120 of them.
 */
const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Latencies at or below 1 µs share the lowest bucket. */
const MIN_MS = 0.001;
const MIN_INDEX = Math.ceil(Math.log(MIN_MS) / LOG_GAMMA);
/** The most bytes a bucket can take: two varints of up to eight bytes (any count up to 2^53). */
const MAX_BUCKET_BYTES = 16;

const indexOf = (ms: number) => (ms <= MIN_MS ? MIN_INDEX : Math.ceil(Math.log(ms) / LOG_GAMMA));

/**
 * Reads the buckets of an encoding in order: `next()` moves to the next; `index` is Infinity past
 * the last. The current bucket's bytes are `start` to `end`; `previous` is the index before it.
 */
class BucketReader {
  index = MIN_INDEX - 1;
  previous = MIN_INDEX - 1;
  count = 0;
  start = 0;
  end = 0;
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.next();
  }

  next(): void {
    this.start = this.end;
    if (this.index !== Infinity) this.previous = this.index;
    if (this.start >= this.#bytes.length) {
      this.index = Infinity;
      return;
    }
    this.index = this.previous + 1 + this.#varint();
    this.count = this.#varint();
  }

  #varint(): number {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = this.#bytes[this.end++] ?? 0;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  }
}

/** Writes buckets, in ascending order, into a buffer of `room` bytes. */
class BucketWriter {
  readonly #bytes: Buffer;
  #length = 0;
  #previous = MIN_INDEX - 1;

  constructor(room: number) {
    this.#bytes = Buffer.allocUnsafe(room);
  }

  add(index: number, count: number): void {
    this.#varint(index - this.#previous - 1);
    this.#varint(count);
    this.#previous = index;
  }

  /** Encoded buckets as they are, the last of them `last` (Infinity when they end the encoding). */
  copy(buckets: Uint8Array, last: number): void {
    this.#bytes.set(buckets, this.#length);
    this.#length += buckets.length;
    this.#previous = last;
  }

  done(): Buffer {
    return this.#bytes.subarray(0, this.#length);
  }

  #varint(value: number): void {
    while (value >= 0x80) {
      this.#bytes[this.#length++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    this.#bytes[this.#length++] = value;
  }
}

export class LatencyHistogram {
  readonly #counts = new Map<number, number>();
  #total = 0;

  get count(): number {
    return this.#total;
  }

  add(ms: number, times = 1): void {
    const index = indexOf(ms);
    this.#counts.set(index, (this.#counts.get(index) ?? 0) + times);
    this.#total += times;
  }

  merge(other: LatencyHistogram): void {
    for (const [index, n] of other.#counts) this.#counts.set(index, (this.#counts.get(index) ?? 0) + n);
    this.#total += other.#total;
  }

  /** The q-quantile (0 < q <= 1) by nearest rank; undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.#total === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    for (const index of this.#indexes()) {
      seen += this.#counts.get(index)!;
      if (seen >= rank) return Math.round(((2 * GAMMA ** index) / (GAMMA + 1)) * 1000) / 1000;
    }
    return undefined;
  }

  encode(): Buffer {
    const writer = new BucketWriter(this.#counts.size * MAX_BUCKET_BYTES);
    for (const index of this.#indexes()) writer.add(index, this.#counts.get(index)!);
    return writer.done();
  }

  /** The encoding of a histogram holding `ms` once, without building one. */
  static encodeOne(ms: number): Buffer {
    const writer = new BucketWriter(MAX_BUCKET_BYTES);
    writer.add(indexOf(ms), 1);
    return writer.done();
  }

  /**
   * The encoding of two encoded histograms merged: what SQLite calls to add a check to a stored
   * rollup, once per check. Done on the bytes, the two bucket lists merged in order: no histogram
   * is built.
   */
  static mergeEncoded(a: Uint8Array, b: Uint8Array): Buffer {
    // A merged bucket's count takes at most the bytes of the two counts, and its gap fewer.
    const merged = new BucketWriter(a.length + b.length);
    const x = new BucketReader(a);
    const y = new BucketReader(b);
    // `a`'s buckets below `b`'s first, and those above its last, are `a`'s bytes as they are.
    while (x.index < y.index) x.next();
    merged.copy(a.subarray(0, x.start), x.previous);
    while (y.index !== Infinity) {
      if (x.index < y.index) {
        merged.add(x.index, x.count);
        x.next();
      } else if (y.index < x.index) {
        merged.add(y.index, y.count);
        y.next();
      } else {
        merged.add(x.index, x.count + y.count);
        x.next();
        y.next();
      }
    }
    if (x.index !== Infinity) {
      merged.add(x.index, x.count);
      merged.copy(a.subarray(x.end), Infinity);
    }
    return merged.done();
  }

  static decode(bytes: Uint8Array): LatencyHistogram {
    const histogram = new LatencyHistogram();
    for (const reader = new BucketReader(bytes); reader.index !== Infinity; reader.next()) {
      histogram.#counts.set(reader.index, reader.count);
      histogram.#total += reader.count;
    }
    return histogram;
  }

  #indexes(): number[] {
    return [...this.#counts.keys()].sort((a, b) => a - b);
  }
}
