// The error codegen raises on purpose: a statement, fragment or schema file it refuses, with a
// message naming the file. scripts/codegen.ts prints it without a stack and exits 1; anything
// else is a bug in codegen and keeps its stack. A module of its own, imported by every codegen
// module and importing none, so no two of them need each other for it (test/import-cycles.test.ts).
export class CodegenError extends Error {}
