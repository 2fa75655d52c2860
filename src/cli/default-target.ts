// Which database a command works on when no --sqlite/--postgres is given (issue 30 item 4):
// SUBAGENT_CONTEXT_DB if set — a postgres:// or postgresql:// URL, or else a SQLite file path —
// and otherwise the proxy's default store (src/proxy/data-dir.ts), so `report`, `health` and
// `migrate` read what `proxy` records without options. The proxy honours the same variable, so
// both always agree. The command says which it chose on stderr (stdout stays the report).
import { resolve } from 'node:path';
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import { defaultStoreFile } from '../proxy/data-dir.js';
import { databaseError } from './cli-error.js';
import { databaseTarget, describeTarget } from './database.js';

export const DATABASE_ENV = 'SUBAGENT_CONTEXT_DB';

export type TargetSource = 'option' | 'environment' | 'default';

export interface ChosenTarget {
  readonly target: DatabaseTarget;
  readonly source: TargetSource;
}

export function chooseTarget(values: { sqlite?: string; postgres?: string }, env: NodeJS.ProcessEnv = process.env): ChosenTarget {
  if (values.sqlite !== undefined || values.postgres !== undefined) return { target: databaseTarget(values), source: 'option' };
  const fromEnv = env[DATABASE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const isUrl = /^postgres(ql)?:\/\//i.test(fromEnv);
    return { target: isUrl ? { dialect: 'postgres', url: fromEnv } : { dialect: 'sqlite', file: resolve(fromEnv) }, source: 'environment' };
  }
  return { target: { dialect: 'sqlite', file: defaultStoreFile() }, source: 'default' };
}

/** The stderr line that says which store a command chose without an option; null with one. */
export function chosenTargetNote(chosen: ChosenTarget, verb: string): string | null {
  if (chosen.source === 'option') return null;
  const where = describeTarget(chosen.target);
  return chosen.source === 'environment'
    ? `${verb} ${where} (from ${DATABASE_ENV})\n`
    : `${verb} ${where}, the proxy's default store (--sqlite FILE, --postgres URL or ${DATABASE_ENV} choose another)\n`;
}

/** The default store does not exist yet: said in those words, not as a missing file someone mistyped. */
export function requireDefaultStore(chosen: ChosenTarget, exists: (file: string) => boolean): void {
  if (chosen.source !== 'default') return;
  const missing = matchDialect(chosen.target, { sqlite: ({ file }) => (exists(file) ? null : file), postgres: () => null });
  if (missing === null) return;
  throw databaseError(`no store at ${missing}, the proxy's default (nothing recorded there yet): pass --sqlite FILE or --postgres URL, or set ${DATABASE_ENV}`);
}
