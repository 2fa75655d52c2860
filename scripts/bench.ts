// `npm run bench [-- options]`: the package's throughput and cost, each figure a ratio
// against a ceiling measured in the same run on the same data (BENCHMARKS.md explains the
// method). Sections: live (recordFrame vs the raw prepared upsert), batch (recordFrames vs
// autocommit), backfill / replay / health (on cached synthetic stores, one child process per
// store). A full run writes BENCHMARKS.md; --quick uses small stores and few runs, for
// checking the harness, and prints only (add --write to record it anyway).
//
//   --quick                 small stores, few runs
//   --section a,b           any of live,batch,backfill,hostile,replay,health,report,acp,proxy,import (default: all);
//                           hostile = the backfill's memory on one 50 MB metadata document;
//                           import = `import claude-code` on synthetic transcript trees (SQLite)
//   --import-sizes a,b      the import's trees (default 256m,1g, ~3 min; quick 32m): any of 32m,256m,512m,1g
//   --profiles a,b          synthetic stores to measure (default: reference,sparse-1m,dense-1m;
//                           quick: the -quick three), e.g. dense-quick,dense-1m for report memory
//   --dialect d             sqlite or postgres (default: both)
//   --runs n                runs per measurement (default 5; quick 2)
//   --generate-only         build the cached stores (those of the chosen sections) and the import's trees, and stop
//   --write / --no-write    write BENCHMARKS.md or not (default: write unless --quick)
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres, type RunningPostgres } from './lib/embedded-postgres.js';
import { startPgBouncer, type RunningPgBouncer } from './lib/pgbouncer.js';
import { STORE_PROFILES, type StoreProfileName } from './bench/lib/synthetic-history.js';
import { postgresBatch, sqliteBatch } from './bench/batch-section.js';
import { formatWithPrettier, mergeResultsBlock, renderFindings, renderResultsBlock, writeResultsBlock } from './bench/benchmarks-md.js';
import type { Finding } from './bench/findings.js';
import { postgresLive, sqliteLive } from './bench/live-writer-section.js';
import { hugeDocumentSection } from './bench/huge-document-section.js';
import { describeMachine } from './bench/machine.js';
import { prepareStores, storeSections } from './bench/store-sections.js';
import { postgresAcp, recognizerMemory, sqliteAcp } from './bench/acp-section.js';
import { delegationCheckCost } from './bench/acp-delegation-check.js';
import { proxyBench } from './bench/proxy-section.js';
import { claudeImportSection, prepareClaudeTrees } from './bench/claude-import-section.js';
import { isTreeSizeName, TREE_SIZES, type TreeSizeName } from './bench/lib/claude-code-tree.js';
import { DIALECTS, type DialectName } from '../src/dialect.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SECTIONS = ['live', 'batch', 'backfill', 'hostile', 'replay', 'health', 'report', 'acp', 'proxy', 'import'] as const;
/** The Finding.section each --section produces. */
const FINDING_SECTION: Record<(typeof SECTIONS)[number], Finding['section']> = {
  live: 'live writer',
  batch: 'batch',
  backfill: 'backfill',
  hostile: 'hostile document',
  replay: 'replay',
  health: 'health',
  report: 'report',
  acp: 'acp intake',
  proxy: 'proxy',
  import: 'claude-code import',
};
/** PgBouncer's server connections per database in the pooled live runs: small, as in the tests. */
const PGBOUNCER_POOL_SIZE = 4;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    section: { type: 'string' },
    profiles: { type: 'string' },
    dialect: { type: 'string' },
    runs: { type: 'string' },
    'import-sizes': { type: 'string' },
    'generate-only': { type: 'boolean', default: false },
    write: { type: 'boolean' },
    'no-write': { type: 'boolean', default: false },
  },
});

const quick = values.quick!;
const sections = new Set(values.section ? values.section.split(',') : SECTIONS);
for (const s of sections) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section ${s}; choose from ${SECTIONS.join(', ')}`);
const dialects = (values.dialect ? [values.dialect] : [...DIALECTS]) as DialectName[];
const runs = Number(values.runs ?? (quick ? 2 : 5));
const write = values['no-write'] ? false : (values.write ?? !quick);
const cacheDir = join(root, '.bench-cache');
const profiles: StoreProfileName[] = values.profiles
  ? values.profiles.split(',').map((p) => {
      if (!Object.hasOwn(STORE_PROFILES, p)) throw new Error(`unknown profile ${p}; choose from ${Object.keys(STORE_PROFILES).join(', ')}`);
      return p as StoreProfileName;
    })
  : quick
    ? ['reference-quick', 'sparse-quick', 'dense-quick']
    : ['reference', 'sparse-1m', 'dense-1m'];
const importSizes: TreeSizeName[] = (values['import-sizes'] ?? (quick ? '32m' : '256m,1g')).split(',').map((s) => {
  if (!isTreeSizeName(s)) throw new Error(`unknown import tree ${s}; choose from ${Object.keys(TREE_SIZES).join(', ')}`);
  return s;
});
/** Frames per live run: SQLite at NORMAL is fast; FULL and PostgreSQL (fsync on) are fsync-bound. */
const frames = quick ? { normal: 1_200, full: 300, postgres: 300 } : { normal: 20_000, full: 3_000, postgres: 4_000 };

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  mkdirSync(cacheDir, { recursive: true });
  let server: RunningPostgres | undefined;
  let bouncer: RunningPgBouncer | undefined;
  if (dialects.includes('postgres')) server = await startEmbeddedPostgres({ dataDir: join(cacheDir, 'pg') }); // fsync on
  const findings: Finding[] = [];
  const storeOptions = { cacheDir, profiles, dialects, server, runs, sections };
  try {
    const storeSectionsChosen = ['backfill', 'replay', 'health', 'report'].some((s) => sections.has(s));
    if (values['generate-only']) {
      if (storeSectionsChosen) await prepareStores(storeOptions);
      if (sections.has('import')) prepareClaudeTrees(cacheDir, importSizes);
      return;
    }
    const liveDir = join(cacheDir, 'live');
    const step = async (label: string, fn: () => Promise<Finding | Finding[]>) => {
      process.stderr.write(`bench: ${label} …\n`);
      const result = await fn();
      findings.push(...(Array.isArray(result) ? result : [result]));
    };
    if (sections.has('live')) {
      if (dialects.includes('sqlite')) {
        await step('live writer, SQLite NORMAL', () => sqliteLive(liveDir, 'NORMAL', frames.normal, runs));
        await step('live writer, SQLite FULL', () => sqliteLive(liveDir, 'FULL', frames.full, runs));
      }
      if (server) {
        await step('live writer, PostgreSQL 1 connection', () => postgresLive(server!, 1, frames.postgres, runs));
        await step('live writer, PostgreSQL 8 connections', () => postgresLive(server!, 8, frames.postgres, runs));
        const url = new URL(server.url);
        const pgBouncer = (bouncer = await startPgBouncer({
          server: { host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
          poolSize: PGBOUNCER_POOL_SIZE,
        }));
        const route = { kind: 'pgbouncer', bouncer: pgBouncer, poolSize: PGBOUNCER_POOL_SIZE } as const;
        await step('live writer, PostgreSQL through PgBouncer, 1 connection', () => postgresLive(server!, 1, frames.postgres, runs, route));
        await step('live writer, PostgreSQL through PgBouncer, 8 connections', () => postgresLive(server!, 8, frames.postgres, runs, route));
        await pgBouncer.stop();
      }
    }
    if (sections.has('batch')) {
      if (dialects.includes('sqlite')) await step('batch, SQLite NORMAL', () => sqliteBatch(liveDir, 'NORMAL', frames.normal, runs));
      if (server) await step('batch, PostgreSQL', () => postgresBatch(server!, frames.postgres * 2, runs));
    }
    if (storeSectionsChosen) findings.push(...(await storeSections(storeOptions)));
    if (sections.has('acp')) {
      // Copies of the recorded traffic (about 50 frames each): as many frames as the live section writes.
      if (dialects.includes('sqlite')) await step('acp intake, SQLite NORMAL', () => sqliteAcp(liveDir, quick ? 20 : 400, runs));
      if (server) await step('acp intake, PostgreSQL 1 connection', () => postgresAcp(server!, quick ? 6 : 40, runs));
      await step('acp intake, recognizer memory', async () => recognizerMemory(quick ? 100_000 : 1_000_000));
      await step('acp intake, the unrecognized-delegation check on ordinary traffic', async () => delegationCheckCost(quick ? 5_000 : 50_000, runs));
    }
    if (sections.has('proxy')) {
      const proxy = { dir: liveDir, messages: quick ? 1_000 : 10_000, warmUp: quick ? 200 : 1_000, burst: quick ? 2_000 : 10_000, runs };
      for (const dialect of dialects) await step(`proxy, ${dialect}`, () => proxyBench({ ...proxy, dialect, server }));
    }
    // SQLite on every tree (the floor and ccusage beside it); PostgreSQL once, on the smallest.
    if (sections.has('import') && dialects.includes('sqlite'))
      await step(`claude-code import, ${importSizes.join(', ')}`, () => claudeImportSection(cacheDir, importSizes, runs, server?.url));
    if (sections.has('hostile')) {
      for (const dialect of dialects) await step(`hostile document, ${dialect}`, () => hugeDocumentSection(cacheDir, dialect, server?.url));
    }
  } finally {
    await bouncer?.stop();
    await server?.stop();
  }
  if (values['generate-only']) return;

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const machine = describeMachine(cacheDir, server?.version, loadBefore, bouncer?.version);
  process.stdout.write(`\n${machine.lines.join('\n')}\n\n${renderFindings(findings)}\n`);
  if (write) {
    const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
    const all = SECTIONS.every((s) => sections.has(s)) && dialects.length === 2;
    const mode = quick ? 'quick mode: small stores, few runs — not representative' : all ? 'full run' : 'full-size, some sections';
    const run = { mode, command, startedAt, seconds, machine: machine.lines, findings };
    const file = join(root, 'BENCHMARKS.md');
    if (all) writeResultsBlock(file, renderResultsBlock(run));
    else mergeResultsBlock(file, run, { sections: [...sections].map((s) => FINDING_SECTION[s as (typeof SECTIONS)[number]]), dialects });
    await formatWithPrettier(file);
    process.stderr.write(`bench: wrote BENCHMARKS.md${all ? '' : ` (only the rows of ${[...sections].join(', ')}, ${dialects.join(' and ')})`}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
