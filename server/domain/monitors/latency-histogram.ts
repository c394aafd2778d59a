/**
 * A latency histogram with logarithmic buckets (the DDSketch layout): bucket i holds values in
 * (γ^(i-1), γ^i], so any percentile read back is within 1% of the true value, histograms of
 * different hours merge by adding counts, and one encodes in a few hundred bytes. This is what
 * lets a 14-day summary read 336 hourly rows instead of 40,000 raw results.
 */
const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Latencies at or below 1 µs share the lowest bucket. */
const MIN_MS = 0.001;
const MIN_INDEX = Math.ceil(Math.log(MIN_MS) / LOG_GAMMA);
const ENTRY_BYTES = 8;

/**
 * Whether the entries at `at` in `x` and `offset` in `y` have the same bucket index: its four bytes
 * compared one by one, twice as quick as reading each index as a number while searching.
 */
const sameIndex = (x: Uint8Array, at: number, y: Uint8Array, offset: number) =>
  x[at] === y[offset] && x[at + 1] === y[offset + 1] && x[at + 2] === y[offset + 2] && x[at + 3] === y[offset + 3];

const indexOf = (ms: number) => (ms <= MIN_MS ? MIN_INDEX : Math.ceil(Math.log(ms) / LOG_GAMMA));

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
    for (const index of [...this.#counts.keys()].sort((a, b) => a - b)) {
      seen += this.#counts.get(index)!;
      if (seen >= rank) return Math.round(((2 * GAMMA ** index) / (GAMMA + 1)) * 1000) / 1000;
    }
    return undefined;
  }

  /** Pairs of (bucket index int32, count uint32), little-endian. */
  encode(): Buffer {
    const buffer = Buffer.allocUnsafe(this.#counts.size * ENTRY_BYTES);
    let offset = 0;
    for (const [index, n] of this.#counts) {
      buffer.writeInt32LE(index, offset);
      buffer.writeUInt32LE(n, offset + 4);
      offset += ENTRY_BYTES;
    }
    return buffer;
  }

  /** The encoding of a histogram holding `ms` once, without building one. */
  static encodeOne(ms: number): Buffer {
    const buffer = Buffer.allocUnsafe(ENTRY_BYTES);
    buffer.writeInt32LE(indexOf(ms), 0);
    buffer.writeUInt32LE(1, 4);
    return buffer;
  }

  /**
   * The encoding of two encoded histograms merged: what SQLite calls to add a check to a stored
   * rollup, once per check. Done on the bytes, `b`'s buckets added to a copy of `a` (an hour's
   * rollup holds up to hundreds of buckets, a check one): no histogram is built.
   */
  static mergeEncoded(a: Uint8Array, b: Uint8Array): Buffer {
    const stored = a.length - (a.length % ENTRY_BYTES);
    const added = Buffer.from(b.buffer, b.byteOffset, b.byteLength - (b.byteLength % ENTRY_BYTES));
    // Room for each of `b`'s buckets being new; what is left unused is cut off at the end.
    const merged = Buffer.allocUnsafe(stored + added.length);
    merged.set(a.subarray(0, stored));
    let length = stored;
    for (let offset = 0; offset < added.length; offset += ENTRY_BYTES) {
      let at = 0;
      while (at < stored && !sameIndex(merged, at, added, offset)) at += ENTRY_BYTES;
      if (at < stored) merged.writeUInt32LE(merged.readUInt32LE(at + 4) + added.readUInt32LE(offset + 4), at + 4);
      else {
        added.copy(merged, length, offset, offset + ENTRY_BYTES);
        length += ENTRY_BYTES;
      }
    }
    return length === merged.length ? merged : merged.subarray(0, length);
  }

  static decode(buffer: Uint8Array): LatencyHistogram {
    const histogram = new LatencyHistogram();
    const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    for (let offset = 0; offset + ENTRY_BYTES <= view.length; offset += ENTRY_BYTES) {
      const n = view.readUInt32LE(offset + 4);
      histogram.#counts.set(view.readInt32LE(offset), n);
      histogram.#total += n;
    }
    return histogram;
  }
}
