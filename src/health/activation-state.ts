// AC-24c: the four states of the two consumer-facing keys, decided by PRESENCE alone.
// A present key classifies whatever its value ('' or a legacy second-precision instant);
// backfill_through is deliberately not a dimension (AC-24d binds it to capture_since), and
// rows never decide a state (AC-24c: "SHALL NOT infer any of these states from rows").
import type { ActivationKeyValues, ActivationState } from '../activation-keys.js';

export function classifyActivationState(keys: ActivationKeyValues): ActivationState {
  const capture = keys.capture_since !== null;
  const execution = keys.execution_since !== null;
  if (capture) return execution ? 'activated' : 'capture_only';
  return execution ? 'execution_only' : 'not_activated';
}
