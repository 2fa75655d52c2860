// The benchmarks' progress bar: one line on stderr while a synthetic store is generated.

/** A one-line progress bar on stderr (a line per 10% when stderr is not a terminal). */
export function progressBar(label: string, total: number): { update(done: number): void; finish(note?: string): void } {
  const started = Date.now();
  let lastDecile = -1;
  let lastDraw = 0;
  const line = (done: number) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${secs} s`;
  };
  return {
    update(done) {
      if (process.stderr.isTTY) {
        if (Date.now() - lastDraw < 200) return;
        lastDraw = Date.now();
        process.stderr.write(`\r${line(done)}`);
      } else {
        const decile = Math.floor((done / total) * 10);
        if (decile !== lastDecile && decile < 10) {
          lastDecile = decile;
          process.stderr.write(`${line(done)}\n`);
        }
      }
    },
    finish(note = '') {
      process.stderr.write(`${process.stderr.isTTY ? '\r' : ''}${line(total)}${note ? ` ${note}` : ''}\n`);
    },
  };
}
