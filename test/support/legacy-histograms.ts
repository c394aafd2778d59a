import { LatencyHistogram } from '../../server/domain/monitors/latency-histogram.ts';
import { seededRandom } from './seeded-random.ts';

/**
 * Latency histograms as rollups stored them before migration 0011: (bucket index int32, count
 * uint32) pairs, little-endian, in the order their buckets were first added; each with the
 * encoding it has now. Up to 149 buckets, counts mostly those of an hour, some as large as a
 * count can be. A value of γ^index / 1.01 falls in the bucket `index`.
 */
export function legacyHistograms(count: number, seed = 5): { pairs: Buffer; expected: Buffer }[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, row) => {
    const indexes = [...new Set(Array.from({ length: row % 150 }, () => -348 + Math.floor(next() * 1_100)))];
    const histogram = new LatencyHistogram();
    const pairs = Buffer.alloc(indexes.length * 8);
    indexes.forEach((index, i) => {
      const n = 1 + Math.floor(next() * (next() < 0.9 ? 120 : 2 ** 32 - 2));
      histogram.add(1.02 ** index / 1.01, n);
      pairs.writeInt32LE(index, i * 8);
      pairs.writeUInt32LE(n, i * 8 + 4);
    });
    return { pairs, expected: histogram.encode() };
  });
}
