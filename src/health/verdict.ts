// The health verdict, in DESIGN §2's precedence:
//   not_activated > shortfall > nothing_since_activation > healthy.
// - not_activated: capture_since is absent, so there is no window and the comparison was not
//   run; the missing key is itself the signal (AC-28a).
// - shortfall: the shortfall anti-join was non-zero twice (AC-28b). Only this direction
//   alarms; excess and collisions never change the verdict (AC-28, revision 3).
// - nothing_since_activation: no row observed since capture_since. The strongest
//   divergence signal there is, and never "healthy" (AC-29, revision 4).
import type { HealthVerdict } from '../types.js';

export function decideVerdict(input: { captureSincePresent: boolean; confirmedShortfall: number | null; lastObservedAt: string | null }): HealthVerdict {
  if (!input.captureSincePresent) return 'not_activated';
  if ((input.confirmedShortfall ?? 0) > 0) return 'shortfall';
  if (input.lastObservedAt === null) return 'nothing_since_activation';
  return 'healthy';
}
