// The set-up most integration tests share: a private database, a Redis prefix
// of their own, the configuration for both (plus the test's own variables) and,
// when asked, the workers running on them. One call in beforeAll, one close()
// in afterAll; a child process (a worker, the CLI) gets `env`.
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import type { Resources } from '../../src/runtime/resources.js';
import type { Pipeline, StartOptions } from '../../src/runtime/workers.js';
import { startTestWorkers } from './services.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createTestRedis, testResources, type TestRedis } from './redis.js';

export interface TestStack {
  database: TestDatabase;
  redis: TestRedis;
  resources: Resources;
  /** The variables of this stack (database, Redis and prefix, and the test's own), as a child process needs them. */
  env: Record<string, string>;
  /** loadConfig(env): what a worker started from `env` would read. */
  config: Config;
  /** The workers, when the stack was asked for them. */
  pipeline: Pipeline | undefined;
  /** Stops the workers (if any), then removes the Redis prefix's keys and the database. */
  close(): Promise<void>;
}

export interface TestStackOptions {
  /** Variables on top of the stack's own (e.g. WEBHOOK_RETRY_SCALE); they reach both `config` and `env`. */
  env?: Record<string, string>;
  /** Start the workers in this process. */
  workers?: boolean | StartOptions;
  /** The workers' logger; silent by default. */
  logger?: Logger;
}

export async function createTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const database = await createTestDatabase();
  const redis = await createTestRedis();
  const env = { ...database.env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, ...options.env };
  const config = loadConfig(env);
  const resources = testResources(database, redis);
  let pipeline: Pipeline | undefined;
  try {
    if (options.workers) {
      const startOptions = options.workers === true ? {} : options.workers;
      pipeline = await startTestWorkers(resources, config, options.logger ?? pino({ level: 'silent' }), startOptions);
    }
  } catch (error) {
    await redis.destroy();
    await database.destroy();
    throw error;
  }
  return {
    database,
    redis,
    resources,
    env,
    config,
    pipeline,
    async close() {
      await pipeline?.close();
      await redis.destroy();
      await database.destroy();
    },
  };
}
