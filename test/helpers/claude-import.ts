// Runs the Claude Code importer (src/import/claude-code) into a test store (./proxy-store.ts:
// an empty SQLite file or PostgreSQL database, as the CLI's default store starts), collecting
// its WARNs; and a reference reading of a transcript folder's usage, written apart from the
// importer (every assistant line's usage, the LAST line of each message id wins) for the
// tests to compare the ledger with.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { importClaudeCode, type ImportSummary } from '../../src/import/claude-code/import-claude-code.js';
import type { ImportStore } from '../../src/import/import-store.js';
import { openImportStore } from '../../src/import/open-import-store.js';
import { createWallClock } from '../../src/instant.js';
import type { ProxyStore } from './proxy-store.js';

export const RECORDED_PROJECTS = join(import.meta.dirname, '..', '..', 'recordings', 'claude-code', 'projects');

export interface ImportRun {
  summary: ImportSummary;
  warns: { msg: string; fields: Record<string, unknown> }[];
}

/** `wrap`: the store as the importer sees it (a test injects a database error into one call). */
export async function importInto(
  target: ProxyStore,
  from: string,
  options: { task?: string; wrap?: (store: ImportStore) => ImportStore; onProgress?: (done: number, total: number) => void } = {},
): Promise<ImportRun> {
  const warns: ImportRun['warns'] = [];
  const logger = { warn: (fields: object, msg: string) => void warns.push({ msg, fields: fields as Record<string, unknown> }) };
  const [flag, where] = target.args;
  const dbTarget = flag === '--sqlite' ? { dialect: 'sqlite' as const, file: where } : { dialect: 'postgres' as const, url: where };
  const clock = createWallClock();
  const store = await openImportStore(dbTarget, { logger, clock });
  try {
    if (!(await store.prepare())) throw new Error(`prepare failed: ${JSON.stringify(warns)}`);
    const { wrap, ...rest } = options;
    return { summary: await importClaudeCode({ from, store: wrap ? wrap(store) : store, logger, clock, ...rest }), warns };
  } finally {
    await store.close();
  }
}

export interface ReferenceUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const FIGURES = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/** One file's usage by model: the last line of each message id. */
export function referenceUsage(file: string): Map<string, ReferenceUsage> {
  const byMessage = new Map<string, { model: string; usage: Record<string, number> }>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let v: { type?: string; message?: { id?: string; model?: string; usage?: Record<string, number> } };
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      continue;
    }
    if (v?.type !== 'assistant' || !v.message?.id || !v.message.usage || v.message.model === '<synthetic>') continue;
    byMessage.set(v.message.id, { model: v.message.model ?? 'unknown', usage: v.message.usage });
  }
  const out = new Map<string, ReferenceUsage>();
  for (const { model, usage } of byMessage.values()) {
    const sum = out.get(model) ?? { requests: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    sum.requests++;
    for (const f of FIGURES) sum[f] += usage[f] ?? 0;
    out.set(model, sum);
  }
  return out;
}

/** Every file under dir (recursively) whose name matches. */
export function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p, pattern) : pattern.test(name) ? [p] : [];
  });
}
