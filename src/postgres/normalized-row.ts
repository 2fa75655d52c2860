// toSubagentContextRow() for `subagent-context/postgres`: the one documented way from a raw row of
// the typed list statements to the row the store's listBySession returns (src/rows.ts does
// the work for both dialects). A file of its own so the entry's declarations name no
// driver's types (./reader.ts takes the driver's connection).
import type { IListSubagentContextsBySessionResult, IListSubagentContextsByTurnResult } from '../../generated/postgres/index.js';
import { toRow } from '../rows.js';
import type { SubagentContextRow } from '../types.js';

/**
 * The store's normalized row (what listBySession returns: metrics as numbers, or bigint beyond
 * 2^53; is_async as a boolean; timestamps as RFC3339 µs text) from a raw row of the typed
 * PostgreSQL list statements, which stay raw on purpose: node-postgres hands BIGINT over as decimal text.
 */
export function toSubagentContextRow(raw: IListSubagentContextsBySessionResult | IListSubagentContextsByTurnResult): SubagentContextRow {
  return toRow(raw);
}
