// The redis section: one server or a cluster, and the key prefix.
import { EnvReader } from './env-reader.js';

export interface RedisConfig {
  /** Unset means: Redis on 127.0.0.1:6379, else a redis-server started under dataDir. */
  readonly url: string | undefined;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES=host:port,…); replaces REDIS_URL. */
  readonly clusterNodes: ReadonlyArray<{ host: string; port: number }> | undefined;
  /** Prefix for every Redis key (queues, quotas, caches): a plain name; the Redis Cluster hash tags are added per key (redis/keys.ts). */
  readonly prefix: string;
}

export function loadRedisSection(read: EnvReader): RedisConfig {
  const clusterText = read.text('REDIS_CLUSTER_NODES');
  let clusterNodes: Array<{ host: string; port: number }> | undefined;
  if (clusterText !== undefined) {
    clusterNodes = [];
    for (const node of read.list('REDIS_CLUSTER_NODES')) {
      const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(node);
      if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535)
        read.check(false, `REDIS_CLUSTER_NODES: "${node}" is not host:port (e.g. 10.0.0.5:7000)`);
      else clusterNodes.push(Object.freeze({ host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) }));
    }
    read.check(read.list('REDIS_CLUSTER_NODES').length > 0, 'REDIS_CLUSTER_NODES is set but names no node (host:port,host:port)');
  }
  const section = {
    url: read.url('REDIS_URL', ['redis:', 'rediss:']),
    clusterNodes: clusterNodes && Object.freeze(clusterNodes),
    prefix: read.text('REDIS_PREFIX') ?? 'si',
  };
  read.check(
    section.url === undefined || section.clusterNodes === undefined,
    'REDIS_URL and REDIS_CLUSTER_NODES are both set: a cluster replaces REDIS_URL, set one of them',
  );
  read.check(
    /^[A-Za-z0-9_-]{1,32}$/.test(section.prefix),
    `REDIS_PREFIX must be 1–32 letters, digits, "-" or "_" (got "${section.prefix}"); the cluster hash tags are added per key (see src/redis/keys.ts)`,
  );
  return Object.freeze(section);
}
