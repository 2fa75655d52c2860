// Which database a command works on when no --sqlite/--postgres is given (issue 30 item 4):
// SUBAGENT_CONTEXT_DB if set — a postgres:// or postgresql:// URL (any case), or else a SQLite
// file path; any other connection string is refused unshown (./database.ts) —
// and otherwise the proxy's default store (src/proxy/data-dir.ts), so `report`, `health` and
// `migrate` read what `proxy` records without options. The proxy honours the same variable, so
// both always agree. The command says which it chose on stderr (stdout stays the report).
import { resolve } from 'node:path';
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import { defaultStoreFile } from '../proxy/data-dir.js';
import { secretMasker } from '../connection-secrets.js';
import { databaseError, usageError } from './cli-error.js';
import { databaseTarget, describeTarget, looksLikeConnectionString, POSTGRES_URL } from './database.js';

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
    if (POSTGRES_URL.test(fromEnv)) return { target: { dialect: 'postgres', url: fromEnv }, source: 'environment' };
    // Not a file path either: never printed, never created (./database.ts).
    if (looksLikeConnectionString(fromEnv))
      throw usageError(
        `${DATABASE_ENV} looks like a connection string the CLI does not take (a URL, or password=…; not shown: it may hold a password): ` +
          'give it a postgres:// or postgresql:// URL, or a SQLite file path',
      );
    return { target: { dialect: 'sqlite', file: resolve(fromEnv) }, source: 'environment' };
  }
  return { target: { dialect: 'sqlite', file: defaultStoreFile() }, source: 'default' };
}

/** The stderr line that says which store a command chose without an option; null with one. */
export function chosenTargetNote(chosen: ChosenTarget, verb: string): string | null {
  if (chosen.source === 'option') return null;
  const where = describeTarget(chosen.target);
  const line =
    chosen.source === 'environment'
      ? `${verb} ${where} (from ${DATABASE_ENV})\n`
      : `${verb} ${where}, the proxy's default store (--sqlite FILE, --postgres URL or ${DATABASE_ENV} choose another)\n`;
  // describeTarget() masks the URL; the whole line goes through the masker too, as every error line does (./main.ts).
  return secretMasker([matchDialect(chosen.target, { sqlite: ({ file }) => file, postgres: ({ url }) => url })])(line);
}

/** The default store does not exist yet: said in those words, not as a missing file someone mistyped. */
export function requireDefaultStore(chosen: ChosenTarget, exists: (file: string) => boolean): void {
  if (chosen.source !== 'default') return;
  const missing = matchDialect(chosen.target, { sqlite: ({ file }) => (exists(file) ? null : file), postgres: () => null });
  if (missing === null) return;
  throw databaseError(`no store at ${missing}, the proxy's default (nothing recorded there yet): pass --sqlite FILE or --postgres URL, or set ${DATABASE_ENV}`);
}
