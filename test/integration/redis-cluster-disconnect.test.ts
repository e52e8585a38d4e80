// A Redis Cluster client disconnected after it lost every node's connection,
// while it waits to reconnect, must still end: BullMQ's Worker.close() awaits
// the 'end' of its blocking connection (a duplicate of the worker's), and in
// the cluster chaos soak a worker sent SIGTERM then never closed
// (src/redis/cluster-disconnect.ts). Its own 3-master cluster: CLIENT KILL
// reaches every client of the servers.
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalRedisCluster } from '../../scripts/lib/local-redis-cluster.js';
import { createRedis, waitForRedis, type RedisTarget } from '../../src/redis/connection.js';

describe('a cluster client disconnected while it reconnects', () => {
  let cluster: LocalRedisCluster;
  let target: RedisTarget;
  beforeAll(async () => {
    cluster = await LocalRedisCluster.start(3, 0);
    target = { cluster: cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })) };
  }, 120_000);
  afterAll(async () => cluster?.stop());

  /** Every node's connections killed: the client's pool is empty and it waits to reconnect. */
  async function lostEveryNode(redis: Cluster): Promise<void> {
    const reconnecting = new Promise<void>((resolve) => redis.once('reconnecting', () => resolve()));
    for (const n of cluster.nodes) await cluster.command(n.port, 'CLIENT', 'KILL', 'TYPE', 'normal');
    await reconnecting;
  }

  async function endsOnDisconnect(redis: Cluster): Promise<string> {
    const ended = new Promise<string>((resolve) => redis.once('end', () => resolve('end')));
    const stuck = new Promise<string>((resolve) => setTimeout(() => resolve(`still ${redis.status} after 5 s`), 5_000).unref());
    redis.disconnect();
    return Promise.race([ended, stuck]);
  }

  it.each(['client', 'duplicate'] as const)(
    'ends (%s, as BullMQ duplicates it for a worker)',
    async (which) => {
      const made = createRedis(target, 'worker') as Cluster;
      const redis = which === 'client' ? made : made.duplicate();
      await waitForRedis(redis, target, 20_000);
      await redis.set(`{disconnect}:${which}`, '1');
      await lostEveryNode(redis);
      expect(redis.status).toBe('reconnecting');
      expect(await endsOnDisconnect(redis)).toBe('end');
      expect(redis.status).toBe('end');
      made.disconnect();
    },
    60_000,
  );

  it('is not ended when it connects again at once (how BullMQ recovers a blocking cluster client with no nodes)', async () => {
    const redis = createRedis(target, 'worker') as Cluster;
    await waitForRedis(redis, target, 20_000);
    await lostEveryNode(redis);
    const ended = vi.fn();
    redis.on('end', ended);
    redis.disconnect(false);
    await redis.connect();
    expect(await redis.set('{disconnect}:again', '2')).toBe('OK');
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.status).toBe('ready');
    expect(ended).not.toHaveBeenCalled();
    redis.disconnect();
  }, 60_000);
});
