// A trends job waiting out a cooldown longer than its job lock is a normal
// state. It used to rate-limit the worker instead: BullMQ's loop then slept
// while a job it had already taken sat in `active` without its lock being
// renewed, and the worker logged "Missing lock for job trends-…
// moveJobFromActiveToWait" (or "Lock mismatch") at level error, the job taken
// twice. Here one job meets a route cooling for three times its lock: it must
// be asked once, answered once, with nothing logged as an error.
import { Writable } from 'node:stream';
import nock from 'nock';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { egressPoolFor } from '../../src/runtime/egress.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { recordedBody } from '../support/recorded.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { enqueue, enqueueWith } from '../../src/queue/enqueue.js';
import { TRENDS_PRIORITY, WaitingForTrendsError } from '../../src/providers/gateway.js';
import { QueuedTrendsGateway, redisTrendsWaiters } from '../../src/research/queued-gateway.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { jobIdOf } from '../../src/queue/enqueue.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { ResearchService } from '../../src/research/research-service.js';
import { createRun } from '../../src/research/run.repository.js';

const GOOGLE = 'https://trends.google.com';
const LOCK_MS = 1_000;
let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let pipeline: Pipeline;
const errors: string[] = [];

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  stack = await createTestStack({
    env: {
      TRENDS_PROVIDER: 'google',
      TRENDS_REQUESTS_PER_MINUTE: '0',
      TRENDS_COOLDOWN_MS: String(3 * LOCK_MS),
      TRENDS_COOLDOWN_MAX_MS: String(3 * LOCK_MS),
      JOB_LOCK_MS: String(LOCK_MS),
    },
  });
  ({ database, redis } = stack);
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) errors.push(line);
      done();
    },
  });
  // The only route cools down for three job locks (as after a block), before the job is even asked: so the
  // workers are started here, not by the stack.
  await egressPoolFor(stack.resources, stack.config).blocked({ name: 'direct' }, 'an earlier job');
  pipeline = await startTestWorkers(stack.resources, stack.config, pino({ level: 'warn' }, logs));
});
afterAll(async () => {
  await pipeline.close();
  nock.cleanAll();
  nock.enableNetConnect();
  await stack?.close();
});

describe('a trends job waiting out a cooldown longer than its lock', () => {
  it('is delayed, not left holding a lock it cannot renew: asked once when the cooldown ends, answered, nothing logged as an error', async () => {
    nock(GOOGLE).get('/trends/').reply(200, '<html>Google Trends</html>', { 'set-cookie': 'NID=511=waits; path=/; domain=.google.com' });
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .once()
      .reply(200, recordedBody('pytrends', 'test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const job = await enqueue(
      pipeline.queues.trends,
      JOB.trendsFetch,
      { request: { kind: 'autocomplete', term: 'pizza' }, provider: 'google' },
      new Date(),
    );
    const state = await until(
      () => job.getState(),
      (s) => s === 'completed' || s === 'failed',
      60_000,
      'the job to finish',
    );
    expect(state).toBe('completed');
    const done = await pipeline.queues.trends.getJob(job.id!);
    expect(done?.attemptsMade).toBe(1);
    expect(nock.isDone()).toBe(true); // asked once: a second ask would find no answer left
    expect(errors).toEqual([]);
  }, 90_000);

  it('a research step never holds its slot waiting for Google: it sleeps at once and the answer wakes it', async () => {
    const resources = stack.resources;
    const config = loadConfig({
      REDIS_PREFIX: redis.prefix,
      TRENDS_PROVIDER: 'google',
      TRENDS_COOLDOWN_MS: String(3 * LOCK_MS),
      TRENDS_COOLDOWN_MAX_MS: String(3 * LOCK_MS),
    });
    await egressPoolFor(resources, config).blocked({ name: 'direct' }, 'an earlier job');
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pasta')
      .query(true)
      .once()
      .reply(200, recordedBody('pytrends', 'test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    // The step that asks, asleep for an hour unless something wakes it.
    const step = await enqueueWith(pipeline.queues.research, JOB.researchStep, { delay: 3_600_000 }, { runId: 'run_asleep', step: 3 });
    const gateway = new QueuedTrendsGateway(
      pipeline.queues.trends,
      undefined as never, // a waiter never waits, so it needs no events
      'google',
      20_000,
      TRENDS_PRIORITY.research,
      redisTrendsWaiters(redis.redis, redis.keys.trendsWaiters),
    );
    const asked = gateway.fetch({ kind: 'autocomplete', term: 'pasta' }, { waiter: { queue: JOB.researchStep.queue, jobId: step.id! } });
    // Before, the step waited here up to TRENDS_WAIT_MS (20 s) holding its worker slot, and got the answer.
    await expect(asked).rejects.toBeInstanceOf(WaitingForTrendsError);
    expect(await step.getState()).toBe('delayed');
    // The answer comes once the route's cooldown ends, and wakes the step (it then finds no such run and fails: not the point here).
    const woken = await until(
      () => step.getState(),
      (s) => s !== 'delayed',
      30_000,
      'the step to be woken by the answer',
    );
    expect(woken).not.toBe('delayed');
    // Asked again, the answer is there.
    expect(await gateway.fetch({ kind: 'autocomplete', term: 'pasta' }, { waiter: { queue: 'research', jobId: step.id! } })).toMatchObject({
      kind: 'autocomplete',
    });
    expect(errors).toEqual([]);
  }, 90_000);

  it('drops a request every run waiting for it cancelled: Google is never asked, and a later run asking the same is not failed by it', async () => {
    const resources = stack.resources;
    const config = loadConfig({
      REDIS_PREFIX: redis.prefix,
      TRENDS_PROVIDER: 'google',
      TRENDS_COOLDOWN_MS: String(3 * LOCK_MS),
      TRENDS_COOLDOWN_MAX_MS: String(3 * LOCK_MS),
    });
    await egressPoolFor(resources, config).blocked({ name: 'direct' }, 'an earlier job');
    const asked: string[] = [];
    nock(GOOGLE)
      .get('/trends/api/autocomplete/lasagna')
      .query(true)
      .reply(200, () => {
        asked.push('lasagna');
        return recordedBody('pytrends', 'test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/);
      });
    const { accountId } = await createApiKey(database.db, 'cancelling', 'pro', null, ['insights:read', 'research:write']);
    const run = await createRun(database.db, {
      idea: 'Lasagna by the slice',
      ideaKey: 'lasagna by the slice',
      hints: [],
      provider: 'google',
      source: 'research',
      startedBy: 'api',
      accountId,
    });
    const step = await enqueueWith(pipeline.queues.research, JOB.researchStep, { delay: 3_600_000 }, { runId: run.id, step: 3 });
    const gateway = new QueuedTrendsGateway(
      pipeline.queues.trends,
      undefined as never,
      'google',
      20_000,
      TRENDS_PRIORITY.research,
      redisTrendsWaiters(redis.redis, redis.keys.trendsWaiters),
    );
    await expect(
      gateway.fetch({ kind: 'autocomplete', term: 'lasagna' }, { waiter: { queue: JOB.researchStep.queue, jobId: step.id! } }),
    ).rejects.toBeInstanceOf(WaitingForTrendsError);
    // Cancelled while its request waits out the route's cooldown.
    const service = new ResearchService(database.db, new StepQueue(pipeline.queues.research), {
      provider: 'google',
      defaultGeo: '',
      allowance: { free: 3, starter: 20, pro: 100, enterprise: 500 },
      reuseDays: 7,
      google: { requestsPerMinute: 0, routes: 1, requestPlan: 'batched' },
    });
    expect((await service.cancel(accountId, run.id))?.status).toBe('cancelled');
    const trendsJobId = jobIdOf(JOB.trendsFetch, { request: { kind: 'autocomplete', term: 'lasagna' }, provider: 'google' }, new Date())!;
    const ended = await until(
      async () => pipeline.queues.trends.getJob(trendsJobId),
      (job) => job !== undefined && job.finishedOn !== undefined,
      30_000,
      'the trends job to end',
    );
    expect(ended!.failedReason).toMatch(/nobody waits for it any more/);
    expect(asked).toEqual([]);
    // Nobody is told it failed: a run asking the same later gets it asked, not the cancelled run's failure.
    expect(await redis.redis.exists(`${redis.keys.trendsWaiters(trendsJobId)}:failed`)).toBe(0);
    const later = await enqueueWith(pipeline.queues.research, JOB.researchStep, { delay: 3_600_000 }, { runId: 'run_later', step: 3 });
    await expect(
      gateway.fetch({ kind: 'autocomplete', term: 'lasagna' }, { waiter: { queue: JOB.researchStep.queue, jobId: later.id! } }),
    ).rejects.toBeInstanceOf(WaitingForTrendsError);
    await until(
      async () => (await pipeline.queues.trends.getJob(trendsJobId))?.getState(),
      (state) => state === 'completed',
      30_000,
      'the request asked again for the later run',
    );
    expect(asked).toEqual(['lasagna']);
    nock.cleanAll();
  }, 90_000);
});
