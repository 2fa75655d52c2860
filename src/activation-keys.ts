// The three kandev_meta keys the package writes, each write-once (AC-24), and the one reading
// of them that health and the report share (read_activation_keys.sql).
export const ACTIVATION_KEYS = {
  /** Sampled inside the backfill transaction, after its INSERT (AC-24 point 4). */
  captureSince: 'subagent_context_capture_since',
  /** created_at of the newest message the backfill predicate matched, or '' (AC-24f). */
  backfillThrough: 'subagent_context_backfill_through',
  /** When the AC-33 end state was observed to hold (AC-33b). */
  executionSince: 'subagent_context_execution_since',
} as const;

export type ActivationKeyName = (typeof ACTIVATION_KEYS)[keyof typeof ACTIVATION_KEYS];

/** The three keys' values as read (the key names without their subagent_context_ prefix): verbatim, null when absent. */
export interface ActivationKeyValues {
  capture_since: string | null;
  backfill_through: string | null;
  execution_since: string | null;
}

/** AC-24c's four states, decided by which keys are present (src/health/activation-state.ts). */
export type ActivationState = 'activated' | 'capture_only' | 'execution_only' | 'not_activated';

/** read_activation_keys.sql's parameters: the three key names it looks up. */
export const ACTIVATION_KEY_PARAMS = {
  captureSinceKey: ACTIVATION_KEYS.captureSince,
  backfillThroughKey: ACTIVATION_KEYS.backfillThrough,
  executionSinceKey: ACTIVATION_KEYS.executionSince,
} as const;

/** The three keys as HealthReport['keys'] and the report carry them: verbatim, null when absent. */
export interface ActivationKeyValues {
  capture_since: string | null;
  backfill_through: string | null;
  execution_since: string | null;
}

/** read_activation_keys.sql's row (either dialect; `@returns one`, a NULL per absent key) as the keys. */
export function toActivationKeys(row: Partial<ActivationKeyValues>): ActivationKeyValues {
  return { capture_since: row.capture_since ?? null, backfill_through: row.backfill_through ?? null, execution_since: row.execution_since ?? null };
}
