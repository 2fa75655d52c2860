// A copy of the relayed byte stream, cut into complete ndjson lines for the tee. The relay
// writes every chunk on unchanged BEFORE handing it here; this only reads it. A line split
// across chunks is reassembled from its pieces; a line longer than `maxLineBytes` is never
// held whole (its pieces are discarded until its newline, and it is counted), so one huge
// message cannot grow the proxy's memory. `wanted` is a cheap byte test that picks the lines
// worth parsing at all, so the relay path never runs JSON.parse.
const NEWLINE = 0x0a;

export interface LineTapOptions {
  maxLineBytes: number;
  /** Lines that pass are handed to onLine; the others are dropped uncounted. */
  wanted(line: Buffer): boolean;
  /** Receives a line the tap owns (a copy, never a view of a relayed chunk). */
  onLine(line: Buffer): void;
  onOversize(): void;
}

export class LineTap {
  private pieces: Buffer[] = [];
  private pending = 0; // bytes in pieces
  private skipping = false; // inside an oversize line: discard until its newline

  constructor(private readonly options: LineTapOptions) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      if (this.pieces.length === 0 && !this.skipping) this.wholeLine(chunk.subarray(start, nl));
      else {
        this.take(chunk, start, nl);
        this.finishLine();
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  /** The common case: a line inside one chunk is tested as a view and copied only if wanted. */
  private wholeLine(view: Buffer): void {
    if (view.length === 0) return;
    if (view.length > this.options.maxLineBytes) return this.options.onOversize();
    if (this.options.wanted(view)) this.options.onLine(Buffer.from(view));
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (this.skipping || start === end) return;
    if (this.pending + (end - start) > this.options.maxLineBytes) {
      this.skipping = true;
      this.pieces = [];
      this.pending = 0;
      this.options.onOversize();
      return;
    }
    // Copied: the line outlives the chunk, and a view would pin the whole chunk's memory.
    this.pieces.push(Buffer.from(chunk.subarray(start, end)));
    this.pending += end - start;
  }

  private finishLine(): void {
    const { pieces } = this;
    this.pieces = [];
    this.pending = 0;
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    if (pieces.length === 0) return;
    const line = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
    if (this.options.wanted(line)) this.options.onLine(line);
  }
}
