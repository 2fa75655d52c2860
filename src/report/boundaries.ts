// The instants a report classifies rows against, read from the activation keys (AC-24,
// AC-24c, AC-24f) and never from rows. Every key is parsed as an instant (AC-24e); the ''
// sentinel and unreadable text are never compared with anything.
//
// Which era has KNOWN fan-out (AC-25): "a session whose activity predates backfill_through
// has unknown fan-out", and activity after it has known fan-out (AC-24a, AC-24d). So the
// boundary is backfill_through when it holds an instant. When it is '' the backfill matched
// nothing, there was no earlier history, and capture_since is the boundary that matters
// (AC-24f). Without capture_since there is no boundary at all: all history is unknown
// fan-out (AC-24c rows three and four). A present capture_since with backfill_through absent
// is a partial pair the next boot repairs (AC-24d); capture_since alone is then the safe
// boundary, because from it live capture is authoritative.
import { isBoundaryInstant } from '../column-time.js';
import { parseInstant } from '../instant.js';
import type { HealthReport } from '../types.js';

export type KeyName = 'capture_since' | 'backfill_through' | 'execution_since';

export interface ReportBoundaries {
  /** Turns whose first row is at or after this instant have known fan-out. */
  knownFromNs: bigint | null;
  knownFromKey: 'backfill_through' | 'capture_since' | null;
  captureSinceNs: bigint | null;
  executionSinceNs: bigint | null;
  /** Keys that are present but hold no instant ('' on backfill_through excepted: a sentinel). */
  unreadable: KeyName[];
  /** Keys read as instants that carry no fraction: second precision, AC-24 point 5. */
  secondPrecision: KeyName[];
}

function keyInstant(value: string): bigint | null {
  const ns = parseInstant(value);
  return ns !== null && isBoundaryInstant(ns) ? ns : null;
}

export function boundariesFromKeys(keys: HealthReport['keys']): ReportBoundaries {
  const unreadable: KeyName[] = [];
  const secondPrecision: KeyName[] = [];
  const read = (name: KeyName, value: string | null): bigint | null => {
    if (value === null || (name === 'backfill_through' && value === '')) return null;
    const ns = keyInstant(value);
    if (ns === null) unreadable.push(name);
    else if (!value.includes('.')) secondPrecision.push(name);
    return ns;
  };
  const captureSinceNs = read('capture_since', keys.capture_since);
  const backfillThroughNs = read('backfill_through', keys.backfill_through);
  const executionSinceNs = read('execution_since', keys.execution_since);

  let knownFromNs: bigint | null = null;
  let knownFromKey: ReportBoundaries['knownFromKey'] = null;
  if (captureSinceNs !== null) {
    if (backfillThroughNs !== null) [knownFromNs, knownFromKey] = [backfillThroughNs, 'backfill_through'];
    else [knownFromNs, knownFromKey] = [captureSinceNs, 'capture_since'];
  }
  return { knownFromNs, knownFromKey, captureSinceNs, executionSinceNs, unreadable, secondPrecision };
}
