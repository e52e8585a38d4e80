import type { Cluster, Redis as SingleRedis } from 'ioredis';

/**
 * A connection to one Redis server or to a Redis Cluster: every caller works with either. Its own file, below
 * connection.ts and scripts.ts, because each needs it and connection.ts registers scripts.ts's commands.
 */
export type Redis = SingleRedis | Cluster;
