// What a Redis failover or a restart without persistence can lose, and how it
// comes back: a job's place in its list (ensureEnqueued, the sweeper's way back),
// and the job schedulers themselves (every worker keeps them).
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEnqueued } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { until } from '../support/pipeline.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';
import { createTestStack } from '../support/stack.js';

let redis: TestRedis;
let queue: Queue;
// Only Redis for the file: the one test that needs a database and workers has a stack of its own.
beforeAll(async () => {
  redis = await createTestRedis();
  // The research queue of a prefix no worker serves: jobs stay where they are put.
  queue = new Queue(JOB.researchStep.queue, { connection: redis.redis.duplicate(), prefix: redis.keys.queuePrefix('orphans') });
});
afterAll(async () => {
  await queue.close();
  await redis.destroy();
});

describe('ensureEnqueued', () => {
  it('re-adds a job whose hash survived but whose place in the wait list was lost', async () => {
    expect(await ensureEnqueued(queue, JOB.researchStep, { runId: 'run_x', step: 7 })).toBe('added');
    // What an asynchronous replica can hold after a failover: the job's hash, not the list entry.
    await redis.redis.lrem(`${redis.keys.queuePrefix('orphans')}:${JOB.researchStep.queue}:wait`, 0, 'run_x-step-7');
    expect(await (await queue.getJob('run_x-step-7'))!.getState()).toBe('unknown');
    expect(await ensureEnqueued(queue, JOB.researchStep, { runId: 'run_x', step: 7 })).toBe('added');
    expect(await (await queue.getJob('run_x-step-7'))!.getState()).toBe('waiting');
  });

  it('leaves a waiting job alone and adds a missing one', async () => {
    expect(await ensureEnqueued(queue, JOB.researchStep, { runId: 'run_x', step: 7 })).toBe('present');
    expect(await ensureEnqueued(queue, JOB.researchStep, { runId: 'run_y', step: 1 })).toBe('added');
  });
});

describe('job schedulers', () => {
  it('come back after Redis loses them: every worker upserts them again', async () => {
    const stack = await createTestStack({
      env: { TRENDS_PROVIDER: 'synthetic' },
      workers: { keepSchedulers: true, schedulerKeepaliveMs: 200 },
    });
    const pipeline = stack.pipeline!;
    try {
      const names = async () =>
        (await Promise.all([pipeline.queues.maintenance.getJobSchedulers(), pipeline.queues.ingest.getJobSchedulers()]))
          .flat()
          .map((s) => s.key)
          .sort();
      expect(await names()).toEqual(['discover-daily', 'prune-daily', 'refresh-daily', 'relay-every-5s', 'sweep-every-15s']);
      // What a restart without persistence leaves: nothing.
      for (const key of ['sweep-every-15s', 'relay-every-5s', 'prune-daily']) await pipeline.queues.maintenance.removeJobScheduler(key);
      for (const key of ['refresh-daily', 'discover-daily']) await pipeline.queues.ingest.removeJobScheduler(key);
      await until(names, (n) => n.length === 5, 30_000, 'the schedulers to be upserted again');
      // Each scheduler's jobs are removed once they have run: before, a completed relay job
      // every 5 s stayed in Redis for good.
      for (const queue of [pipeline.queues.maintenance, pipeline.queues.ingest]) {
        for (const scheduler of await queue.getJobSchedulers()) {
          expect(scheduler.template?.opts, scheduler.key).toMatchObject({
            removeOnComplete: { age: 86_400, count: 100 },
            removeOnFail: { age: 604_800, count: 1_000 },
          });
        }
      }
    } finally {
      await stack.close();
    }
  });
});
