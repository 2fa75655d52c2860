// The names runMigrations() reports its steps under and logs failures with (AC-20). They are
// a user-facing contract (docs/migrations.md lists them): an operator greps a WARN for them
// and a host may branch on MigrationReport.steps. Keep them stable.
export const MIGRATION_STEP = {
  checkDatabaseVersion: 'check_database_version', // reported only when it fails: the engine is too old
  checkHostTables: 'check_host_tables', // reported only when it fails: not a host's database
  ensureKandevMeta: 'ensure_kandev_meta',
  createSubagentTable: 'create_subagent_table',
  upgradePreAmendmentTable: 'upgrade_pre_amendment_table',
  recordExecutionSince: 'record_execution_since',
  addSubagentColumns: 'add_subagent_columns', // a nullable column of the fresh DDL the live table lacks
  widenMetricColumns: 'widen_metric_columns', // PostgreSQL only
  ensureSubagentIndexes: 'ensure_subagent_indexes',
  ensureJsonHelpers: 'ensure_json_helpers', // PostgreSQL only
  ensureUsageLedger: 'ensure_usage_ledger', // the usage ledger's tables (issue 33)
  backfillSubagentContexts: 'backfill_subagent_contexts',
} as const;

export type MigrationStepName = (typeof MIGRATION_STEP)[keyof typeof MIGRATION_STEP];
