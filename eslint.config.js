// ESLint flat config: typescript-eslint's recommended rules over every TypeScript file we
// write. Generated code is excluded: codegen owns it and codegen:check diffs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Dialects as records (src/dialect.ts): outside the dialect module, code never compares a value
// to a dialect's name (`d === 'sqlite' ? a : b` sends a new dialect silently down the other
// branch); it writes a record with one entry per dialect (byDialect, matchDialect, ByDialect)
// that the compiler holds complete. test/lint-dialect-names.test.ts proves the rule fires.
const DIALECT_NAME = '/^(sqlite|postgres)$/';
const DIALECT_COMPARISON = [
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/] > Literal[value=${DIALECT_NAME}]`,
    message: "Compare no value to a dialect's name: write a record per dialect (byDialect/matchDialect, src/dialect.ts).",
  },
  {
    selector: `SwitchCase > Literal[value=${DIALECT_NAME}]`,
    message: "Switch on no dialect's name: write a record per dialect (byDialect/matchDialect, src/dialect.ts).",
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', 'coverage/', '.bench-cache/', 'subagent-context-demo.*'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain-JS child processes the reliability tests spawn run on Node.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', performance: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
  {
    rules: {
      // `_`-prefixed names are deliberately unused (positional parameters, destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.ts', 'scripts/**/*.ts'],
    ignores: [
      // The one dialect module.
      'src/dialect.ts',
      // Codegen's own dialect handling (issue 31 item 3 gives it one generator per dialect).
      'scripts/codegen*.ts',
      'scripts/lib/codegen*',
      'scripts/lib/codegen*/**',
      'scripts/lib/schema-columns.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', ...DIALECT_COMPARISON] },
  },
);
