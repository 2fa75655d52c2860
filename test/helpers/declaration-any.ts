// Finds `any` written as a type in declaration files, by parsing them (the word in a comment
// or a string is not a type). Used on the published dist/**/*.d.ts.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** `file:line` of every `any` keyword in a type position of the given .d.ts files. */
export function anyTypesIn(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
