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
import { startWorkers, type Pipeline } from '../../src/runtime/workers.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { recordedBody } from '../support/recorded.js';
import { createTestRedis, testResources, type TestRedis } from '../support/redis.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';

const GOOGLE = 'https://trends.google.com';
const LOCK_MS = 1_000;
let database: TestDatabase;
let redis: TestRedis;
let pipeline: Pipeline;
const errors: string[] = [];

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  database = await createTestDatabase();
  redis = await createTestRedis();
  const config = {
    ...loadConfig({ REDIS_PREFIX: redis.prefix, TRENDS_PROVIDER: 'google' }),
    trendsRequestsPerMinute: 0,
    trendsCooldownMs: 3 * LOCK_MS,
    trendsCooldownMaxMs: 3 * LOCK_MS,
    jobLockMs: LOCK_MS,
  };
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) errors.push(line);
      done();
    },
  });
  const resources = testResources(database, redis);
  // The only route cools down for three job locks (as after a block), before the job is even asked.
  await egressPoolFor(resources, config).blocked({ name: 'direct' }, 'an earlier job');
  pipeline = await startWorkers(resources, config, pino({ level: 'warn' }, logs));
});
afterAll(async () => {
  await pipeline.close();
  nock.cleanAll();
  nock.enableNetConnect();
  await redis.destroy();
  await database.destroy();
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
});
