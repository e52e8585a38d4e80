// The composition root (src/runtime/services.ts) as tests use it: services over a
// test database and Redis prefix, and workers that close their services with them.
import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import type { Resources } from '../../src/runtime/resources.js';
import { buildServices, type ServiceOverrides, type Services } from '../../src/runtime/services.js';
import { startWorkers, type Pipeline, type StartOptions } from '../../src/runtime/workers.js';
import { testResources, type TestRedis } from './redis.js';
import type { TestDatabase } from './database.js';

/** The services of a web process or a command over this database and Redis prefix; `env` on top of theirs. */
export function testServices(
  database: Pick<TestDatabase, 'db' | 'url' | 'env'>,
  redis: TestRedis,
  options: { logger?: Logger; env?: Record<string, string>; overrides?: ServiceOverrides } = {},
): Services {
  const config = loadConfig({
    ...database.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    // Its own key: nothing is written under DATA_DIR.
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...options.env,
  });
  return buildServices(testResources(database, redis), config, options.logger ?? pino({ level: 'silent' }), options.overrides);
}

/** Workers on the root's services over `resources`; close() stops them, then closes those services. */
export async function startTestWorkers(
  resources: Resources,
  config: Config,
  logger: Logger,
  options: StartOptions = {},
): Promise<Pipeline> {
  const services = buildServices(resources, config, logger);
  try {
    const pipeline = await startWorkers(services, options);
    return {
      ...pipeline,
      async close() {
        await pipeline.close();
        await services.close();
      },
    };
  } catch (error) {
    await services.close();
    throw error;
  }
}
