// AC-26 writer counters, per store instance: the expvar analogue, read via counters().
import type { WriterCounters } from './types.js';

export function createCounters(): WriterCounters {
  return { attempted: 0, persisted: 0, skipped_no_identity: 0, anomalous_value: 0, failed: 0, unknown_execution: 0, ledger_failed: 0 };
}
