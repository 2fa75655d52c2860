// The report statements on SQLite (queries/sqlite/report_*.sql), bound per
// docs/timestamps.md: every instant in the fixed-width "utc9" form, plus bare-column bounds
// (:sinceFloor, since minus 23:59 to the second, ./text-floor.ts; :untilCeil, the UTC date two
// days after until) that let the indexes serve the window without ever excluding a row the exact
// comparison admits. Without a bound the window is '' … '~', between which every stored
// timestamp form lies. All statements run in one read transaction (one WAL snapshot), and
// synchronously, so no other work on this connection can interleave with it.
import type { Database } from 'better-sqlite3';
import {
  reportCards,
  reportFanOut,
  reportRowCounts,
  reportTokenDistribution,
  reportTokens,
  reportUsageLedger,
  reportUsageLedgerPresent,
  reportUsageLedgerSessions,
} from '../../generated/sqlite/index.js';
import { MAX_COLUMN_INSTANT_NS } from '../column-time.js';
import type { StoreContext } from '../dialect.js';
import { formatUtc9 } from '../instant.js';
import { buildReport } from '../report/build-report.js';
import type { ReportBounds, ReportReader } from '../report/queries.js';
import { toCardCounts, toFanOutRow, toRowCounts, toTokenBucketRow, toTokenGroupRow } from '../report/raw-rows.js';
import type { ReportOptions, SubagentContextReport } from '../report/types.js';
import { readSqliteKeys, sqliteHealthQueries } from './health.js';
import { inReadScope } from './transaction.js';
import { sqliteSinceFloor } from './text-floor.js';

const DAY_NS = 86_400n * 1_000_000_000n;
const NO_LOWER = '';
const NO_UPPER = '~'; // sorts after every digit, so after every stored timestamp text

/** The parameters every report statement shares. */
export function sqliteReportParams(b: ReportBounds) {
  const utc9 = (ns: bigint | null) => (ns === null ? null : formatUtc9(ns));
  const date = (ns: bigint) => formatUtc9(ns).slice(0, 10);
  return {
    since: b.sinceNs === null ? NO_LOWER : formatUtc9(b.sinceNs),
    sinceFloor: b.sinceNs === null ? NO_LOWER : sqliteSinceFloor(b.sinceNs),
    until: b.untilNs === null ? NO_UPPER : formatUtc9(b.untilNs),
    untilCeil: b.untilNs === null || b.untilNs + 2n * DAY_NS >= MAX_COLUMN_INSTANT_NS ? NO_UPPER : date(b.untilNs + 2n * DAY_NS),
    taskIds: b.taskIds === null ? null : JSON.stringify(b.taskIds),
    knownFrom: utc9(b.knownFromNs),
    captureSince: utc9(b.captureSinceNs),
    executionSince: utc9(b.executionSinceNs),
  };
}

export function sqliteReportReader(db: Database): ReportReader {
  const health = sqliteHealthQueries(db);
  return {
    probeTables: () => health.probeTables(),
    async read(plan) {
      // One read snapshot (./transaction.ts); the body writes nothing, so how it ends changes nothing.
      return inReadScope(db, () => {
        const keys = readSqliteKeys(db);
        const bounds = plan(keys);
        const p = sqliteReportParams(bounds);
        return {
          keys,
          bounds,
          rowCounts: toRowCounts(reportRowCounts.one(p, db)),
          tokens: reportTokens.many(p, db).map(toTokenGroupRow),
          distribution: reportTokenDistribution.many(p, db).map(toTokenBucketRow),
          fanOut: reportFanOut.many(p, db).map(toFanOutRow),
          cards: toCardCounts(reportCards.one(p, db)),
          // The ledger's tables may be missing (a store its migration has not reached): no ledger then.
          usageLedger:
            Number(reportUsageLedgerPresent.one({}, db).present) === 1
              ? { groups: reportUsageLedger.many(p, db), shares: reportUsageLedgerSessions.many(p, db) }
              : null,
        };
      });
    },
  };
}

export function sqliteReport(db: Database, ctx: StoreContext, options: ReportOptions | undefined): Promise<SubagentContextReport> {
  return buildReport(sqliteReportReader(db), ctx, options);
}
