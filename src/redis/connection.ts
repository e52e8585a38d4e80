import { Cluster, Redis as SingleRedis, type ClusterNode, type RedisOptions } from 'ioredis';
import type { Redis } from './client.js';
import { defineScripts } from './scripts.js';
import { sendScriptsWholeInTransactions } from './transactions.js';
import { endOnDisconnectWhileReconnecting } from './cluster-disconnect.js';

export type { Redis } from './client.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Where Redis is: one server (REDIS_URL), or the seed nodes of a cluster (REDIS_CLUSTER_NODES). */
export type RedisTarget = { url: string } | { cluster: ReadonlyArray<{ host: string; port: number }> };

export function describeTarget(target: RedisTarget): string {
  return 'url' in target
    ? target.url.replace(/\/\/[^@/]*@/, '//***@')
    : `cluster ${target.cluster.map((n) => `${n.host}:${n.port}`).join(',')}`;
}

/**
 * Producers and the web process fail fast when Redis is away (a request gets a
 * 503 instead of hanging); BullMQ workers wait forever and resume by themselves.
 *
 * On a cluster, commands that meet a failover (CLUSTERDOWN, TRYAGAIN, a moved
 * slot) are retried for about 18 s, longer than a replica takes to be promoted
 * (ioredis's defaults give up after about 1.6 s, and an enqueue would be lost).
 *
 * Every connection gets an 'error' listener at birth: an ioredis client with
 * none prints "Unhandled error event" on every reconnect attempt, and a
 * connection must never depend on its user remembering one. Callers that
 * want to log add their own (see openResources).
 */
export function createRedis(target: RedisTarget | string, role: 'client' | 'worker' = 'client', extra: RedisOptions = {}): Redis {
  const resolved: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const options: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 5_000,
    lazyConnect: false,
    // Concurrent requests share one write to Redis: fewer syscalls under load.
    enableAutoPipelining: role === 'client',
    ...extra,
  };
  const redis: Redis =
    'url' in resolved
      ? new SingleRedis(resolved.url, options)
      : new Cluster([...resolved.cluster] as ClusterNode[], {
          redisOptions: options,
          enableOfflineQueue: role === 'worker',
          enableAutoPipelining: role === 'client',
          retryDelayOnFailover: 300,
          retryDelayOnClusterDown: 300,
          retryDelayOnTryAgain: 300,
          maxRedirections: 60,
          clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
          slotsRefreshTimeout: 2_000,
        });
  redis.on('error', () => {});
  // Before anything is sent: a script defined while an auto-pipeline is pending would be missing from it (scripts.ts).
  defineScripts(redis);
  return survivingFailovers(redis);
}

/**
 * `redis` and every duplicate of it (BullMQ duplicates a worker's connection for its blocking one) get
 * the two fixes failovers showed: a MULTI's scripts sent whole, since it cannot fall back from a script's SHA
 * after a failover emptied a node's scripts (transactions.ts); a cluster client that ends when
 * disconnected between connections (cluster-disconnect.ts).
 */
function survivingFailovers<R extends Redis>(redis: R): R {
  sendScriptsWholeInTransactions(redis);
  if (redis instanceof Cluster) endOnDisconnectWhileReconnecting(redis);
  const target = redis as unknown as { duplicate: (...args: unknown[]) => Redis };
  const duplicate = target.duplicate.bind(redis);
  target.duplicate = (...args: unknown[]) => survivingFailovers(duplicate(...args));
  return redis;
}

/** Resolves when the connection is ready, or rejects with a message that says what to do. */
export async function waitForRedis(redis: Redis, target: RedisTarget | string, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  const where = typeof target === 'string' ? target : describeTarget(target);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(redisUnreachable(where, 'timed out')));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      // A cluster reports node errors while it discovers the rest; only its own failure counts.
      if (redis instanceof Cluster && redis.status !== 'end' && redis.status !== 'close') return;
      cleanup();
      reject(new Error(redisUnreachable(where, error.message)));
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
    };
    redis.once('ready', onReady);
    redis.on('error', onError);
  });
}

export function redisUnreachable(url: string, reason: string): string {
  const safe = url.replace(/\/\/[^@/]*@/, '//***@');
  return `Redis is not reachable at ${safe} (${reason}) — start it (apt-get install redis-server), or set REDIS_URL (REDIS_CLUSTER_NODES for a cluster)`;
}
