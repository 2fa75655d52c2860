// A write the database accepted but that left no row behind. A host trigger on
// task_session_subagents can swallow the statement without an error — SQLite's BEFORE trigger
// with RAISE(IGNORE), a PostgreSQL BEFORE ROW trigger returning NULL — and the statement then
// reports success with zero rows changed. The upsert's conflict clause has no WHERE, so a
// frame that meets an existing row always updates it (one row changed): zero can only mean
// the row was not written, and the frame is `failed` (WARN, counted), never `persisted`.
import { SubagentContextError } from './errors.js';

export class NoRowWrittenError extends SubagentContextError {
  override readonly name = 'NoRowWrittenError';

  constructor(expected: number, changed: number) {
    super(
      'no_row_written',
      `the database accepted the write but changed ${changed} of ${expected} row${expected === 1 ? '' : 's'}: ` +
        'a trigger on task_session_subagents ignored it (RAISE(IGNORE) / a BEFORE trigger returning NULL), so no row was written',
    );
  }
}

/** Throws unless the statement changed exactly `expected` rows (`changed` as the driver reports it). */
export function requireRowsWritten(expected: number, changed: number | bigint | null | undefined): void {
  const n = Number(changed ?? 0);
  if (n !== expected) throw new NoRowWrittenError(expected, n);
}
