// The PostgreSQL reads a host calls (listBySession, listByTurn): generated typed functions on the
// pool, rows converted to the public shape by src/rows.ts.
import type pg from 'pg';
import {
  listSubagentContextsBySession,
  listSubagentContextsByTurn,
  type IListSubagentContextsBySessionResult,
  type IListSubagentContextsByTurnResult,
} from '../../generated/postgres/index.js';
import type { ReaderAdapter } from '../dialect.js';
import type { SubagentContextRow } from '../types.js';
import { toRow } from '../rows.js';

export function createPostgresReader(pool: pg.Pool): ReaderAdapter {
  return {
    async listBySession(sessionId) {
      return (await listSubagentContextsBySession.run({ sessionId }, pool)).map(toRow);
    },
    async listByTurn(sessionId, turnId) {
      return (await listSubagentContextsByTurn.run({ sessionId, turnId }, pool)).map(toRow);
    },
  };
}

/**
 * The store's normalized row (what listBySession returns: metrics as numbers, or bigint beyond
 * 2^53; is_async as a boolean; timestamps as RFC3339 µs text) from a raw row of the typed
 * PostgreSQL list statements, which stay raw on purpose: node-postgres hands BIGINT over as decimal text.
 */
export function toSubagentContextRow(raw: IListSubagentContextsBySessionResult | IListSubagentContextsByTurnResult): SubagentContextRow {
  return toRow(raw);
}
