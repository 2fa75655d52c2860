// Package entry: `subagent-context`: the dialect-neutral types and constants and both
// factories. Its declarations name no driver type (the factories take the structural
// SqliteConnection / PostgresPool), so a host compiles with one driver's types or neither;
// each dialect's typed statements are in `subagent-context/sqlite` and `subagent-context/postgres`.
// formatReport() and renderReportHtml() turn store.report()'s result into what the CLI prints.
export { createSqliteStore } from './sqlite/store.js';
export { createPostgresStore } from './postgres/store.js';
export type { SqliteConnection } from './sqlite/connection.js';
export type { PostgresPool } from './postgres/connection.js';
export { TERMINAL_TOOL_STATUSES, isTerminalToolStatus, type TerminalToolStatus } from './terminal-tool-status.js';
export { ACTIVATION_KEYS, type ActivationKeyName } from './activation-keys.js';
export { MIGRATION_STEP, type MigrationStepName } from './migrations/step-names.js';
export { SubagentContextError } from './errors.js';
export { HealthCheckError, type HealthCheckErrorCode } from './health/errors.js';
export { HostIndexError, type HostIndexErrorCode } from './host-index/host-index.js';
export type { ReportErrorCode } from './report/errors.js';
export { formatReport, type ReportViewOptions } from './render/format-report.js';
export { renderReportHtml, type ReportPageOptions } from './render/html-page.js';
export type { FanOutBucket, ReportOptions, SubagentContextReport, TokenBucket, TokenFigures, TokenGroup } from './report/types.js';
export type {
  LedgerSum,
  UsageLedgerCard,
  UsageLedgerFigures,
  UsageLedgerGroup,
  UsageLedgerParentGroup,
  UsageLedgerReport,
  UsageLedgerSession,
  UsageLedgerShare,
} from './report/usage-ledger.js';
export type {
  ActivationState,
  HealthReport,
  HostIndexReport,
  HealthVerdict,
  Logger,
  MigrationReport,
  MigrationOptions,
  BackfillProgress,
  BackfillChunkOptions,
  MigrationStep,
  RecordOptions,
  RecordOutcome,
  StoreOptions,
  SubagentContextRow,
  SubagentContextStore,
  SubagentFrame,
  SubagentTaskPayload,
  SubagentUsage,
  WriterCounters,
} from './types.js';
