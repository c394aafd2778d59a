import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LatencyHistogram } from '../server/domain/monitors/latency-histogram.ts';
import { seededRandom } from './support/seeded-random.ts';

/** Latencies spread over 50 µs to 10 s on a log scale, as a mix of loopback, LAN and slow checks. */
const latencies = (n: number, next: () => number) => Array.from({ length: n }, () => 0.05 * 200_000 ** next());

function histogramOf(values: number[], times = 1): LatencyHistogram {
  const histogram = new LatencyHistogram();
  for (const ms of values) histogram.add(ms, times);
  return histogram;
}

const QUANTILES = [0.01, 0.5, 0.75, 0.9, 0.95, 0.99, 1];
const quantiles = (histogram: LatencyHistogram) => QUANTILES.map((q) => histogram.quantile(q));

describe('LatencyHistogram', () => {
  test('any quantile is within 1% of the true one by nearest rank', () => {
    const next = seededRandom(7);
    const values = latencies(5_000, next).sort((a, b) => a - b);
    const histogram = histogramOf(values);
    for (const q of QUANTILES) {
      const truth = values[Math.max(1, Math.ceil(q * values.length)) - 1]!;
      const read = histogram.quantile(q)!;
      assert.ok(Math.abs(read - truth) <= truth * 0.01 + 0.001, `q ${q}: read ${read}, true ${truth}`);
    }
    assert.equal(new LatencyHistogram().quantile(0.5), undefined);
  });

  test('decodes what it encodes: the same count and quantiles', () => {
    const next = seededRandom(11);
    for (const size of [0, 1, 2, 50, 500]) {
      const histogram = histogramOf(latencies(size, next));
      const decoded = LatencyHistogram.decode(histogram.encode());
      assert.equal(decoded.count, size);
      assert.deepEqual(quantiles(decoded), quantiles(histogram));
      assert.deepEqual(decoded.encode(), histogram.encode());
    }
  });

  test('counts of many bytes and the extremes of latency survive encoding', () => {
    const histogram = histogramOf([0, 0.0001, 0.001, 1, 600_000], 2 ** 32 - 1);
    histogram.add(1, 2 ** 45);
    const decoded = LatencyHistogram.decode(histogram.encode());
    assert.equal(decoded.count, 5 * (2 ** 32 - 1) + 2 ** 45);
    assert.deepEqual(quantiles(decoded), quantiles(histogram));
  });

  test('merging encodings gives the encoding of the histograms merged, byte for byte', () => {
    const next = seededRandom(23);
    for (let round = 0; round < 300; round++) {
      const a = histogramOf(latencies(Math.floor(next() * 150), next), 1 + Math.floor(next() * 300));
      const b = histogramOf(latencies(Math.floor(next() * 150), next), 1 + Math.floor(next() * 300));
      const expected = new LatencyHistogram();
      expected.merge(a);
      expected.merge(b);
      assert.deepEqual(LatencyHistogram.mergeEncoded(a.encode(), b.encode()), expected.encode(), `round ${round}`);
    }
  });

  test('adding one check to a stored encoding, as each check does to its rollup', () => {
    const next = seededRandom(31);
    const histogram = new LatencyHistogram();
    let stored: Uint8Array = new LatencyHistogram().encode();
    for (const ms of latencies(2_000, next)) {
      stored = LatencyHistogram.mergeEncoded(stored, LatencyHistogram.encodeOne(ms));
      histogram.add(ms);
    }
    assert.deepEqual(stored, histogram.encode());
    // Into a histogram that holds the bucket already, and one that does not.
    assert.equal(LatencyHistogram.decode(LatencyHistogram.mergeEncoded(histogramOf([1]).encode(), LatencyHistogram.encodeOne(1))).count, 2);
    assert.deepEqual(
      quantiles(LatencyHistogram.decode(LatencyHistogram.mergeEncoded(histogramOf([1]).encode(), LatencyHistogram.encodeOne(3)))),
      quantiles(histogramOf([1, 3])),
    );
  });

  test('an hour of a monitor checked every 30 s takes about two bytes a bucket', () => {
    // 120 checks of a loopback service: 0.05 to 2 ms.
    const next = seededRandom(43);
    const latencies = Array.from({ length: 120 }, () => 0.05 * 40 ** next());
    // Bucket i holds the latencies in (1.02^(i-1), 1.02^i].
    const buckets = new Set(latencies.map((ms) => Math.ceil(Math.log(ms) / Math.log(1.02)))).size;
    const bytes = histogramOf(latencies).encode().length;
    assert.ok(buckets > 60, `${buckets} buckets`);
    // Eight bytes a bucket before; the first bucket's distance from the lowest takes two.
    assert.ok(bytes <= 2 * buckets + 1, `${bytes} bytes for ${buckets} buckets`);
  });
});
