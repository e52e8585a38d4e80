import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Producers and the web process fail fast when Redis is away (a request gets a
 * 503 instead of hanging); BullMQ workers wait forever and resume by themselves.
 *
 * Every connection gets an 'error' listener at birth: an ioredis client with
 * none prints "Unhandled error event" on every reconnect attempt, and a
 * connection must never depend on its user remembering one. Callers that
 * want to log add their own (see openResources).
 */
export function createRedis(url: string, role: 'client' | 'worker' = 'client', extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 5_000,
    lazyConnect: false,
    // Concurrent requests share one write to Redis: fewer syscalls under load.
    enableAutoPipelining: role === 'client',
    ...extra,
  });
  redis.on('error', () => {});
  return redis;
}

/** Resolves when the connection is ready, or rejects with a message that says what to do. */
export async function waitForRedis(redis: Redis, url: string, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(redisUnreachable(url, 'timed out')));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(redisUnreachable(url, error.message)));
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
    };
    redis.once('ready', onReady);
    redis.once('error', onError);
  });
}

export function redisUnreachable(url: string, reason: string): string {
  const safe = url.replace(/\/\/[^@/]*@/, '//***@');
  return `Redis is not reachable at ${safe} (${reason}) — start it (apt-get install redis-server), or set REDIS_URL`;
}
