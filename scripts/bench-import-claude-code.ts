// Import throughput of `import claude-code` on a synthetic transcript tree built from the
// recorded shapes (recordings/claude-code, copied with fresh session and message ids until
// the tree reaches --mb), against the floor of reading and JSON-parsing the same lines, and
// against ccusage (--offline, under Bun) on the same files, in the same run. Each measurement
// runs in its own process, so its peak RSS is its own.
// Usage: tsx scripts/bench-import-claude-code.ts [--mb 200]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const RECORDED = join(ROOT, 'recordings', 'claude-code', 'projects');
const { values } = parseArgs({
  options: { mb: { type: 'string', default: '200' }, child: { type: 'string' }, tree: { type: 'string' }, db: { type: 'string' } },
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesUnder(join(dir, n)) : [join(dir, n)]));
}

async function child(kind: string, tree: string, db: string): Promise<void> {
  const start = performance.now();
  let lines = 0;
  if (kind === 'floor') {
    const { readCompleteLines } = await import('../src/import/line-reader.js');
    for (const f of filesUnder(tree).filter((f) => f.endsWith('.jsonl')))
      for await (const { text } of readCompleteLines(f, 0)) {
        JSON.parse(text);
        lines++;
      }
  } else {
    const { openSqliteImportStore } = await import('../src/import/sqlite-import-store.js');
    const { importClaudeCode } = await import('../src/import/claude-code/import-claude-code.js');
    const { createWallClock } = await import('../src/instant.js');
    const logger = { warn: () => {} };
    const clock = createWallClock();
    const store = openSqliteImportStore(db, { logger, clock });
    await store.prepare();
    lines = (await importClaudeCode({ from: tree, store, logger, clock })).lines;
    await store.close();
  }
  console.log(JSON.stringify({ ms: performance.now() - start, lines, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
}

function build(mb: number): string {
  const tree = join(ROOT, '.bench-cache', `claude-import-${mb}mb`);
  if (existsSync(join(tree, 'DONE'))) return tree;
  rmSync(tree, { recursive: true, force: true });
  const [project] = readdirSync(RECORDED);
  const files = filesUnder(join(RECORDED, project));
  const sessions = [...new Set(files.map((f) => f.slice(join(RECORDED, project).length + 1, join(RECORDED, project).length + 37)))];
  let bytes = 0;
  for (let copy = 0; bytes < mb * 1e6; copy++) {
    const dir = join(tree, 'projects', `${project}-${copy % 50}`);
    for (const f of files) {
      let text = readFileSync(f, 'utf8');
      let to = f.replace(join(RECORDED, project), dir);
      for (const [i, s] of sessions.entries()) {
        const fresh = `${s.slice(0, 24)}${copy.toString(16).padStart(8, '0')}${i.toString(16).padStart(4, '0')}`;
        text = text.replaceAll(s, fresh);
        to = to.replaceAll(s, fresh);
      }
      text = text.replace(/"(msg|req)_([0-9a-f]+)_/g, (_m, kind: string, tag: string) => `"${kind}_${tag}${copy.toString(16)}_`);
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(to, text);
      bytes += Buffer.byteLength(text);
    }
  }
  writeFileSync(join(tree, 'DONE'), '');
  return tree;
}

if (values.child) {
  await child(values.child, values.tree!, values.db!);
} else {
  const mb = Number(values.mb);
  const tree = build(mb);
  const size = filesUnder(join(tree, 'projects')).reduce((a, f) => a + statSync(f).size, 0) / 1e6;
  const db = join(tree, 'import.db');
  const run = (kind: string) => {
    rmSync(db, { force: true });
    const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', kind, '--tree', join(tree, 'projects'), '--db', db], {
      encoding: 'utf8',
    });
    return JSON.parse(out.trim().split('\n').pop()!) as { ms: number; lines: number; maxRssMb: number };
  };
  const floor = run('floor');
  const imported = run('import');
  const configDir = tree; // ccusage reads $CLAUDE_CONFIG_DIR/projects
  const start = performance.now();
  const usage = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%M',
      join(ROOT, 'node_modules', '@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun'),
      join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js'),
      'session',
      '--offline',
      '--json',
    ],
    {
      env: { ...process.env, CLAUDE_CONFIG_DIR: configDir, NO_COLOR: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    },
  );
  const ccusageMs = performance.now() - start;
  const ccusageRss = Number(usage.stderr.trim().split('\n').pop()) / 1024;
  const row = (name: string, ms: number, rss: number | null) =>
    `${name.padEnd(34)} ${(size / (ms / 1000)).toFixed(1).padStart(8)} MB/s ${(ms / 1000).toFixed(2).padStart(8)} s ${rss === null ? '' : `${rss.toFixed(0).padStart(6)} MB peak RSS`}`;
  console.log(`tree: ${size.toFixed(0)} MB, ${floor.lines} lines`);
  console.log(row('floor: read + JSON.parse every line', floor.ms, floor.maxRssMb));
  console.log(row('import claude-code (SQLite)', imported.ms, imported.maxRssMb));
  console.log(row('ccusage session --offline (Bun)', ccusageMs, Number.isFinite(ccusageRss) ? ccusageRss : null));
}
