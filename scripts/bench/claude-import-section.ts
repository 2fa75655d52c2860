// `import claude-code` throughput (issue 33 item 7): on synthetic transcript trees built from the
// recorded shapes (lib/claude-code-tree.ts), per tree and in the same run, the floor of reading
// and JSON-parsing the same lines as the importer reads them, the import into a fresh SQLite
// store, and ccusage on the same folder — MB/s each, each as a ratio to the floor; and the
// import's peak RSS across the trees (target: flat, ≤ 1.2× from the smallest tree to the largest).
// Rounds alternate the order of the three; figures are medians over the rounds, each ratio the
// median of the rounds' own ratios (the machine's drift cancels out of a round).
import { join } from 'node:path';
import type { Finding } from './findings.js';
import { ensureClaudeCodeTree, TREE_SIZES, type ClaudeCodeTree, type TreeSizeName } from './lib/claude-code-tree.js';
import { ccusageAvailable, importPostgres, measurePath, reimport, warmUp, type Path, type Run } from './claude-import-measure.js';
import { fmtInt, fmtRatio, median } from './stats.js';

/** Peak RSS of the import on the largest tree over the smallest's. */
const FLAT = 1.2;

interface TreeResult {
  tree: ClaudeCodeTree;
  runs: Record<Path, Run[]>;
  rounds: number;
  /** A second import with nothing new, after the rounds. */
  again: Run;
  /** The import into PostgreSQL, once, after the rounds (the smallest tree only). */
  postgres?: Run;
}

const mbps = (tree: ClaudeCodeTree, ms: number) => tree.transcriptBytes / 1e6 / (ms / 1000);
const rssMb = (kb: number) => `${fmtInt(kb / 1024)} MB`;
const peak = (runs: Run[]) => Math.max(...runs.map((r) => r.maxRssKb));
const sizeText = (tree: ClaudeCodeTree) => `${TREE_SIZES[tree.name] >= 1024 ? `${TREE_SIZES[tree.name] / 1024} GiB` : `${TREE_SIZES[tree.name]} MiB`}`;

/** Builds (or finds cached) the trees, so a --generate-only run leaves them ready. */
export function prepareClaudeTrees(cacheDir: string, sizes: readonly TreeSizeName[]): void {
  for (const s of sizes) ensureClaudeCodeTree(cacheDir, s);
}

async function measureTree(cacheDir: string, name: TreeSizeName, rounds: number, serverUrl: string | undefined): Promise<TreeResult> {
  const tree = ensureClaudeCodeTree(cacheDir, name);
  const paths: Path[] = ccusageAvailable() ? ['floor', 'import', 'ccusage'] : ['floor', 'import'];
  const runs: Record<Path, Run[]> = { floor: [], import: [], ccusage: [] };
  const dbFile = join(cacheDir, 'claude-code-import.db');
  await warmUp(tree);
  for (let r = 0; r < rounds; r++) {
    const order = paths.map((_, i) => paths[(i + r) % paths.length]);
    for (const path of order) {
      process.stderr.write(`bench: claude-code import, ${name}, round ${r + 1}/${rounds}: ${path} …\n`);
      runs[path].push(await measurePath(path, tree, dbFile));
    }
  }
  // The three must have read the same lines and the same usage, or the ratios compare different work.
  const [floor, imported, usage] = [runs.floor[0], runs.import[0], runs.ccusage[0]];
  if (imported.lines !== floor.lines) throw new Error(`the import read ${imported.lines} lines, the floor ${floor.lines}`);
  if (usage && usage.tokens !== imported.tokens) throw new Error(`ccusage summed ${usage.tokens} tokens, the import's ledger ${imported.tokens}`);
  process.stderr.write(`bench: claude-code import, ${name}: a second import …\n`);
  const again = await reimport(tree, dbFile);
  if (!serverUrl) return { tree, runs, rounds, again };
  process.stderr.write(`bench: claude-code import, ${name}: into PostgreSQL …\n`);
  const postgres = await importPostgres(tree, serverUrl);
  if (postgres.tokens !== imported.tokens || postgres.lines !== floor.lines)
    throw new Error(`PostgreSQL's ledger holds ${postgres.tokens} tokens, SQLite's ${imported.tokens}`);
  return { tree, runs, rounds, again, postgres };
}

function throughputFindings(t: TreeResult): Finding[] {
  const { tree, runs } = t;
  const floorMs = median(runs.floor.map((r) => r.ms));
  const floorText = `floor: read + JSON.parse every line as the importer reads it, ${mbps(tree, floorMs).toFixed(1)} MB/s (${(floorMs / 1000).toFixed(1)} s; peak RSS ${rssMb(peak(runs.floor))})`;
  const config = `${sizeText(tree)} tree (${(tree.transcriptBytes / 1e6).toFixed(0)} MB of transcripts: ${fmtInt(tree.sessions)} sessions, ${fmtInt(tree.transcripts)} transcripts, ${fmtInt(runs.floor[0].lines)} lines)`;
  const ratio = (path: Path) => median(runs[path].map((r, i) => runs.floor[i].ms / r.ms));
  const rounds = `median of ${t.rounds} round${t.rounds === 1 ? '' : 's'} (order rotated each round), each ratio the median of the rounds' own`;
  const importMs = median(runs.import.map((r) => r.ms));
  const findings: Finding[] = [
    {
      section: 'claude-code import',
      dialect: 'sqlite',
      config: `${config}, into a fresh store (WAL)`,
      measured: `import claude-code (the built CLI, --sqlite) ${mbps(tree, importMs).toFixed(1)} MB/s (${(importMs / 1000).toFixed(1)} s; peak RSS ${rssMb(peak(runs.import))})`,
      ceiling: floorText,
      figure: ratio('import'),
      figureText: fmtRatio(ratio('import')),
      target: null,
      detail: `MB/s = transcript bytes ÷ wall time; the import and ccusage timed from outside their process (start-up included), the floor inside its own (no start-up); ${rounds}; the ledger's tokens equal ccusage's (${fmtInt(runs.import[0].tokens ?? 0)})`,
    },
  ];
  if (t.postgres) {
    const pgRatio = floorMs / t.postgres.ms;
    findings.push({
      section: 'claude-code import',
      dialect: 'postgres',
      config: `${config}, into a fresh database (1 connection, fsync on)`,
      measured: `import claude-code (the built CLI, --postgres) ${mbps(tree, t.postgres.ms).toFixed(1)} MB/s (${(t.postgres.ms / 1000).toFixed(1)} s; the CLI's peak RSS ${rssMb(t.postgres.maxRssKb)})`,
      ceiling: floorText,
      figure: pgRatio,
      figureText: fmtRatio(pgRatio),
      target: null,
      detail: `one run after the SQLite rounds, over the floor's median; the smallest tree only (a transaction per transcript, each a round trip per statement); the ledger's tokens equal SQLite's`,
    });
  }
  if (runs.ccusage.length) {
    const usageMs = median(runs.ccusage.map((r) => r.ms));
    findings.push({
      section: 'claude-code import',
      dialect: 'sqlite',
      config: `${config}, the peer on the same folder`,
      measured: `ccusage session --offline --json (19, under Bun) ${mbps(tree, usageMs).toFixed(1)} MB/s (${(usageMs / 1000).toFixed(1)} s; peak RSS ${rssMb(peak(runs.ccusage))})`,
      ceiling: floorText,
      figure: ratio('ccusage'),
      figureText: fmtRatio(ratio('ccusage')),
      target: null,
      detail: `the import took ${fmtRatio(importMs / usageMs)} ccusage's time; ccusage writes nothing and skips most lines before parsing them, the import parses every line and writes a store`,
    });
  }
  return findings;
}

function memoryFindings(results: TreeResult[]): Finding[] {
  const first = results[0];
  const last = results.at(-1)!;
  const figure = peak(last.runs.import) / peak(first.runs.import);
  const across = (path: Path) => results.map((t) => `${sizeText(t.tree)}: ${rssMb(peak(t.runs[path]))}`).join(' · ');
  const again = last.again.maxRssKb / first.again.maxRssKb;
  const fresh: Finding = {
    section: 'claude-code import',
    dialect: 'sqlite',
    config: `peak RSS of import claude-code as the tree grows (${results.map((t) => sizeText(t.tree)).join(', ')})`,
    measured: `import peak RSS ${across('import')}`,
    ceiling: `the ${sizeText(first.tree)} tree's`,
    figure,
    figureText: fmtRatio(figure),
    target: { kind: 'at-most', value: FLAT, text: `≤ ${FLAT}× (flat)` },
    detail: `the whole import process (/usr/bin/time %M, max over the rounds); the floor's ${across('floor')}${last.runs.ccusage.length ? `; ccusage's ${across('ccusage')}` : ''}`,
  };
  return [
    fresh,
    {
      section: 'claude-code import',
      dialect: 'sqlite',
      config: `peak RSS of a second import claude-code, nothing new to read (${results.map((t) => sizeText(t.tree)).join(', ')})`,
      measured: `second import ${results.map((t) => `${sizeText(t.tree)}: ${(t.again.ms / 1000).toFixed(1)} s, ${rssMb(t.again.maxRssKb)}`).join(' · ')}`,
      ceiling: `the ${sizeText(first.tree)} tree's`,
      figure: again,
      figureText: fmtRatio(again),
      target: null,
      detail: `every transcript's progress row is read at once (import_read_progress.sql: one row per transcript file, ~0.5 KB of heap each): memory follows the number of transcripts (${fmtInt(first.tree.transcripts)} and ${fmtInt(last.tree.transcripts)}), not their bytes`,
    },
  ];
}

/** The section's findings: throughput per tree, and the import's memory across the trees (two or more). */
export async function claudeImportSection(cacheDir: string, sizes: readonly TreeSizeName[], runs: number, serverUrl?: string): Promise<Finding[]> {
  const results: TreeResult[] = [];
  const ordered = [...sizes].sort((a, b) => TREE_SIZES[a] - TREE_SIZES[b]);
  // Up to three rounds: a 1 GiB round is about half a minute on a shared 2-core machine.
  for (const [i, s] of ordered.entries()) results.push(await measureTree(cacheDir, s, Math.min(runs, 3), i === 0 ? serverUrl : undefined));
  return [...results.flatMap(throughputFindings), ...(results.length > 1 ? memoryFindings(results) : [])];
}
