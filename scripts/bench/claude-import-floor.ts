// Child process: the floor of `import claude-code` on a tree — every line of every transcript
// read as the importer reads it (src/import/line-reader.ts: a buffer per file, complete lines) and
// JSON.parse'd, nothing else. Prints one JSON line: the lines, the bytes and the time of the
// reading alone (from listing the folder to the last line, without this process's start-up).
//   tsx scripts/bench/claude-import-floor.ts PROJECTS_DIR
import { readCompleteLines } from '../../src/import/line-reader.js';
import { transcriptsOf } from './lib/claude-code-tree.js';

export interface FloorMeasurement {
  lines: number;
  parsed: number;
  ms: number;
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: claude-import-floor.ts PROJECTS_DIR');
const start = process.hrtime.bigint();
const files = transcriptsOf(dir);
let lines = 0;
let parsed = 0;
for (const f of files)
  for await (const { text } of readCompleteLines(f, 0)) {
    lines++;
    // As the importer: a blank line is no line to parse, a malformed one is counted and skipped.
    if (text.trim() === '') continue;
    try {
      if (JSON.parse(text) !== null) parsed++;
    } catch {
      // counted as a line, like the importer's malformed lines
    }
  }
const ms = Number(process.hrtime.bigint() - start) / 1e6;
process.stdout.write(`${JSON.stringify({ lines, parsed, ms } satisfies FloorMeasurement)}\n`);
