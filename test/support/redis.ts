import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';
import { createRedis, waitForRedis, type Redis } from '../../src/redis/connection.js';
import { ensureLocalRedis } from '../../src/redis/embedded-redis.js';
import { redisKeys, type RedisKeys } from '../../src/redis/keys.js';
import { removePrefixKeys } from '../../bench/lib/redis-cleanup.js';
import type { Db } from '../../src/db/connection.js';
import type { Resources } from '../../src/runtime/resources.js';

export interface TestRedis {
  url: string;
  redis: Redis;
  prefix: string;
  keys: RedisKeys;
  destroy(): Promise<void>;
}

/** A Redis connection and a key prefix no other test file uses. */
export async function createTestRedis(): Promise<TestRedis> {
  const url = process.env.REDIS_URL ?? (await ensureLocalRedis(path.join(PROJECT_ROOT, '.data'))).url;
  const redis = createRedis(url);
  await waitForRedis(redis, url);
  const prefix = `t${randomBytes(5).toString('hex')}`;
  return {
    url,
    redis,
    prefix,
    keys: redisKeys(prefix),
    async destroy() {
      await removePrefixKeys(redis, prefix);
      redis.disconnect();
    },
  };
}

/** The Resources a pipeline started in a test process runs on: this file's database and Redis prefix. */
export function testResources(database: { db: Db; url: string }, redis: TestRedis): Resources {
  return {
    db: database.db,
    databaseUrl: database.url,
    embeddedPostgres: false,
    redis: redis.redis,
    redisTarget: { url: redis.url },
    redisKeys: redis.keys,
    connectRedis: (role) => createRedis(redis.url, role),
    close: async () => {},
  };
}
