// Daily discovery from Google's trending searches feed: new ideas become
// research runs, deduplicated and capped per UTC day, each carrying what the
// feed said (approximate traffic, news titles and sources) where ops and API
// clients see the run.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { startGoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { forgetGoogleCookies } from '../../src/providers/google/client.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { registry } from '../../src/observability/metrics.js';
import { routesFrom } from '../../src/providers/google/egress/routes.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/cli.js';

let t: TestApp;
let queue: Queue;

beforeAll(async () => {
  t = await createTestApp();
  queue = new Queue(QUEUES.research, { connection: createRedis(t.redis.url, 'worker'), prefix: t.redis.keys.queuePrefix(QUEUES.research) });
});
afterAll(async () => {
  await queue.close();
  await t.close();
});

describe('daily discovery', () => {
  it('starts research runs for new trending searches, deduplicated and capped per day, with the feed as their evidence', async () => {
    const gateway = new DirectTrendsGateway(new SyntheticTrendsProvider());
    const discover = discoverProcessor({
      db: t.database.db,
      stepQueue: new StepQueue(queue),
      trendsFor: () => gateway,
      provider: 'synthetic',
      geos: ['US', 'GB'],
      dailyCap: 12,
    });
    const first = await discover({} as never);
    expect(first.started).toHaveLength(12); // 10 from US, 2 from GB: the cap
    const runs = await t.database.db.selectFrom('research_runs').selectAll().orderBy('created_at').execute();
    expect(runs).toHaveLength(12);
    expect(new Set(runs.map((r) => r.source))).toEqual(new Set(['synthetic']));
    expect(new Set(runs.map((r) => r.started_by))).toEqual(new Set(['discovery']));
    expect(await queue.getJob(`${runs[0]!.id}-step-1`)).toBeDefined();
    // What the feed said about each search travels with its run.
    expect(runs.map((r) => r.discovery?.geo)).toEqual([...Array(10).fill('US'), 'GB', 'GB']);
    expect(runs[0]!.discovery).toMatchObject({
      source: 'google-trending-rss',
      query: runs[0]!.idea,
      approx_traffic: '1000+',
      news: [{ title: expect.stringContaining(runs[0]!.idea), source: 'Synthetic News' }],
    });

    const again = await discover({} as never);
    expect(again.started).toHaveLength(0); // the cap is per UTC day
    expect(await t.database.db.selectFrom('research_runs').select('id').execute()).toHaveLength(12);

    // A higher cap the same day: the ideas already started are skipped as duplicates.
    const more = discoverProcessor({
      db: t.database.db,
      stepQueue: new StepQueue(queue),
      trendsFor: () => gateway,
      provider: 'synthetic',
      geos: ['US', 'GB'],
      dailyCap: 30,
    });
    const third = await more({} as never);
    expect(third.skipped).toBeGreaterThanOrEqual(12);
    expect(third.started).toHaveLength(8);

    // Ops see it in `runs show`, API clients in the research run.
    const run = runs[0]!;
    const shown = await runCli(['runs', 'show', run.id], { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `discovered: trending in US, 1000+ searches; news: Why "${run.idea}" is trending (simulated) (Synthetic News)`,
    );
    const api = await t.app.inject({ url: `/api/research-runs/${run.id}`, headers: bearer(await t.key()) });
    expect(api.statusCode).toBe(200);
    expect(api.json().data.discovery).toEqual(run.discovery);
    // An operator's run has none.
    const mine = await startRun(t.database.db, new StepQueue(queue), {
      idea: 'Bicycle repair vans',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    expect((await t.app.inject({ url: `/api/research-runs/${mine.id}`, headers: bearer(await t.key()) })).json().data.discovery).toBeNull();
  }, 120_000);

  it("finishes when Google's RSS feed answers 500: the Trending Now RPC serves, and the runs say so", async () => {
    await t.database.db.deleteFrom('research_runs').execute();
    forgetGoogleCookies();
    const google = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0, brokenTrending: { rss: true } });
    try {
      const provider = new GoogleTrendsProvider({ ca: google.certificates.ca, timeoutMs: 10_000 });
      const [route] = routesFrom(google.proxies.map((p) => p.url));
      const live = new DirectTrendsGateway({ name: 'google', fetch: (request) => provider.fetch(request, route) });
      const discover = discoverProcessor({
        db: t.database.db,
        stepQueue: new StepQueue(queue),
        trendsFor: () => live,
        provider: 'google',
        geos: ['US'],
        dailyCap: 3,
      });
      const readsBefore =
        (await registry.getSingleMetric('discovery_trending_reads_total')!.get()).values.find(
          (v) => v.labels.road === 'rpc' && v.labels.provider === 'google',
        )?.value ?? 0;
      const result = await discover({} as never);
      expect(result.started).toHaveLength(3);
      expect(result.roads).toEqual({ US: 'rpc' });
      expect(google.google.counts.get('trending_rss')).toBe(1);
      expect(google.google.counts.get('trending_rpc')).toBe(1);
      const reads = (await registry.getSingleMetric('discovery_trending_reads_total')!.get()).values.find(
        (v) => v.labels.road === 'rpc' && v.labels.provider === 'google',
      )?.value;
      expect(reads).toBe(readsBefore + 1);

      const run = await t.database.db.selectFrom('research_runs').selectAll().orderBy('created_at').executeTakeFirstOrThrow();
      expect(run.discovery).toMatchObject({
        source: 'google-trending-rpc',
        geo: 'US',
        query: run.idea,
        passed_over: [{ road: 'rss', why: 'Google answered with an error' }],
      });
      const shown = await runCli(['runs', 'show', run.id], { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/discovered: trending in US, \d+K?\+ searches \(read from the Trending Now RPC, the RSS feed failing\)/);
      const api = await t.app.inject({ url: `/api/research-runs/${run.id}`, headers: bearer(await t.key()) });
      expect(api.statusCode).toBe(200);
      expect(api.json().data.discovery).toEqual(run.discovery);
    } finally {
      await google.stop();
    }
  }, 120_000);
});
