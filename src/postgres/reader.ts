// The PostgreSQL reads a host calls (listBySession, listByTurn): generated typed functions on the
// pool, rows converted to the public shape by src/rows.ts.
import type pg from 'pg';
import { listSubagentContextsBySession, listSubagentContextsByTurn } from '../../generated/postgres/index.js';
import type { ReaderAdapter } from '../dialect.js';
import { toRow } from '../rows.js';

export function createPostgresReader(pool: pg.Pool): ReaderAdapter {
  return {
    async listBySession(sessionId) {
      return (await listSubagentContextsBySession.many({ sessionId }, pool)).map(toRow);
    },
    async listByTurn(sessionId, turnId) {
      return (await listSubagentContextsByTurn.many({ sessionId, turnId }, pool)).map(toRow);
    },
  };
}
