// The SQLite engine of the package's declared floor (src/sqlite/migrations.ts: 3.38.0), for
// test/sqlite-floor.test.ts. better-sqlite3 bundles a current SQLite, so a statement that needs
// a newer engine would pass every other test; sql.js 1.7.0 (a devDependency, pinned exactly) is
// SQLite 3.38.5 compiled to WebAssembly. 3.38.5 is the 3.38 line's last patch release: patch
// releases fix bugs and add no SQL function or syntax, so what prepares here prepares on 3.38.0.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The part of sql.js's Database the floor test uses. */
export interface FloorDatabase {
  exec(sql: string): { columns: string[]; values: unknown[][] }[];
  prepare(sql: string): { free(): boolean };
  close(): void;
}

type InitSqlJs = (config: { wasmBinary: Uint8Array }) => Promise<{ Database: new () => FloorDatabase }>;

const require = createRequire(import.meta.url);

/** A fresh in-memory database on the floor engine. */
export async function openFloorDatabase(): Promise<FloorDatabase> {
  const init = require('sql.js/dist/sql-wasm.js') as InitSqlJs;
  // Given the bytes, sql.js does not fetch() its .wasm (Node's fetch cannot read a file path).
  const wasmBinary = readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'));
  const SQL = await init({ wasmBinary });
  return new SQL.Database();
}
