// `npm run lint` (after tsc): type-aware rules that guard a long-running Node
// process, and the house rules (docs/internals.md). Deliberately short: tsc --strict
// does the rest.
import tseslint from 'typescript-eslint';

// The domain is the ground floor (docs/internals.md): pure data in, data out.
// It imports no IO library and nothing outside src/domain/, so a type two
// floors share lives in the domain and the upper floor imports it from there.
const IO_PACKAGES = ['pg', 'kysely', 'ioredis', 'bullmq', 'fastify', 'pino', 'prom-client', 'commander', 'undici', 'saxes'];
const NODE_IO = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'tls',
  'dns',
  'dgram',
  'child_process',
  'worker_threads',
  'cluster',
  'process',
];
const IO_MESSAGE = 'src/domain/ is pure: IO belongs to an adapter or repository above it (docs/internals.md).';
const domainFloor = (depth) => ({
  // A relative import with more "../" than the file is deep in src/domain/ leaves the domain.
  files: [`src/domain/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [...IO_PACKAGES, ...NODE_IO.flatMap((m) => [m, `node:${m}`])].map((name) => ({ name, message: IO_MESSAGE })),
        patterns: [
          { group: ['@fastify/*', '@bull-board/*', '@electric-sql/*'], message: IO_MESSAGE },
          {
            // Except the provider registry: plain data on the same floor (pureProviderDeclarations below keeps it so).
            regex: `^(\\.\\./){${depth + 1},}(?!providers/registry\\.js$)`,
            message: 'src/domain/ imports nothing above it: move the shared type or function down into src/domain/ (docs/internals.md).',
          },
        ],
      },
    ],
  },
});

// The provider registry and each provider's profile stand on the ground floor with the domain (the
// domain's provenance and config.ts read them): plain data that imports only src/domain/ (and the registry,
// the profiles). A provider's IO (client, gateway) is its adapter, which the registry loads only when asked.
const pureProviderDeclarations = (files, relative) => ({
  files: [files],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [...IO_PACKAGES, ...NODE_IO.flatMap((m) => [m, `node:${m}`])].map((name) => ({ name, message: IO_MESSAGE })),
        patterns: [
          { group: ['@fastify/*', '@bull-board/*', '@electric-sql/*'], message: IO_MESSAGE },
          {
            regex: relative,
            message:
              "A provider's profile and the registry are plain data: they import only src/domain/ (and the registry its profiles); IO goes in the provider's adapter (docs/internals.md).",
          },
        ],
      },
    ],
  },
});

// Where queries may be written in src/ and jobs/: repositories (one per table) and src/db/ (the connection,
// the read router, the batcher, the migrations). No other file needs one today; tests, scripts and bench/ are
// outside the rule (they set up and inspect rows directly).
const REPOSITORY_FILES = ['src/**/*.repository.ts', 'src/db/**'];
const QUERY_BUILDERS = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'selectNoFrom', 'executeQuery'];
const SQL_MESSAGE = 'Queries live in a repository (src/<feature>/<table>.repository.ts): call a function there (docs/internals.md).';

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
      // Dead code: an import, variable or parameter nothing reads (a leading _ says it is unused on purpose).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // House rules for the product code: settings come from config.ts only, logs from pino only.
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env: add a setting there.' },
      ],
      'no-console': ['error'],
    },
  },
  {
    // jobs/ holds the worker's thin handlers; only the worker's composition loads them, so the web
    // process and the CLI never do (docs/internals.md).
    files: ['src/**/*.ts'],
    ignores: ['src/runtime/job-table.ts', 'src/worker.ts', 'src/start.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)jobs/',
              message: 'Only the job table (src/runtime/job-table.ts) imports jobs/: put the logic in its feature under src/.',
            },
          ],
        },
      ],
    },
  },
  { files: ['src/config.ts'], rules: { 'no-restricted-properties': 'off' } },
  {
    // config.ts and its sections stand on the domain alone: every other floor imports config, so anything else here makes a loop.
    files: ['src/config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./|^\\./(?!domain/|config/|providers/registry\\.js$)',
              message: 'src/config.ts imports only from src/domain/, src/config/ and the provider registry (docs/internals.md).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!domain/|providers/registry\\.js$)|^\\.\\./\\.\\./',
              message: 'src/config/ imports only from itself, src/domain/ and the provider registry (docs/internals.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // SQL lives in repositories (docs/internals.md): a service that queries a table skips the one place that
    // table's rules (ownership, locks, scopes) are kept. Elsewhere, kysely's types and db.transaction() are fine.
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    ignores: REPOSITORY_FILES,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='kysely'][importKind!='type'] > ImportSpecifier[imported.name='sql'][importKind!='type']",
          message: SQL_MESSAGE,
        },
        {
          selector: `CallExpression > MemberExpression.callee[property.name=/^(${QUERY_BUILDERS.join('|')})$/]`,
          message: SQL_MESSAGE,
        },
      ],
    },
  },
  domainFloor(0),
  domainFloor(1),
  domainFloor(2),
  pureProviderDeclarations('src/providers/registry.ts', '^\\.(?!\\./domain/|/[a-z0-9-]+/profile\\.js$)'),
  pureProviderDeclarations('src/providers/*/profile.ts', '^\\.(?!\\./\\.\\./domain/)'),
);
