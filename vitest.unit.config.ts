// `npm run test:unit`: the pure tests — domain logic, configuration, the docs'
// variable lists, and the Trends adapters against recorded or loopback HTTP.
// No Postgres, no Redis, no build: no global setup, seconds to run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/trends/**/*.test.ts'],
    testTimeout: 60_000,
    maxWorkers: 2,
    pool: 'forks',
  },
});
