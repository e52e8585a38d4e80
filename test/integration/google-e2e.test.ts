// Research on live Google, end to end: the real worker process talks to the
// loopback Google through a CONNECT proxy (the production path), the CLI
// waits for the run; Google blocking us halfway loses nothing; and a research
// run started during a long refresh goes ahead of it.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { newId } from '../../src/domain/ids.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { JOBS, QUEUES } from '../../src/queue/queues.js';
import { createRedis } from '../../src/redis/connection.js';
import { ResearchChain, startRun } from '../../src/research/chain.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let google: GoogleOnLoopback;
let database: TestDatabase;
let redis: TestRedis;
let env: Record<string, string>;

beforeAll(async () => {
  google = await startGoogleOnLoopback({ proxies: 1 });
  database = await createTestDatabase();
  redis = await createTestRedis();
  env = {
    ...database.env,
    ...google.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    TRENDS_PROVIDER: 'google',
    TRENDS_RATE_PER_MINUTE: '0',
    TRENDS_PAUSE_MS: '300',
    TRENDS_WAIT_MS: '1000',
  };
});
afterAll(async () => {
  await redis.destroy();
  await database.destroy();
  await google.stop();
});

const stepsOf = async (runId: string) =>
  (await sql<{ n: number; failed: number }>`
    select count(*) filter (where status = 'done')::int as n, count(*) filter (where status = 'failed')::int as failed
    from research_steps where run_id = ${runId}`.execute(database.db)).rows[0]!;

describe('research on (loopback) Google through the real HTTPS path', () => {
  it('completes all 40 steps, and rides out Google blocking every request halfway through a run', async () => {
    const worker = new ServiceProcess('worker', env);
    try {
      await worker.ready;
      const done = await runCli(['research', 'Meal planning app for busy parents', '--wait', '--json'], env);
      expect(done.code, done.stderr).toBe(0);
      const out = JSON.parse(done.stdout) as { run_id: string; status: string };
      expect(out.status).toBe('succeeded');
      expect((await stepsOf(out.run_id)).n).toBe(40);
      expect(google.google.counts.get('explore')).toBeGreaterThan(0);

      // Block every request once the next run has asked Google something, until several were refused.
      const asked = google.google.dataRequests();
      const queue = new Queue(QUEUES.research, { connection: createRedis(redis.url, 'worker'), prefix: redis.keys.queuePrefix(QUEUES.research) });
      const run = await startRun(database.db, new ResearchChain(queue), { idea: 'Sourdough starter subscription box', hints: [], provider: 'google', source: 'research' });
      await until(async () => google.google.dataRequests(), (n) => n >= asked + 2, 60_000, 'the run to ask Google');
      google.google.blockAll(true);
      const refusedBefore = (google.google.counts.get('sorry-302') ?? 0) + (google.google.counts.get('sorry-429') ?? 0);
      await until(
        async () => (google.google.counts.get('sorry-302') ?? 0) + (google.google.counts.get('sorry-429') ?? 0),
        (n) => n >= refusedBefore + 3,
        60_000,
        'three refused requests',
      );
      google.google.blockAll(false);
      const finished = await until(() => database.db.selectFrom('research_runs').select(['status', 'error']).where('id', '=', run.id).executeTakeFirstOrThrow(), (r) => r.status === 'succeeded' || r.status === 'failed', 120_000, 'the blocked run to finish');
      expect(finished).toEqual({ status: 'succeeded', error: null });
      expect(await stepsOf(run.id)).toEqual({ n: 40, failed: 0 }); // nothing failed, nothing lost
      await queue.close();
    } finally {
      await worker.kill('SIGTERM');
    }
  }, 300_000);

  it('puts a research run ahead of a long refresh', async () => {
    // 100 insights of unknown popularity: 20 refresh requests; at 30 requests a minute, 40 s of Google.
    for (let i = 0; i < 100; i += 1) {
      await upsertInsight(database.db, {
        id: newId('insight'), idea_key: `refresh filler ${i}`, title: `Filler ${i}`, idea: `Filler ${i}`, primary_keyword: `filler phrase ${i}`, keywords: [`filler phrase ${i}`],
        category: 'productivity', source: 'research', overall_score: 0.5, confidence: 0.5, dimensions: dimensionsWith(0.5), summary: 'fixture', status: 'active',
      });
    }
    const worker = new ServiceProcess('worker', { ...env, TRENDS_RATE_PER_MINUTE: '30' });
    const connection = createRedis(redis.url, 'worker');
    const ingest = new Queue(QUEUES.ingest, { connection, prefix: redis.keys.queuePrefix(QUEUES.ingest) });
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    try {
      await worker.ready;
      await ingest.add(JOBS.refreshAll, {}, { jobId: 'priority-refresh' });
      const refreshGroups = () => ingest.getJobCounts('waiting', 'active', 'delayed', 'completed', 'prioritized');
      // The refresh is under way: its groups are queued and some trends jobs are waiting for the rate.
      await until(refreshGroups, (c) => (c.completed ?? 0) >= 2 && (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) >= 10, 120_000, 'the refresh to be under way');
      const run = await startRun(database.db, new ResearchChain(research), { idea: 'Standing desk rental for startups', hints: [], provider: 'google', source: 'research' });
      await until(() => database.db.selectFrom('research_runs').select('status').where('id', '=', run.id).executeTakeFirstOrThrow(), (r) => r.status === 'succeeded', 180_000, 'the run');
      // Finished while most of the refresh still waits: it went ahead, it did not queue behind.
      const left = await refreshGroups();
      expect((left.waiting ?? 0) + (left.active ?? 0) + (left.delayed ?? 0) + (left.prioritized ?? 0)).toBeGreaterThanOrEqual(5);
      const priorities = await trends.getJobs(['completed'], 0, 200);
      expect(priorities.some((j) => j.opts.priority === 1) && priorities.some((j) => j.opts.priority === 10)).toBe(true);
    } finally {
      await worker.kill('SIGTERM');
      await Promise.all([ingest.close(), research.close(), trends.close()]);
      connection.disconnect();
    }
  }, 300_000);
});
