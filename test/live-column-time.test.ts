// The live writers' memoized timestamp text (src/column-time.ts) is byte-identical to the
// general formatter (formatMicros, DESIGN §4) on every instant it can be given, including
// second, day and year boundaries, clocks that go backwards, and the ends of its range.
import { describe, expect, it } from 'vitest';
import { createColumnTimeFormatter, MAX_COLUMN_INSTANT_NS } from '../src/column-time.js';
import { formatMicros } from '../src/instant.js';
import { prng } from './helpers/prng.js';

describe('column time formatter', () => {
  it('matches formatMicros + suffix on boundaries and on a seeded walk forwards and backwards', () => {
    const format = createColumnTimeFormatter('+00:00');
    const S = 1_000_000_000n;
    const instants = [
      0n,
      999n,
      1_000n,
      S - 1n,
      S,
      86_400n * S - 1n,
      86_400n * S,
      MAX_COLUMN_INSTANT_NS - 1n,
      1_785_000_000_123_456_789n,
      1_785_000_000_999_999_999n,
      1_785_000_001_000_000_000n,
      1_785_000_000_000_000_000n,
    ];
    const rng = prng(99);
    let t = 1_785_000_000_000_000_000n;
    for (let i = 0; i < 20_000; i++) {
      t += BigInt(Math.floor((rng.next() - 0.3) * 3e9)); // mostly forwards, sometimes back, across seconds
      instants.push(t);
    }
    for (const ns of instants) expect(format(ns), String(ns)).toBe(`${formatMicros(ns)}+00:00`);
    expect(createColumnTimeFormatter('')(1_785_000_000_000_001_999n)).toBe('2026-07-25 17:20:00.000001');
    expect(format(MAX_COLUMN_INSTANT_NS - 1n)).toBe('9999-12-31 23:59:59.999999+00:00');
  });
});
