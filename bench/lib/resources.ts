// The resources a benchmark's workers run on, as the composition root takes them (src/runtime/resources.ts):
// the benchmark's own database (lib/database.ts) and a Redis client under its own key prefix. The benchmark
// closes them itself (the database's drop, the client's quit), so `close` here does nothing.
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/keys.js';
import type { Resources } from '../../src/runtime/resources.js';
import type { BenchDatabase } from './database.js';

export function benchResources(database: BenchDatabase, redis: Redis, redisUrl: string, prefix: string): Resources {
  return {
    db: database.db,
    databaseUrl: database.url,
    embeddedPostgres: false,
    redis,
    redisTarget: { url: redisUrl },
    redisKeys: redisKeys(prefix),
    connectRedis: (role) => createRedis(redisUrl, role),
    close: async () => {},
  };
}
