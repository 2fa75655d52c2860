// The starting states a test's database is copied from. openTestDb(dialect, ...layers) gives
// a test a fresh database holding the host tables plus `layers`, applied in order. Building
// that per test (CREATE DATABASE, then the DDL) cost as much again as the database itself, so
// the global setup (test/setup/template-databases.ts) builds each common starting state ONCE
// per run, by applying exactly those scripts in exactly that order, and every test gets a copy
// of its own: on PostgreSQL `CREATE DATABASE … TEMPLATE` (graphile-worker's and slonik's
// habit), on SQLite a copy of the file. A copy is its own database, as before: nothing a test
// writes reaches the template or another test's copy.
//
// The states are the DDL only: no rows, no activation keys, no migration run. A test of the
// migration itself asks for the store it starts from — a fresh one (host tables only), a
// pre-amendment one ('legacy') — and gets exactly that; nothing here is ever migrated.
// Layers past the longest state that matches are applied to the copy, as before.
// Imported by the global setup (the main vitest process) too: no vitest runtime imports here.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sqliteGenerated from '../../generated/sqlite/index.js';
import * as postgresGenerated from '../../generated/postgres/index.js';
import { clientFor, createDatabase, dropDatabase } from '../../scripts/lib/postgres-database.js';
import type { DialectName as Dialect } from '../../src/dialect.js';
import { byDialect } from './by-dialect.js';

export type SchemaLayer = 'host' | 'package' | 'legacy';

/** The starting states built once per run, by the layers each applies in order. */
export const STARTING_STATES = {
  /** A fresh store: the host's tables, nothing of the package's. */
  host: ['host'],
  /** The package's DDL applied over the host's tables (no keys, no rows). */
  package: ['host', 'package'],
  /** A pre-amendment store: the host's tables and the old task_session_subagents. */
  legacy: ['host', 'legacy'],
} as const satisfies Record<string, readonly SchemaLayer[]>;
export type StartingState = keyof typeof STARTING_STATES;

/** Where each dialect's copy of each starting state is: a database name, a file path. */
export type Templates = Record<Dialect, Record<StartingState, string>>;

/** The DDL scripts of one layer on one dialect. */
export function layerScripts(dialect: Dialect, layer: SchemaLayer): readonly { readonly sql: string }[] {
  const g = byDialect(dialect, { sqlite: sqliteGenerated, postgres: postgresGenerated });
  return layer === 'host' ? g.hostSchema : layer === 'package' ? g.packageSchema : g.legacySchema;
}

/** The longest starting state that `layers` begins with, and the layers still to apply after it. */
export function startingStateFor(layers: readonly SchemaLayer[]): { state: StartingState; rest: SchemaLayer[] } {
  if (layers[0] !== 'host') throw new Error(`every starting state begins with the host tables, not ${JSON.stringify(layers)}`);
  let best: StartingState = 'host';
  for (const [state, prefix] of Object.entries(STARTING_STATES) as [StartingState, readonly SchemaLayer[]][]) {
    const matches = prefix.every((layer, i) => layers[i] === layer);
    if (matches && prefix.length > STARTING_STATES[best].length) best = state;
  }
  return { state: best, rest: layers.slice(STARTING_STATES[best].length) };
}

const STATES = Object.keys(STARTING_STATES) as StartingState[];

/** Builds every starting state on PostgreSQL (databases named `<prefix>_<state>`) and SQLite (files in `dir`). */
export async function buildTemplates(pgUrl: string, prefix: string, dir: string): Promise<Templates> {
  const templates = { postgres: {}, sqlite: {} } as Templates;
  for (const state of STATES) {
    const database = await createDatabase(pgUrl, `${prefix}_${state}`, { replaceExisting: true });
    // A client of its own, ended before any copy: CREATE DATABASE … TEMPLATE needs the template
    // idle. Then no connections at all, so nothing can hold it open or change it by accident.
    const builder = clientFor(database.url);
    await builder.connect();
    try {
      for (const layer of STARTING_STATES[state]) for (const s of layerScripts('postgres', layer)) await builder.query(s.sql);
    } finally {
      await builder.end();
    }
    const admin = clientFor(pgUrl);
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS false`);
    } finally {
      await admin.end();
    }
    templates.postgres[state] = database.name;

    // journal_mode=WAL is kept in the file's header, so every copy opens in WAL mode, as a
    // database openTestDb built did; close() checkpoints and removes the -wal file.
    const file = join(dir, `${state}.db`);
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      for (const layer of STARTING_STATES[state]) for (const s of layerScripts('sqlite', layer)) db.exec(s.sql);
    } finally {
      db.close();
    }
    templates.sqlite[state] = file;
  }
  return templates;
}

/** Drops the PostgreSQL templates (a drop needs no connection to them). */
export async function dropTemplates(pgUrl: string, templates: Templates): Promise<void> {
  for (const name of Object.values(templates.postgres)) await dropDatabase(pgUrl, name);
}

/** A temp folder for the SQLite templates. */
export function templateFolder(): string {
  return mkdtempSync(join(tmpdir(), 'subagent-context-templates-'));
}

export function removeTemplateFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
