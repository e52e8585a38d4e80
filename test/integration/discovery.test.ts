import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { QUEUES } from '../../src/queue/queues.js';
import { createRedis } from '../../src/redis/connection.js';
import { ResearchChain } from '../../src/research/chain.js';
import { DirectTrendsGateway } from '../../src/research/trends-gateway.js';
import { SyntheticTrendsProvider } from '../../src/trends/synthetic.provider.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let database: TestDatabase;
let redis: TestRedis;
let queue: Queue;

beforeAll(async () => {
  database = await createTestDatabase();
  redis = await createTestRedis();
  queue = new Queue(QUEUES.research, { connection: createRedis(redis.url, 'worker'), prefix: redis.keys.queuePrefix(QUEUES.research) });
});
afterAll(async () => {
  await queue.close();
  await redis.destroy();
  await database.destroy();
});

describe('daily discovery', () => {
  it('starts research runs for new daily-trend ideas, deduplicated and capped per day', async () => {
    const gateway = new DirectTrendsGateway(new SyntheticTrendsProvider());
    const discover = discoverProcessor({ db: database.db, chain: new ResearchChain(queue), trendsFor: () => gateway, provider: 'synthetic', geos: ['US', 'GB'], dailyCap: 12 });
    const first = await discover({} as never);
    expect(first.started).toHaveLength(12); // 10 from US, 2 from GB: the cap
    const runs = await database.db.selectFrom('research_runs').selectAll().execute();
    expect(runs).toHaveLength(12);
    expect(new Set(runs.map((r) => r.source))).toEqual(new Set(['synthetic']));
    expect(await queue.getJob(`${runs[0]!.id}-step-1`)).toBeDefined();

    const again = await discover({} as never);
    expect(again.started).toHaveLength(0); // the cap is per UTC day
    expect(await database.db.selectFrom('research_runs').select('id').execute()).toHaveLength(12);

    // A higher cap the same day: the ideas already started are skipped as duplicates.
    const more = discoverProcessor({ db: database.db, chain: new ResearchChain(queue), trendsFor: () => gateway, provider: 'synthetic', geos: ['US', 'GB'], dailyCap: 30 });
    const third = await more({} as never);
    expect(third.skipped).toBeGreaterThanOrEqual(12);
    expect(third.started).toHaveLength(8);
  });
});
