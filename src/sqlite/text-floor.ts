// The bare-column lower bound that lets a SQLite index on a host timestamp column serve a time
// window (docs/timestamps.md, "Index-friendliness", has the proof; test/health-window-edge.test.ts
// seeds every form at the edge). The column holds text in any accepted form —
// `YYYY-MM-DD[ T]HH:MM:SS[.f{1,9}][Z|±HH:MM]` — whose leading date and time are LOCAL: a row
// at instant I with offset o starts with the civil time I + o. Offsets are at most ±23:59
// (RFC3339, src/instant.ts), so a row at or after `since` has local time ≥ since − 23:59 and its
// text sorts at or after that instant's `YYYY-MM-DD HH:MM:SS` (a 'T' separator sorts above ' ',
// extra characters above a shorter equal prefix). SQLite's strftime reads offsets only up to
// ±14:59 (a row beyond that is NULL in utc9, never in any window), so ±23:59 is safe whatever
// the engine reads, and costs only index entries: the statements reject the floor zone's rows
// on the index alone (`col >= substr(:since, 1, 19) OR substr(col, -6, 1) = '-'`), before a row
// is fetched — only a negative offset can put a row's text before its UTC instant.
import { formatUtc9 } from '../instant.js';

/** 23:59, the largest offset an accepted timestamp carries. */
const MAX_OFFSET_NS = (23n * 60n + 59n) * 60n * 1_000_000_000n;

/** :sinceFloor for a window starting at sinceNs: `YYYY-MM-DD HH:MM:SS` of sinceNs − 23:59, truncated to the second. */
export function sqliteSinceFloor(sinceNs: bigint): string {
  return formatUtc9(sinceNs - MAX_OFFSET_NS).slice(0, 19);
}
