// The tests' seeded PRNG: the package's own mulberry32 (src/demo/seeded-random.ts) with the
// two shapes randomized tests use most, so every randomized test is reproducible from its seed.
import { seededRandom } from '../../src/demo/seeded-random.js';

export interface Prng {
  next(): number; // [0, 1)
  int(n: number): number; // [0, n)
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function prng(seed: number): Prng {
  const r = seededRandom(seed);
  return { next: r.next, int: (n) => Math.floor(r.next() * n), pick: r.pick, chance: (p) => r.next() < p };
}
