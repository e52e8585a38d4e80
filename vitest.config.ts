import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: two files at a time, each with its own database and Redis prefix.
    maxWorkers: 2,
    pool: 'forks',
  },
});
