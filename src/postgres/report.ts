// The report statements on PostgreSQL (queries/postgres/report_*.sql), bound per
// docs/timestamps.md: every instant rounded UP to the next whole microsecond and sent as
// TIMESTAMP text with no offset, so `col >= bound` and `col < bound` are exact for
// microsecond columns and no result depends on the session TimeZone (pinned to UTC all the same,
// for a host whose created_at is timestamptz: below). Without a bound the
// window is '-infinity' … 'infinity'. (SQLite's statements also take :sinceFloor/:untilCeil,
// their index bounds; these need none.)
// All statements run on one connection in one REPEATABLE READ, READ ONLY transaction, so
// every figure comes from the same snapshot (and a hot standby can serve it).
import type pg from 'pg';
import {
  reportCards,
  reportFanOut,
  reportRowCounts,
  reportTokenDistribution,
  reportTokens,
  reportUsageLedger,
  reportUsageLedgerPresent,
  reportUsageLedgerSessions,
  setLocalTimeSettings,
} from '../../generated/postgres/index.js';
import type { StoreContext } from '../dialect.js';
import { ceilToMicros, formatMicros } from '../instant.js';
import { buildReport } from '../report/build-report.js';
import type { ReportBounds, ReportReader } from '../report/queries.js';
import { toCardCounts, toFanOutRow, toRowCounts, toTokenBucketRow, toTokenGroupRow } from '../report/raw-rows.js';
import type { ReportOptions, SubagentContextReport } from '../report/types.js';
import { postgresHealthQueries, readPostgresKeys } from './health.js';
import { withTransaction } from './transaction.js';

/** The parameters every report statement shares. */
export function postgresReportParams(b: ReportBounds) {
  const bound = (ns: bigint | null) => (ns === null ? null : formatMicros(ceilToMicros(ns)));
  const since = bound(b.sinceNs) ?? '-infinity';
  const until = bound(b.untilNs) ?? 'infinity';
  return {
    since,
    until,
    taskIds: b.taskIds === null ? null : JSON.stringify(b.taskIds),
    knownFrom: bound(b.knownFromNs),
    captureSince: bound(b.captureSinceNs),
    executionSince: bound(b.executionSinceNs),
  };
}

/** One snapshot on one pooled client: every figure from the same committed state, servable by a hot standby. */
const inReadSnapshot = <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
  withTransaction(pool, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');

export function postgresReportReader(pool: pg.Pool): ReportReader {
  const health = postgresHealthQueries(pool);
  return {
    probeTables: () => health.probeTables(),
    read: (plan) =>
      inReadSnapshot(pool, async (client) => {
        // A timestamptz created_at compared with the window's TIMESTAMP bounds is converted in the
        // session's TimeZone: pinned to UTC (and DateStyle to ISO) for this transaction, as the
        // backfill and health pin them (set_local_time_settings.sql; a review, 2026-12).
        await setLocalTimeSettings.one(undefined, client);
        const keys = await readPostgresKeys(client);
        const bounds = plan(keys);
        const p = postgresReportParams(bounds);
        // Sequential on purpose: one client runs one statement at a time.
        const counts = await reportRowCounts.one(p, client);
        const tokens = await reportTokens.many(p, client);
        const distribution = await reportTokenDistribution.many(p, client);
        const fanOut = await reportFanOut.many(p, client);
        const cards = await reportCards.one(p, client);
        // Probed first: a statement on a missing table (or one this role may not read) would end the snapshot's transaction.
        const ledger = (await reportUsageLedgerPresent.one(undefined, client)).present
          ? { groups: await reportUsageLedger.many(p, client), shares: await reportUsageLedgerSessions.many(p, client) }
          : null;
        return {
          keys,
          bounds,
          rowCounts: toRowCounts(counts),
          tokens: tokens.map(toTokenGroupRow),
          distribution: distribution.map(toTokenBucketRow),
          fanOut: fanOut.map(toFanOutRow),
          cards: toCardCounts(cards),
          usageLedger: ledger,
        };
      }),
  };
}

export function postgresReport(pool: pg.Pool, ctx: StoreContext, options: ReportOptions | undefined): Promise<SubagentContextReport> {
  return buildReport(postgresReportReader(pool), ctx, options);
}
