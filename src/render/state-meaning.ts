// What each activation state (AC-24c) means, in plain words: one sentence per state that every
// human view prints beside the state's name (the terminal report, the HTML page, `health`).
// The report's caveats say the same at length, citing the criteria, for the JSON's readers.
import type { ActivationState } from '../activation-keys.js';

export const STATE_MEANING: Readonly<Record<ActivationState, string>> = {
  activated: 'fully activated',
  capture_only: 'capture works, but execution ids are not identities yet (the execution-id upgrade has not applied)',
  execution_only: 'the backfill has not succeeded yet: no coverage boundary',
  not_activated: 'not activated: no boundary, so no absence of a row is evidence',
};
