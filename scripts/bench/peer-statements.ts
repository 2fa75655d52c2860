// The Kandev-shaped peers (scripts/bench/peer/<dialect>/*.sql): the spec's own statements for
// the backfill and the two health anti-joins, which `npm run bench` times beside the package's
// on the same stores. Bench-only, so they live here and not under queries/ (codegen, the
// package and its tests never see them).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ByDialect } from '../../src/dialect.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'peer');
const read = (dialect: string, name: string) => readFileSync(join(dir, dialect, `${name}.sql`), 'utf8');
const forDialect = (dialect: string) => ({ backfill: read(dialect, 'backfill'), shortfall: read(dialect, 'shortfall'), excess: read(dialect, 'excess') });

export const peerStatements = { sqlite: forDialect('sqlite'), postgres: forDialect('postgres') } as const;

/** The function each dialect's peer statements guard their JSON parse with (the minimal guard without which they abort on these stores). */
export const PEER_JSON_GUARD: ByDialect<string> = { sqlite: 'json_valid', postgres: 'pg_input_is_valid' };

/** One anti-join, the package's statement vs the peer, at the same window: times and counts. */
interface PeerTime {
  oursMs: number[];
  peerMs: number[];
  ours: number;
  peer: number;
}
export interface PeerTimes {
  shortfall: PeerTime;
  excess: PeerTime;
}
