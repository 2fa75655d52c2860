// The SQLite reads a host calls (listBySession, listByTurn): generated statements, rows
// converted to the public shape by src/rows.ts.
import type { Database } from 'better-sqlite3';
import {
  listSubagentContextsBySession,
  listSubagentContextsByTurn,
  type IListSubagentContextsBySessionResult,
  type IListSubagentContextsByTurnResult,
} from '../../generated/sqlite/index.js';
import type { ReaderAdapter } from '../dialect.js';
import type { SubagentContextRow } from '../types.js';
import { toRow, type RawSubagentRow } from '../rows.js';

export function createSqliteReader(db: Database): ReaderAdapter {
  return {
    async listBySession(sessionId) {
      return listSubagentContextsBySession.all({ sessionId }, db).map((r) => toRow(r as RawSubagentRow));
    },
    async listByTurn(sessionId, turnId) {
      return listSubagentContextsByTurn.all({ sessionId, turnId }, db).map((r) => toRow(r as RawSubagentRow));
    },
  };
}

/**
 * The store's normalized row (what listBySession returns: metrics as numbers, or bigint beyond
 * 2^53; is_async as a boolean; timestamps as RFC3339 µs text) from a raw row of the typed
 * SQLite list statements, which stay raw on purpose: SQLite integers arrive as bigint (`safeIntegers`).
 */
export function toSubagentContextRow(raw: IListSubagentContextsBySessionResult | IListSubagentContextsByTurnResult): SubagentContextRow {
  return toRow(raw);
}
