// Ids that no database can compress: what an index actually has to hold. PostgreSQL compresses
// a long value before indexing it (pglz), so `'a'.repeat(5000)` becomes a few dozen bytes and
// fits the 2704-byte btree entry; an id made of random bytes stays as long as it is. Every id
// here is built from node:crypto random bytes, in the three shapes an id takes on the wire.
import { randomBytes, randomInt } from 'node:crypto';

export type IdShape = 'base64' | 'hex' | 'utf8';
export const ID_SHAPES: readonly IdShape[] = ['base64', 'hex', 'utf8'];

/** Code point ranges of 2-, 3- and 4-byte UTF-8 characters, none a surrogate, NUL or U+FFFx. */
const MULTIBYTE_RANGES: readonly (readonly [number, number])[] = [
  [0x00a1, 0x07ff], // 2 bytes
  [0x0800, 0xd7ff], // 3 bytes, below the surrogates
  [0xe000, 0xffef], // 3 bytes, above them
  [0x10000, 0x10fffd], // 4 bytes
];

/**
 * A well-formed id of exactly `bytes` UTF-8 bytes (bytes >= 1), incompressible:
 * base64 or hex of random bytes, or random multi-byte characters (topped up with ASCII
 * letters to land on the exact length).
 */
export function incompressibleId(bytes: number, shape: IdShape): string {
  if (shape === 'base64')
    return randomBytes(Math.ceil((bytes * 3) / 4) + 3)
      .toString('base64url')
      .slice(0, bytes);
  if (shape === 'hex')
    return randomBytes(Math.ceil(bytes / 2))
      .toString('hex')
      .slice(0, bytes);
  let s = '';
  let used = 0;
  while (bytes - used >= 4) {
    const [lo, hi] = MULTIBYTE_RANGES[randomInt(MULTIBYTE_RANGES.length)];
    const ch = String.fromCodePoint(randomInt(lo, hi + 1));
    s += ch;
    used += Buffer.byteLength(ch, 'utf8');
  }
  while (used < bytes) {
    s += String.fromCharCode(0x61 + randomInt(26));
    used++;
  }
  return s;
}

/** UTF-8 length, as the bound counts it. */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
