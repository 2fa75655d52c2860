// A one-line progress bar on stderr, redrawn in place, only when stderr is a terminal (a pipe
// or a log file gets nothing but the final summary). At most ten redraws a second.
export interface ProgressLine {
  update(done: number, total: number): void;
  end(): void;
}

const WIDTH = 30;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export function progressLine(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  if (!stream.isTTY) return { update() {}, end() {} };
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(share * WIDTH);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.round(share * 100)}% ${mb(done)} of ${mb(total)}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}
