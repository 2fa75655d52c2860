// Where a store lives, by dialect: a file for SQLite, a connection URL for PostgreSQL. The CLI
// parses it from --sqlite/--postgres (src/cli/database.ts), the demo opens its database from it
// (src/demo/run-demo.ts): neutral ground, so neither of src/cli and src/demo imports the other
// for it. A new dialect is a compile error here until it says what locates its store.
import type { DialectName } from './dialect.js';

interface Location {
  sqlite: { file: string };
  postgres: { url: string };
}

export type DatabaseTarget = { [D in DialectName]: { dialect: D } & Location[D] }[DialectName];
