// One generator per dialect. The type names every DialectName: a dialect added to DIALECTS
// (src/dialect.ts) fails the type check here until scripts/lib/generators/<dialect>/ exports
// its DialectGenerator and this record lists it.
import type { DialectName } from '../../../src/dialect.js';
import type { DialectGenerator } from './dialect-generator.js';
import { postgresGenerator } from './postgres/generator.js';
import { sqliteGenerator } from './sqlite/generator.js';

export const GENERATORS: { readonly [D in DialectName]: DialectGenerator } = {
  sqlite: sqliteGenerator,
  postgres: postgresGenerator,
};
