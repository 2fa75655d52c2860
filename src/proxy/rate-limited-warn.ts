// WARN lines on stderr, at most one per interval: a database that is down for an hour must not
// flood the editor's agent log with one line per update. What was held back is counted and
// said on the next line that is printed.
export class RateLimitedWarn {
  private last = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  warn(text: string): void {
    const t = this.now();
    if (t - this.last < this.intervalMs) {
      this.suppressed++;
      return;
    }
    this.print(text, t);
  }

  /**
   * A change of state said once (the store cannot be reached, the writer exited): never held
   * back, or a WARN printed just before it would hide why nothing more is recorded.
   */
  always(text: string): void {
    this.print(text, this.now());
  }

  private print(text: string, t: number): void {
    this.last = t;
    const held = this.suppressed ? ` (${this.suppressed} more WARN line${this.suppressed === 1 ? '' : 's'} held back)` : '';
    this.suppressed = 0;
    this.write(`subagent-context proxy: WARN ${text.replace(/\s*\n\s*/g, ' ')}${held}\n`);
  }
}
