// A Redis that forgot its scripts (SCRIPT FLUSH; a promoted replica after a
// failover starts with none) while our client's socket still remembers sending
// them: scripts inside a MULTI must still run. ioredis falls back to EVAL on
// NOSCRIPT for a command on its own, not inside MULTI … EXEC, and BullMQ's
// flows add their jobs in one MULTI (src/redis/transactions.ts). A Redis of
// this file's own, since SCRIPT FLUSH empties the cache of every client of the server.
import { FlowProducer, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedis } from '../../scripts/lib/local-redis.js';
import { createRedis, waitForRedis, type Redis } from '../../src/redis/connection.js';
import { redisScript } from '../../src/redis/scripts.js';

const COUNT = redisScript(import.meta.url, '../fixtures/lua/scripts-test.count-n.lua').typed<[], number>();

describe('scripts in a MULTI after Redis forgot them', () => {
  let server: LocalRedis;
  const clients: Redis[] = [];
  const connect = async (role: 'client' | 'worker'): Promise<Redis> => {
    const redis = createRedis(server.url, role);
    clients.push(redis);
    await waitForRedis(redis, server.url);
    return redis;
  };

  beforeAll(async () => {
    server = await LocalRedis.create({ appendOnly: false });
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.destroy();
  });

  it.each(['client', 'worker'] as const)('our script queued in a MULTI runs again after SCRIPT FLUSH (%s connection)', async (role) => {
    const redis = await connect(role);
    const key = `{flush-${role}}:n`;
    const once = async () => {
      const steps = redis.multi();
      COUNT.queue(steps, [key], []);
      const answers = await steps.exec();
      return answers?.[0];
    };
    // Its socket has now sent the script: ioredis would send EVALSHA next.
    expect(await COUNT.run(redis, [key], [])).toBe(1);
    expect(await once()).toEqual([null, 1]);
    await redis.script('FLUSH');
    expect(await once()).toEqual([null, 1]);
    expect(await once()).toEqual([null, 1]);
    expect(await redis.get(key)).toBe('4');
  });

  it('a BullMQ flow (one MULTI of add-job scripts) is added after SCRIPT FLUSH', async () => {
    const redis = await connect('worker');
    const flows = new FlowProducer({ connection: redis, prefix: 'flush' });
    flows.on('error', () => {});
    const queue = new Queue('flush-q', { connection: redis, prefix: 'flush' });
    queue.on('error', () => {});
    const flow = (id: string) => ({
      name: 'parent',
      queueName: 'flush-q',
      opts: { jobId: `p-${id}` },
      children: [{ name: 'child', queueName: 'flush-q', opts: { jobId: `c-${id}` } }],
    });
    await flows.add(flow('1'));
    await redis.script('FLUSH');
    await flows.add(flow('2'));
    await flows.add(flow('3'));
    const states = await Promise.all(['p-2', 'c-2', 'p-3', 'c-3'].map((id) => queue.getJobState(id)));
    expect(states).toEqual(['waiting-children', 'waiting', 'waiting-children', 'waiting']);
    await flows.close();
    await queue.close();
  });
});
