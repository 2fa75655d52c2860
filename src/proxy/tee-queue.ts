// The bounded queue between the relay and the writer. The relay only ever appends (O(1), never
// waits); the writer takes everything queued in one batch when it is ready for more. When the
// writer falls behind (a slow disk, a database that is down) and the queue is full, the OLDEST
// line is dropped and counted: the recognizer accumulates each subagent's fields, so a tool
// call's latest update carries everything learned before it, and keeping the newest lines keeps
// the most information per byte. Bounded by both line count and bytes.
export interface TeeLine {
  /** 0: client → agent, 1: agent → client. */
  readonly direction: 0 | 1;
  readonly bytes: Uint8Array;
}

export class TeeQueue {
  private items: TeeLine[] = [];
  private head = 0;
  private bytes = 0;
  dropped = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(line: TeeLine): void {
    this.items.push(line);
    this.bytes += line.bytes.length;
    while (this.length > this.maxLines || (this.bytes > this.maxBytes && this.length > 1)) {
      this.bytes -= this.items[this.head].bytes.length;
      this.head++;
      this.dropped++;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) this.compact();
  }

  /** Up to `max` lines, oldest first. */
  take(max: number): TeeLine[] {
    if (this.length <= max) return this.takeAll();
    const batch = this.items.slice(this.head, this.head + max);
    this.head += max;
    for (const line of batch) this.bytes -= line.bytes.length;
    if (this.head > 1024 && this.head * 2 > this.items.length) this.compact();
    return batch;
  }

  /** Everything queued, oldest first; the queue is empty afterwards. */
  takeAll(): TeeLine[] {
    const batch = this.head === 0 ? this.items : this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    this.bytes = 0;
    return batch;
  }

  private compact(): void {
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}
