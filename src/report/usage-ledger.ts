// The usage ledger's figures for the report (queries/<dialect>/report_usage_ledger.sql): tokens
// per subagent type and model over every run, and the parents' own, per model. Empty when the
// store has no ledger figures (nothing imported, or a store the ledger's migration has not
// reached: a read-only report never creates tables), so the report says nothing about it.
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { reportUsageLedger as postgresUsageLedger } from '../../generated/postgres/index.js';
import { reportUsageLedger as sqliteUsageLedger } from '../../generated/sqlite/index.js';

export interface UsageLedgerRow {
  side: 'subagent' | 'parent';
  /** The subagent row's type; null for the parent side or a type never reported. */
  subagentType: string | null;
  model: string;
  /** Subagent runs (or parent sessions) with figures for this model. */
  runs: number;
  requests: number | null;
  tokens: number;
  /** Ledger rows missing one of the four figures: the sum is a lower bound when this is not 0. */
  unreported: number;
}

function toRow(r: {
  side: string;
  subagentType: string | null;
  model: string;
  runs: unknown;
  requests: unknown;
  tokens: unknown;
  unreported: unknown;
}): UsageLedgerRow {
  return {
    side: r.side === 'parent' ? 'parent' : 'subagent',
    subagentType: r.subagentType,
    model: r.model,
    runs: Number(r.runs),
    requests: r.requests === null ? null : Number(r.requests),
    tokens: Number(r.tokens),
    unreported: Number(r.unreported),
  };
}

const absentTable = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL: undefined_table; SQLite: "no such table" is SQLITE_ERROR.
  return code === '42P01' || (code === 'SQLITE_ERROR' && /no such table/.test(String((err as Error).message)));
};

export async function readSqliteUsageLedger(db: Database): Promise<UsageLedgerRow[]> {
  try {
    return sqliteUsageLedger.all({}, db).map(toRow);
  } catch (err) {
    if (absentTable(err)) return [];
    throw err;
  }
}

export async function readPostgresUsageLedger(pool: pg.Pool): Promise<UsageLedgerRow[]> {
  try {
    return (await postgresUsageLedger.run(undefined, pool)).map(toRow);
  } catch (err) {
    if (absentTable(err)) return [];
    throw err;
  }
}
