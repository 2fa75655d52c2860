// The longest delay setTimeout honours: 2^31 - 1 ms, about 24.8 days. Node fires a longer one
// after 1 ms, so a "very long" timeout taken from a user's setting would fire at once.
export const MAX_TIMER_MS = 2 ** 31 - 1;
