// Sums the usage of a transcript's responses per model, each response once. Claude Code writes
// one response as several lines (one per content block), each repeating the message id and the
// usage; older versions write output_tokens 1 on all but the last. The rule: a response counts
// once, with the LARGEST value each figure reached on any of its lines (the last line's, in
// both writing styles). Lines of one response are consecutive; a response whose id comes back
// after another one began is already counted and skipped (among the last SEEN_IDS responses of
// the run: a bound on memory, far beyond any gap seen in real transcripts). The tally's `last` response carries
// over between runs (the progress row), so lines of it appended later add only the difference.
// A figure no line reported stays null (the ledger's NULL), never 0. Each line's figure is a
// safe integer (anything else is no figure), and the sums are bigints: a transcript's sum can
// pass 2^53, where a number would silently lose its last digits.

export interface UsageFigures {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

export const FIGURES = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/** What is added to one ledger row: the responses first counted, and the figures' growth. */
export interface UsageDelta {
  requests: number;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cache_read_input_tokens: bigint | null;
  cache_creation_input_tokens: bigint | null;
}

/** The response counted last, as the progress row keeps it. */
export interface LastResponse extends UsageFigures {
  messageId: string;
  model: string;
}

export const UNKNOWN_MODEL = 'unknown';
const SEEN_IDS = 4096;

const emptyDelta = (): UsageDelta => ({
  requests: 0,
  input_tokens: null,
  output_tokens: null,
  cache_read_input_tokens: null,
  cache_creation_input_tokens: null,
});

function figure(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export function usageFigures(usage: unknown): UsageFigures {
  const u = (usage !== null && typeof usage === 'object' ? usage : {}) as Record<string, unknown>;
  return {
    input_tokens: figure(u.input_tokens),
    output_tokens: figure(u.output_tokens),
    cache_read_input_tokens: figure(u.cache_read_input_tokens),
    cache_creation_input_tokens: figure(u.cache_creation_input_tokens),
  };
}

export class UsageTally {
  private readonly deltas = new Map<string, UsageDelta>();
  /** Ids of this run's responses before `last` (a repeat of one is skipped). */
  private readonly seen = new Set<string>();

  constructor(private last: LastResponse | null) {}

  /** One line of a response: its message id, model and usage. */
  add(messageId: string, model: string | undefined, usage: unknown): void {
    const figures = usageFigures(usage);
    const last = this.last;
    if (last && last.messageId === messageId) {
      const delta = this.delta(last.model);
      for (const f of FIGURES) {
        const now = figures[f];
        if (now === null || (last[f] !== null && now <= last[f])) continue;
        delta[f] = (delta[f] ?? 0n) + BigInt(now - (last[f] ?? 0));
        last[f] = now;
      }
      return;
    }
    if (this.seen.has(messageId)) return;
    if (last) {
      this.seen.add(last.messageId);
      if (this.seen.size > SEEN_IDS) this.seen.delete(this.seen.values().next().value as string);
    }
    const name = model ?? UNKNOWN_MODEL;
    const delta = this.delta(name);
    delta.requests += 1;
    for (const f of FIGURES) {
      const value = figures[f];
      if (value !== null) delta[f] = (delta[f] ?? 0n) + BigInt(value);
    }
    this.last = { messageId, model: name, ...figures };
  }

  private delta(model: string): UsageDelta {
    let delta = this.deltas.get(model);
    if (!delta) this.deltas.set(model, (delta = emptyDelta()));
    return delta;
  }

  /** What this run adds, per model (responses counted and figures grown), and empties it; `last` stays. */
  drain(): Map<string, UsageDelta> {
    const out = new Map([...this.deltas].filter(([, d]) => d.requests > 0 || FIGURES.some((f) => d[f] !== null)));
    this.deltas.clear();
    return out;
  }

  lastResponse(): LastResponse | null {
    return this.last && { ...this.last };
  }
}
