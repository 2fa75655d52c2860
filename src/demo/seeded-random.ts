// A small seeded PRNG (mulberry32) so the demo's history is the same on every run and on
// both dialects: the demo test compares printed figures with the database, and a reader
// comparing two runs should see the same numbers.
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi], inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** A new array, Fisher–Yates shuffled. */
  shuffle<T>(items: readonly T[]): T[];
  /** `length` characters from [0-9A-Za-z]. */
  base62(length: number): string;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const chars = (alphabet: string, length: number) => {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
    base62: (length) => chars(BASE62, length),
    hex: (length) => chars('0123456789abcdef', length),
  };
}
