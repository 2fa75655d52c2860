// ESLint flat config: typescript-eslint's recommended rules over every TypeScript file we
// write. Generated code is excluded: codegen owns it and codegen:check diffs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
);
