// The SQLite reads a host calls (listBySession, listByTurn): generated statements, rows
// converted to the public shape by src/rows.ts.
import type { Database } from 'better-sqlite3';
import { listSubagentContextsBySession, listSubagentContextsByTurn } from '../../generated/sqlite/index.js';
import type { ReaderAdapter } from '../dialect.js';
import { toRow, type RawSubagentRow } from '../rows.js';

export function createSqliteReader(db: Database): ReaderAdapter {
  return {
    async listBySession(sessionId) {
      return listSubagentContextsBySession.many({ sessionId }, db).map((r) => toRow(r as RawSubagentRow));
    },
    async listByTurn(sessionId, turnId) {
      return listSubagentContextsByTurn.many({ sessionId, turnId }, db).map((r) => toRow(r as RawSubagentRow));
    },
  };
}
