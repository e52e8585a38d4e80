// A search discovery found in Google's trending searches is a search already:
// the run it starts researches that search as it is ("ai receptionist"), never
// a phrase re-derived from its words ("receptionist", with "AI" dropped as a
// word that names how a product is built). The real workers run the run.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { findRun, stepsOf } from '../../src/research/run.repository.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import type { TrendsProvider } from '../../src/providers/contract.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let queue: Queue;

beforeAll(async () => {
  stack = await createTestStack({ env: { TRENDS_PROVIDER: 'synthetic', TRENDS_GEO: 'US' }, workers: true });
  queue = new Queue(QUEUES.research, {
    connection: createRedis(stack.redis.url, 'worker'),
    prefix: stack.redis.keys.queuePrefix(QUEUES.research),
  });
});
afterAll(async () => {
  await queue?.close();
  await stack?.close();
});

describe('a discovered run', () => {
  it('researches the trending search itself as its primary phrase', async () => {
    // Today's feed lists one search, as Google's would.
    const synthetic = new SyntheticTrendsProvider();
    const feed: TrendsProvider = {
      name: 'synthetic',
      fetch: async (request) =>
        request.kind === 'trendingFeed'
          ? {
              kind: 'trendingFeed',
              provenance: { provider: 'synthetic' },
              items: [{ query: 'AI receptionist', approxTraffic: '2000+', published: null, news: [] }],
            }
          : synthetic.fetch(request),
    };
    const gateway = new DirectTrendsGateway(feed);
    const discover = discoverProcessor({
      db: stack.database.db,
      stepQueue: new StepQueue(queue),
      trendsFor: () => gateway,
      provider: 'synthetic',
      geos: ['US'],
      dailyCap: 5,
    });
    const result = await discover({} as never);
    expect(result.started).toEqual(['AI receptionist']);
    const run = (await stack.database.db.selectFrom('research_runs').select('id').executeTakeFirstOrThrow()).id;
    const finished = await until(
      () => findRun(stack.database.db, run),
      (r) => r?.status === 'succeeded' || r?.status === 'failed',
      120_000,
      'the discovered run to end',
    );
    expect(finished!.error).toBeNull();
    const steps = new Map((await stepsOf(stack.database.db, run)).map((s) => [s.step, s]));
    const extracted = steps.get(2)!.output as { phrases: string[] };
    const chosen = steps.get(4)!.output as { primary: string; reason: string; measured: unknown };
    expect(extracted.phrases[0]).toBe('ai receptionist');
    expect(chosen.primary).toBe('ai receptionist');
    expect(chosen.reason).toMatch(/trending search/);
    // Nothing was measured to choose it: the search is the phrase.
    expect(chosen.measured).toBeNull();
  }, 180_000);
});
