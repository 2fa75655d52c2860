// One DDL script under schema/, as scripts/lib/schema-files.ts lists it: a module of its own so
// the modules that read the scripts (schema-columns.ts) and the one that lists them need not
// import each other for the type.
export interface SchemaScript {
  readonly name: string;
  readonly file: string;
  readonly sql: string;
}
