// Package entry: `subagent-context`.
export { createSqliteStore } from './sqlite/store.js';
export { createPostgresStore } from './postgres/store.js';
export { TERMINAL_TOOL_STATUSES, isTerminalToolStatus, type TerminalToolStatus } from './terminal-tool-status.js';
export { ACTIVATION_KEYS, type ActivationKeyName } from './activation-keys.js';
export { MIGRATION_STEP, type MigrationStepName } from './migrations/step-names.js';
export { SubagentContextError } from './errors.js';
export { HealthCheckError, type HealthCheckErrorCode } from './health/errors.js';
export type {
  ActivationState,
  HealthReport,
  HealthVerdict,
  Logger,
  MigrationReport,
  MigrationStep,
  RecordOptions,
  RecordOutcome,
  StoreOptions,
  SubagentContextRow,
  SubagentContextStore,
  SubagentFrame,
  SubagentTaskPayload,
  WriterCounters,
} from './types.js';
