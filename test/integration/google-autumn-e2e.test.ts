// Research on live Google as measured in autumn 2026, end to end: the real
// worker process talks to the loopback Google's autumn-2026 scenario
// (scripts/lib/google-on-loopback/autumn-2026.ts: a home page that only
// redirects, the cookie gate, a token-bucket limit without Retry-After, blocks
// per endpoint family, widget tokens signing their exact request, explore's
// related queries served while the embed flow stays over quota, all-zero series
// for unknown terms) through three CONNECT proxies, the third at an "EU"
// address answered with the consent page. Issue 51's first "Done when", less
// the trending feed (discovery's roads are another change's).
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { ResearchChain, startRun } from '../../src/research/chain.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

const SCALE = Number(process.env.GOOGLE_TIME_SCALE ?? 10);
const MINUTE = 60_000 / SCALE;
let google: GoogleOnLoopback;
let database: TestDatabase;
let redis: TestRedis;
let env: Record<string, string>;

beforeAll(async () => {
  google = await startGoogleOnLoopback({
    proxies: 3,
    // No per-minute budget of the August kind: the explore family's token bucket instead (90, 60–120 a minute).
    requestsPerMinute: 0,
    windowMs: MINUTE,
    scenario: 'autumn-2026',
    autumn: { burst: 90, refillPerMinute: [60, 120], familyBlockMs: 30 * MINUTE, latencyMs: 20 },
  });
  google.google.autumn!.options.euClients = [google.proxies[2]!.egressAddress];
  database = await createTestDatabase();
  redis = await createTestRedis();
  env = {
    ...database.env,
    ...google.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    TRENDS_PROVIDER: 'google',
    TRENDS_REQUESTS_PER_MINUTE: String(30 * SCALE),
    TRENDS_EMBED_GAP_MS: String(Math.round((8 * MINUTE) / 60)),
    TRENDS_COOLDOWN_MS: String(MINUTE),
    TRENDS_COOLDOWN_MAX_MS: String(6 * MINUTE),
    TRENDS_EMBED_COOLDOWN_MS: String(5 * MINUTE),
    TRENDS_WAIT_MS: '1000',
  };
});
afterAll(async () => {
  await redis.destroy();
  await database.destroy();
  await google.stop();
});

describe('research on (loopback) Google as measured in autumn 2026', () => {
  it("finishes three research runs with at least 7 of 8 dimensions, each reading related queries from explore's widget; one request in flight per route, no widget request edited once Google's first 401 is known, the EU route set aside after its first consent page", async () => {
    const worker = new ServiceProcess('worker', env);
    const connection = createRedis(redis.url, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    try {
      await worker.ready;
      const chain = new ResearchChain(research);
      for (const idea of ['Sourdough starter subscription box', 'Standing desk rental for startups', 'Meal planning app for busy parents'])
        await startRun(database.db, chain, { idea, hints: [], provider: 'google', source: 'research' });
      const runs = await until(
        () => database.db.selectFrom('research_runs').select(['id', 'status', 'error']).execute(),
        (rows) => rows.length === 3 && rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
        500_000,
        'the three runs to finish',
      );
      expect(runs.map((r) => [r.status, r.error])).toEqual(runs.map(() => ['succeeded', null]));
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
      expect(insights).toHaveLength(3);
      for (const i of insights) {
        const scored = DIMENSIONS.filter((d) => typeof i.dimension_scores[d] === 'number');
        expect(scored.length, `${i.primary_keyword} scored: ${scored.join(', ')}`).toBeGreaterThanOrEqual(7);
      }

      const autumn = google.google.autumn!;
      const [first, second, eu] = google.proxies.map((p) => p.egressAddress);
      // One request at a time on each route (the loopback counts what overlapped): no /sorry for parallel explores.
      for (const client of [first!, second!]) expect(autumn.maxInFlight.get(client), client).toBe(1);
      expect(google.google.counts.get('family-sorry-302')).toBeUndefined();
      // Edits of a widget's request: only those sent before Google's first 401 taught every route that it signs
      // them (a city map; at most one per route, when two routes' jobs send theirs at once), none after.
      const edited = autumn.editedWidgetRequests;
      expect(edited).toBeGreaterThanOrEqual(1);
      expect(edited).toBeLessThanOrEqual(2);
      const lastEdit = google.google.log.filter((r) => r.refusal === 'bad-token-401').at(-1)!.at;
      const cityMapsAfter = google.google.log.filter((r) => r.kind === 'comparedgeo' && r.at > lastEdit + 1_000);
      expect(cityMapsAfter.every((r) => r.status === 200)).toBe(true);
      // The EU route: its first answer was the consent page, and nothing more was sent through it.
      const euLog = google.google.log.filter((r) => r.client === eu);
      expect(euLog.map((r) => r.refusal)).toEqual(['consent-302']);
      // Home page or not, the cookie came: no API call was answered 429 for want of one more than once per route.
      expect(google.google.counts.get('no-cookie-429')).toBeUndefined();
      const report = JSON.parse((await runCli(['budget', '--json'], env)).stdout) as { routes: Array<{ route: string; state: string }> };
      expect(report.routes.map((r) => r.state)).toEqual(['open', 'open', 'consent']);
      expect(await trends.getJobCounts('failed')).toEqual({ failed: 0 });
    } finally {
      await worker.kill('SIGTERM');
      await Promise.all([research.close(), trends.close()]);
      connection.disconnect();
    }
  }, 600_000);
});
