// Research on live Google as measured in autumn 2026, end to end: the real
// worker process talks to the loopback Google's autumn-2026 scenario
// (scripts/lib/google-on-loopback/autumn-2026.ts: a home page that only
// redirects, the cookie gate, a token-bucket limit without Retry-After, blocks
// per endpoint family, widget tokens signing their exact request, explore's
// related queries served while the embed flow stays over quota, all-zero series
// for unknown terms, the RSS feed answering 500) through three CONNECT
// proxies, the third at an "EU" address answered with the consent page.
// Issue 51's first "Done when": three research runs and a discovery run.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const SCALE = Number(process.env.GOOGLE_TIME_SCALE ?? 10);
const MINUTE = 60_000 / SCALE;
let google: GoogleOnLoopback;
let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let env: Record<string, string>;

beforeAll(async () => {
  google = await startGoogleOnLoopback({
    proxies: 3,
    // No per-minute budget of the August kind: the explore family's token bucket instead, refilled at 60–120 a
    // minute as measured; its burst and refill far smaller than the 90 and 60–120 measured (and than ours), so that
    // four runs meet it: with a burst of 12 at the measured refill, research never did (2026-11-29, outside review).
    requestsPerMinute: 0,
    windowMs: MINUTE,
    scenario: 'autumn-2026',
    autumn: { burst: 2, refillPerMinute: [10, 12], familyBlockMs: 30 * MINUTE, latencyMs: 20 },
    // The RSS feed broken (an actor's changelog, 2026-11-10): discovery reads the Trending Now RPC.
    brokenTrending: { rss: true },
  });
  google.google.autumn!.options.euClients = [google.proxies[2]!.egressAddress];
  stack = await createTestStack();
  ({ database, redis } = stack);
  env = {
    ...stack.env,
    ...google.env,
    TRENDS_PROVIDER: 'google',
    // Faster than Google's explore refill, so the bucket (ours 90, Google's 12) is what holds explore back.
    TRENDS_REQUESTS_PER_MINUTE: String(200 * SCALE),
    TRENDS_EXPLORE_REFILL_PER_MINUTE: String(60 * SCALE),
    TRENDS_EMBED_GAP_MS: String(Math.round((8 * MINUTE) / 60)),
    TRENDS_COOLDOWN_MS: String(MINUTE),
    TRENDS_COOLDOWN_MAX_MS: String(6 * MINUTE),
    TRENDS_EMBED_COOLDOWN_MS: String(5 * MINUTE),
    TRENDS_WAIT_MS: '1000',
    DISCOVERY_GEOS: 'US',
    DISCOVERY_DAILY_CAP: '1',
  };
});
afterAll(async () => {
  await stack?.close();
  await google.stop();
});

describe('research on (loopback) Google as measured in autumn 2026', () => {
  it("finishes three research runs and discovery with at least 7 of 8 dimensions, each reading related queries from explore's widget; one request in flight per route, the explore bucket learned from Google's 429s, a blocked family leaving the others open, no widget request edited, the EU route set aside after its first consent page", async () => {
    const worker = new ServiceProcess('worker', env);
    const connection = createRedis(redis.url, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    const ingest = new Queue(QUEUES.ingest, { connection, prefix: redis.keys.queuePrefix(QUEUES.ingest) });
    const autumn = google.google.autumn!;
    const [first, second, eu] = google.proxies.map((p) => p.egressAddress);
    try {
      await worker.ready;
      // The first route's autocomplete family is blocked for a while (a /sorry redirect): its explore family is not.
      autumn.blockFamily(first!, 'autocomplete', 20 * MINUTE);
      const stepQueue = new StepQueue(research);
      for (const idea of ['Sourdough starter subscription box', 'Standing desk rental for startups', 'Meal planning app for busy parents'])
        await startRun(database.db, stepQueue, { idea, hints: [], provider: 'google', source: 'research' });
      await enqueue(ingest, JOB.discover, {});
      const runs = await until(
        () => database.db.selectFrom('research_runs').select(['id', 'status', 'error', 'started_by', 'discovery']).execute(),
        (rows) => rows.length === 4 && rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
        500_000,
        'the three runs and the discovered one to finish',
      );
      expect(runs.map((r) => [r.status, r.error])).toEqual(runs.map(() => ['succeeded', null]));
      // Discovery read the Trending Now RPC, the feed answering 500.
      expect(runs.find((r) => r.started_by === 'discovery')?.discovery).toMatchObject({ source: 'google-trending-rpc', geo: 'US' });
      for (const run of runs) {
        const steps = (
          await sql<{ n: number; failed: number }>`
          select count(*) filter (where status = 'done')::int as n, count(*) filter (where status = 'failed')::int as failed
          from research_steps where run_id = ${run.id}`.execute(database.db)
        ).rows[0]!;
        expect(steps).toEqual({ n: 40, failed: 0 });
        const [related] = await database.db
          .selectFrom('research_steps')
          .select(['output'])
          .where('run_id', '=', run.id)
          .where('step', '=', 13)
          .execute();
        expect(related!.output, `${run.id} related queries`).toMatchObject({
          served: 'listed',
          provenance: { provider: 'google', via: 'explore' },
        });
      }
      const insights = await database.db.selectFrom('insights').select(['primary_keyword', 'dimension_scores']).execute();
      expect(insights).toHaveLength(4);
      for (const i of insights) {
        const scored = DIMENSIONS.filter((d) => typeof i.dimension_scores[d] === 'number');
        expect(scored.length, `${i.primary_keyword} scored: ${scored.join(', ')}`).toBeGreaterThanOrEqual(7);
      }

      // One request at a time on each route (the loopback counts what overlapped): no /sorry for parallel explores.
      for (const client of [first!, second!]) expect(autumn.maxInFlight.get(client), client).toBe(1);
      expect(autumn.familyBlocked.get('explore')).toBeUndefined();
      // No widget request edited (the loopback compares each with the request its token signed).
      expect(autumn.editedWidgetRequests).toBe(0);
      expect(google.google.log.filter((r) => r.status === 401)).toEqual([]);
      // Google's explore bucket answers plain 429s when dry (no Retry-After, no new cookie); each the routes met was
      // read as the rate limit and learned from (below), never as a block of the explore family.
      const rateLimited = google.google.log.filter((r) => r.refusal === 'rate-limit-429');
      expect(rateLimited.length).toBeGreaterThan(0);
      // The blocked autocomplete family of the first route: Google answered it /sorry, and the route's explore went on after.
      const firstLog = google.google.log.filter((r) => r.client === first);
      const blockedAt = firstLog.find((r) => r.kind === 'autocomplete' && r.refusal === 'family-sorry-302')?.at;
      expect(blockedAt).toBeDefined();
      expect(firstLog.some((r) => r.kind === 'explore' && r.status === 200 && r.at > blockedAt!)).toBe(true);
      // After the first /sorry, the route sent no autocomplete request into the block until its cooldown ended.
      const intoBlock = firstLog.filter((r) => r.kind === 'autocomplete' && r.at > blockedAt! && r.at < blockedAt! + MINUTE * 0.9);
      expect(intoBlock).toEqual([]);
      // The EU route: its first answer was the consent page, and nothing more was sent through it.
      const euLog = google.google.log.filter((r) => r.client === eu);
      expect(euLog.map((r) => r.refusal)).toEqual(['consent-302']);
      // Home page or not, the cookie came: no API call was answered 429 for want of one more than once per route.
      expect(google.google.counts.get('no-cookie-429')).toBeUndefined();
      const report = JSON.parse((await runCli(['budget', '--json'], env)).stdout) as {
        routes: Array<{ route: string; state: string; exploreBucket: { rateLimits: number }; families: Record<string, { state: string }> }>;
      };
      expect(report.routes[2]!.state).toBe('consent');
      // The routes learned from Google's 429s, each learned limit from one or more of them: a first plain 429 on a route
      // warmed from a page is taken for the cookie gate (a fresh cookie page, then the request again), and the learned
      // refill's wait can still fall short of Google's. On 2026-11-29: 21 of Google's 429s, 6 limits learned (about 3.5
      // a limit; not yet the one or two it should cost).
      const learned = report.routes.reduce((n, r) => n + r.exploreBucket.rateLimits, 0);
      expect(learned).toBeGreaterThan(0);
      expect(learned).toBeLessThanOrEqual(rateLimited.length);
      for (const route of report.routes.slice(0, 2)) expect(route.families.explore?.state, route.route).toBe('open');
      expect(await trends.getJobCounts('failed')).toEqual({ failed: 0 });
    } finally {
      await worker.kill('SIGTERM');
      await Promise.all([research.close(), trends.close(), ingest.close()]);
      connection.disconnect();
    }
  }, 600_000);
});
