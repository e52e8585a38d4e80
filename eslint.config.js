// `npm run lint` (after tsc): type-aware rules that guard a long-running Node
// process, and the house rules of STYLE.md. Deliberately short: tsc --strict
// does the rest.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits or catches becomes an unhandled rejection: the process dies.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's return is ignored (event handlers, http servers): same.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // House rules for the product code (STYLE.md 4 and 6).
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env: add a setting there.' }],
      'no-console': ['error'],
    },
  },
  { files: ['src/config.ts'], rules: { 'no-restricted-properties': 'off' } },
);
