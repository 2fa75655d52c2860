// The three kandev_meta keys the package writes, each write-once (AC-24).
export const ACTIVATION_KEYS = {
  /** Sampled inside the backfill transaction, after its INSERT (AC-24 point 4). */
  captureSince: 'subagent_context_capture_since',
  /** created_at of the newest message the backfill predicate matched, or '' (AC-24f). */
  backfillThrough: 'subagent_context_backfill_through',
  /** When the AC-33 end state was observed to hold (AC-33b). */
  executionSince: 'subagent_context_execution_since',
} as const;

export type ActivationKeyName = (typeof ACTIVATION_KEYS)[keyof typeof ACTIVATION_KEYS];
