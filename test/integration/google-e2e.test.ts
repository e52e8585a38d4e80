// Research and discovery on live Google, end to end: the real worker process
// talks to the loopback Google (answering as Google does in late 2026) through
// two CONNECT proxies Google has seen before (the production path); the CLI
// waits for a run. Google's budget is 12 HTTPS requests a minute per address,
// embed pages at least 6 s apart, blocks answered as a 302 to /sorry, a 429
// page or a 403 with Retry-After, on a clock scaled down by GOOGLE_TIME_SCALE
// (default 10: a "minute" is 6 s; set it to 1 to run on Google's own clock).
// Then: a block waited out without a failed step and with at most one probe
// per cooldown; and a research run started during a long refresh goes ahead of
// it.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { newId } from '../../src/domain/ids.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { MODIFIER_FAMILY_NAMES } from '../../src/domain/research/modifier-evidence.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { TRENDS_PRIORITY } from '../../src/providers/gateway.js';
import { routesFrom } from '../../src/providers/google/egress/routes.js';
import { startDataForSeoOnLoopback } from '../../scripts/lib/dataforseo-on-loopback.js';
import { EgressPool } from '../../src/providers/google/egress/egress-pool.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';

const SCALE = Number(process.env.GOOGLE_TIME_SCALE ?? 10);
const MINUTE = 60_000 / SCALE;
let google: GoogleOnLoopback;
let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let env: Record<string, string>;
let client: string;
let clients: string[];

beforeAll(async () => {
  // As Google answered in late 2026: warm addresses (the default), 12 requests a minute, embed pages 6 s apart.
  google = await startGoogleOnLoopback({
    proxies: 2,
    requestsPerMinute: 12,
    windowMs: MINUTE,
    blockMs: 30 * MINUTE,
    embedMinGapMs: MINUTE / 10,
    embedPenaltyMs: 2 * MINUTE,
  });
  client = google.proxies[0]!.egressAddress;
  clients = google.proxies.map((p) => p.egressAddress);
  stack = await createTestStack();
  ({ database, redis } = stack);
  env = {
    ...stack.env,
    ...google.env,
    TRENDS_PROVIDER: 'google',
    // The shipped pace and embed gap, on the scaled clock: 10 a minute under Google's 12, embed pages 8 s apart.
    TRENDS_REQUESTS_PER_MINUTE: String(10 * SCALE),
    TRENDS_EMBED_GAP_MS: String(Math.round((8 * MINUTE) / 60)),
    TRENDS_COOLDOWN_MS: String(MINUTE),
    TRENDS_COOLDOWN_MAX_MS: String(6 * MINUTE),
    TRENDS_WAIT_MS: '1000',
    DISCOVERY_GEOS: 'US',
    DISCOVERY_DAILY_CAP: '1',
  };
});
afterAll(async () => {
  await stack?.close();
  await google.stop();
});

const stepsOf = async (runId: string) =>
  (
    await sql<{ n: number; failed: number }>`
    select count(*) filter (where status = 'done')::int as n, count(*) filter (where status = 'failed')::int as failed
    from research_steps where run_id = ${runId}`.execute(database.db)
  ).rows[0]!;
/** The environment with one egress route (the first proxy): the block and priority tests watch one address. */
const oneRoute = () => ({ ...env, TRENDS_PROXY_URLS: google.proxies[0]!.url });
const runsOf = () =>
  database.db.selectFrom('research_runs').select(['id', 'status', 'error', 'started_by', 'discovery', 'insight_id']).execute();
const pool = () =>
  new EgressPool(redis.redis, redis.keys.trendsPool, routesFrom(google.env.TRENDS_PROXY_URLS!.split(',').slice(0, 1)), {
    requestsPerMinute: 0,
    cooldownMs: 0,
    cooldownMaxMs: 0,
    refusedPauseMs: 0,
    requestTimeoutMs: 0,
  });

describe('research and discovery on (loopback) Google as it answers today', () => {
  it('finishes three research runs and a discovery run against warm addresses, 12 requests a minute, embed pages 6 s apart and blocks of all three kinds with Retry-After: the cookie from the home page before every API call, the related queries Google serves read, at most one probe per block, and one request of another family in all (which teaches the pool that blocks cover the address)', async () => {
    const worker = new ServiceProcess('worker', { ...env, TRENDS_PROXY_URLS: google.env.TRENDS_PROXY_URLS! });
    const connection = createRedis(redis.url, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const ingest = new Queue(QUEUES.ingest, { connection, prefix: redis.keys.queuePrefix(QUEUES.ingest) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    try {
      await worker.ready;
      const stepQueue = new StepQueue(research);
      await startRun(database.db, stepQueue, {
        idea: 'Sourdough starter subscription box',
        hints: [],
        provider: 'google',
        source: 'research',
      });
      await startRun(database.db, stepQueue, {
        idea: 'Standing desk rental for startups',
        hints: [],
        provider: 'google',
        source: 'research',
      });
      await enqueue(ingest, JOB.discover, {});
      // Google blocks each address in turn while the runs go on: a 302 to /sorry, then a 429 page, then a 403, each with Retry-After.
      const blocks = (async () => {
        const sent = () => google.google.dataRequests();
        const at = sent();
        for (const [i, answer] of (['sorry-302', 'too-many-429', 'unusual-403'] as const).entries()) {
          await until(
            async () => sent(),
            (n) => n >= at + 8 * (i + 1),
            240_000,
            `Google to have answered ${8 * (i + 1)} requests`,
          );
          google.google.blockFor(clients[i % 2]!, answer, 2 * MINUTE);
        }
      })();
      const done = await runCli(['research', 'Meal planning app for busy parents', '--wait', '--json'], env);
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ status: 'succeeded' });
      await blocks;

      const runs = await until(
        runsOf,
        (rows) => rows.length === 4 && rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
        400_000,
        'the four runs to finish',
      );
      expect(runs.map((r) => [r.status, r.error])).toEqual(runs.map(() => ['succeeded', null]));
      for (const run of runs) expect(await stepsOf(run.id)).toEqual({ n: 40, failed: 0 });
      const discovered = runs.find((r) => r.started_by === 'discovery')!;
      expect(discovered.discovery).toMatchObject({
        source: 'google-trending-rss',
        geo: 'US',
        approx_traffic: expect.stringMatching(/\+$/),
        news: expect.any(Array),
      });

      // Every research run read the related queries Google serves (the embed flow); topics are recorded empty.
      for (const run of runs) {
        const related = await database.db
          .selectFrom('research_steps')
          .select(['name', 'output', 'summary'])
          .where('run_id', '=', run.id)
          .where('step', 'in', [13, 15])
          .orderBy('step')
          .execute();
        expect(related[0]!.output, `${run.id} related queries`).toMatchObject({
          served: 'listed',
          provenance: { provider: 'google', via: 'embed' },
        });
        expect(related[1]!.summary).toMatch(/^empty: Google's embed flow served no list/);
      }
      const insights = await database.db.selectFrom('insights').select(['id', 'primary_keyword', 'dimension_scores']).execute();
      expect(insights).toHaveLength(4);
      for (const i of insights) {
        const scored = DIMENSIONS.filter((d) => typeof i.dimension_scores[d] === 'number');
        expect(scored.length, `scored: ${scored.join(', ')}`).toBeGreaterThanOrEqual(7);
      }
      // The shares of the phrase's searches the product reports are what Google's numbers imply: each
      // OR-group's true share of its phrase in the simulated world, within one rounding step and the sample's noise.
      let compared = 0;
      for (const run of runs) {
        const [signals] = await database.db
          .selectFrom('research_steps')
          .select('output')
          .where('run_id', '=', run.id)
          .where('name', '=', 'demand_breadth')
          .execute();
        const comparison = (
          signals!.output as {
            modifier_comparison: {
              keywords: string[];
              shares?: Record<string, { share: number; resolution: number; contradictory?: boolean }>;
            };
          }
        ).modifier_comparison;
        for (const [i, family] of MODIFIER_FAMILY_NAMES.entries()) {
          const reported = comparison.shares?.[family];
          if (!reported) continue;
          expect(reported.contradictory, `${family} of "${comparison.keywords[0]}"`).toBe(false);
          const truth = google.world.orGroupShare(comparison.keywords[0]!, comparison.keywords[i + 1]!);
          expect(
            Math.abs(reported.share - truth),
            `${family} of "${comparison.keywords[0]}": ${reported.share} against ${truth}`,
          ).toBeLessThanOrEqual(reported.resolution + 0.02);
          compared += 1;
        }
      }
      expect(compared).toBeGreaterThanOrEqual(9);

      const log = google.google.log.filter((r) => clients.includes(r.client));
      const api = log.filter((r) => ['explore', 'multiline', 'comparedgeo', 'relatedsearches', 'autocomplete'].includes(r.kind));
      // Each address warmed up on the home page first (the feed needs no cookie), and no API call or embed page went without the cookie.
      for (const c of clients) {
        const mine = log.filter((r) => r.client === c);
        expect(mine.findIndex((r) => r.kind === 'home')).toBeLessThan(
          mine.findIndex((r) => r.kind === 'explore' || r.kind === 'autocomplete' || r.kind === 'embed'),
        );
      }
      expect(api.length).toBeGreaterThan(40);
      expect(api.every((r) => r.cookie)).toBe(true);
      expect(log.filter((r) => r.kind === 'embed').every((r) => r.cookie)).toBe(true);
      expect(google.google.counts.get('no-cookie-429')).toBeUndefined();
      expect(google.google.counts.get('warm-page-429')).toBeUndefined();
      expect(log.every((r) => /Mozilla\/5\.0 .* Chrome\/\d+/.test(r.userAgent ?? ''))).toBe(true);
      expect(log.some((r) => r.kind === 'trending_rss' && r.status === 200)).toBe(true);
      // The blocks: all three kinds met; at most one request into each (Retry-After honoured, no cookie refresh, no resend).
      const met = clients.flatMap((c) => google.google.blocks(c));
      expect(met.map((b) => b.answer).sort()).toEqual(['sorry-302', 'too-many-429', 'unusual-403']);
      // This Google blocks an address whole. The pool learns it (egress-pool.blocked-2.lua) when a second endpoint family
      // meets a block while the first one cools down; until then a block may meet one request of another family beside its
      // probe. So: at most two requests into any block, and no more than one beyond a probe each in all (the lesson is learned
      // once for the pool, though which block teaches it depends on which family the jobs ask first).
      const into = (b: (typeof met)[number]) =>
        log
          .filter((r) => b.probes.includes(r.at))
          .map((r) => `${r.client} ${r.kind} ${r.status}`)
          .join(', ');
      for (const b of met) expect(b.probes.length, `requests into the ${b.answer} block: ${into(b)}`).toBeLessThanOrEqual(2);
      expect(met.filter((b) => b.probes.length === 2).length, 'blocks met by a request of another family').toBeLessThanOrEqual(1);
      const report = JSON.parse((await runCli(['budget', '--json'], env)).stdout) as {
        routes: Array<{ blocksByKind: Record<string, number>; embedRequests: number; userType: string | null }>;
      };
      const byKind = (k: string) => report.routes.reduce((n, r) => n + r.blocksByKind[k]!, 0);
      expect([byKind('sorry_302'), byKind('too_many_429'), byKind('forbidden_403')].every((n) => n >= 1)).toBe(true);
      expect(report.routes.reduce((n, r) => n + r.embedRequests, 0)).toBeGreaterThanOrEqual(8); // queries and topics, for each of the four runs
      expect(report.routes.map((r) => r.userType)).toEqual(['USER_TYPE_SCRAPER', 'USER_TYPE_SCRAPER']);
      // Embed pages of one address never came within Google's 6 s (scaled): none was over quota.
      expect(log.filter((r) => r.kind === 'embed' && r.overQuota)).toEqual([]);
      expect(await trends.getJobCounts('failed')).toEqual({ failed: 0 });
    } finally {
      await worker.kill('SIGTERM');
      await Promise.all([research.close(), ingest.close(), trends.close()]);
      connection.disconnect();
    }
  }, 600_000);

  it('waits out a block with no failed step, sending at most one probe per cooldown, and finishes the run once Google answers again', async () => {
    // Short cooldowns for this test, and a second between requests so a block is known before the next one goes.
    // Cooldowns longer than the job lock, as when the worker used to log "Missing lock for job trends-… moveJobFromActiveToWait";
    // the lock itself no shorter than 4 s, so a loaded test machine that starves the worker's loop for a
    // second or two does not lose a lock it renews every 2 s (which is an error, and not what this test is about).
    const errors: string[] = [];
    const worker = new ServiceProcess(
      'worker',
      { ...oneRoute(), TRENDS_REQUESTS_PER_MINUTE: '60', TRENDS_COOLDOWN_MS: '4500', TRENDS_COOLDOWN_MAX_MS: '18000', JOB_LOCK_MS: '4000' },
      { onLine: (line) => (/"level":(50|60)/.test(line) ? errors.push(line) : undefined) },
    );
    const connection = createRedis(redis.url, 'worker');
    const queue = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    try {
      await worker.ready;
      const asked = google.google.dataRequests();
      const run = await startRun(database.db, new StepQueue(queue), {
        idea: 'Electric bike subscription for commuters',
        hints: [],
        provider: 'google',
        source: 'research',
      });
      await until(
        async () => google.google.dataRequests(),
        (n) => n >= asked + 2,
        120_000,
        'the run to ask Google',
      );
      const blocksBefore = google.google.blocks(client).length;
      google.google.blockAll(true);
      // Three probes refused: three cooldowns over (4.5, 9 and 18 s), each ended by one request.
      await until(
        async () => google.google.blocks(client).at(-1)?.probes.length ?? 0,
        (n) => n >= 3,
        120_000,
        'three probes into the block',
      );
      // The run says why it waits: its trends job is waiting out the route's cooldown (or the probe's answer).
      await until(
        () =>
          database.db.selectFrom('research_runs').select(['status', 'waiting_reason']).where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'waiting' && /waiting for Google Trends .*(cooling down|probe)/.test(r.waiting_reason ?? ''),
        60_000,
        'the run to say it waits for a cooldown',
      );
      // What ops see meanwhile: the route's state and its requests in the last hour.
      const budget = await runCli(['budget', '--json'], oneRoute());
      expect(budget.code, budget.stderr).toBe(0);
      const report = JSON.parse(budget.stdout) as {
        routes: Array<{ state: string; requestsLastHour: number; blocked: number }>;
        requestsPerHourPerRoute: number;
      };
      expect(report.requestsPerHourPerRoute).toBe(10 * SCALE * 60);
      expect(['cooling', 'probing']).toContain(report.routes[0]!.state);
      expect(report.routes[0]!.requestsLastHour).toBeGreaterThan(0);
      expect(report.routes[0]!.blocked).toBeGreaterThanOrEqual(1);
      const shown = await runCli(['budget'], oneRoute());
      expect(shown.stdout).toMatch(/last hour[\s\S]*(cooling \d+ min \(block \d+ in a row\)|probing)/);
      google.google.blockAll(false);
      const finished = await until(
        () => database.db.selectFrom('research_runs').select(['status', 'error']).where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded' || r.status === 'failed',
        180_000,
        'the blocked run to finish',
      );
      expect(finished).toEqual({ status: 'succeeded', error: null });
      expect(await stepsOf(run.id)).toEqual({ n: 40, failed: 0 }); // nothing failed, nothing lost
      expect(await trends.getJobCounts('failed')).toEqual({ failed: 0 });

      const blocks = google.google.blocks(client).slice(blocksBefore);
      expect(blocks).toHaveLength(1);
      const { probes } = blocks[0]!;
      const [route] = await pool().budget();
      // Each cooldown ended with one request (the last one's was answered, after the block); never two in one.
      expect(probes.length).toBeLessThanOrEqual(route!.cooldowns);
      expect(route).toMatchObject({ state: 'open', streak: 0 });
      expect(route!.probes).toBe(route!.cooldowns);
      for (let i = 1; i < probes.length; i += 1) expect(probes[i]! - probes[i - 1]!).toBeGreaterThanOrEqual(0.9 * 4_500);
      expect(errors).toEqual([]); // waiting out a block is a normal state: nothing logged as an error
    } finally {
      google.google.blockAll(false);
      await worker.kill('SIGTERM');
      await Promise.all([queue.close(), trends.close()]);
      connection.disconnect();
    }
  }, 600_000);

  it('puts a research run ahead of a long refresh', async () => {
    google.google.blockAll(false);
    google.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
    // 200 insights of unknown popularity: 40 refresh requests of two HTTPS requests each; at 120 a minute, 40 s of Google.
    for (let i = 0; i < 200; i += 1) {
      await upsertInsight(database.db, {
        id: newId('insight'),
        idea_key: `refresh filler ${i}`,
        title: `Filler ${i}`,
        idea: `Filler ${i}`,
        primary_keyword: `filler phrase ${i}`,
        keywords: [`filler phrase ${i}`],
        category: 'computers-electronics',
        source: 'research',
        overall_score: 0.5,
        confidence: 0.5,
        dimensions: dimensionsWith(0.5),
        summary: 'fixture',
        status: 'active',
      });
    }
    // Steps wait for their answer (the default 20 s) rather than sleeping when it takes more than a second at this pace.
    const worker = new ServiceProcess('worker', { ...oneRoute(), TRENDS_REQUESTS_PER_MINUTE: '120', TRENDS_WAIT_MS: '20000' });
    const connection = createRedis(redis.url, 'worker');
    const ingest = new Queue(QUEUES.ingest, { connection, prefix: redis.keys.queuePrefix(QUEUES.ingest) });
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    const trends = new Queue(QUEUES.trends, { connection, prefix: redis.keys.queuePrefix(QUEUES.trends) });
    try {
      await worker.ready;
      await enqueue(ingest, JOB.refreshAll, {});
      const refreshGroups = () => ingest.getJobCounts('waiting', 'active', 'delayed', 'completed', 'prioritized');
      // The refresh is under way: its groups are queued and some trends jobs are waiting for the pace.
      await until(
        refreshGroups,
        (c) => (c.completed ?? 0) >= 2 && (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) >= 10,
        120_000,
        'the refresh to be under way',
      );
      const run = await startRun(database.db, new StepQueue(research), {
        idea: 'Vintage furniture restoration service',
        hints: [],
        provider: 'google',
        source: 'research',
      });
      await until(
        () => database.db.selectFrom('research_runs').select('status').where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded',
        180_000,
        'the run',
      );
      // Finished while much of the refresh still waited for Google: it went ahead, it did not queue behind.
      const refreshRequests = (await trends.getJobs(['waiting', 'prioritized', 'active', 'delayed', 'completed'], 0, 1000)).filter(
        (j) => j.opts.priority === TRENDS_PRIORITY.background,
      );
      const pending = await Promise.all(refreshRequests.map(async (j) => !(await j.isCompleted())));
      expect(pending.filter(Boolean).length).toBeGreaterThanOrEqual(10); // of 40

      const priorities = await trends.getJobs(['completed'], 0, 300);
      // Research requests (1-40, the further along the run the sooner) went ahead of the refresh's.
      expect(priorities.some((j) => j.opts.priority! <= 40)).toBe(true);
    } finally {
      await worker.kill('SIGTERM');
      await Promise.all([ingest.close(), research.close(), trends.close()]);
      connection.disconnect();
    }
  }, 300_000);

  it('with DataForSEO beside Google (TRENDS_PROVIDER=google,dataforseo): each step names the provider that answered, and the insight has monthly searches', async () => {
    const fake = await startDataForSeoOnLoopback();
    const worker = new ServiceProcess('worker', { ...oneRoute(), TRENDS_PROVIDER: 'google,dataforseo', ...fake.env });
    const connection = createRedis(redis.url, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    try {
      await worker.ready;
      const run = await startRun(database.db, new StepQueue(research), {
        idea: 'Language exchange app for travellers',
        hints: [],
        provider: 'google+dataforseo',
        source: 'research',
        geo: 'US',
      });
      const done = await until(
        () => database.db.selectFrom('research_runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded' || r.status === 'failed',
        240_000,
        'the run to finish',
      );
      expect(done.status, done.error ?? '').toBe('succeeded');
      const steps = await database.db.selectFrom('research_steps').select(['name', 'output']).where('run_id', '=', run.id).execute();
      const output = (name: string) => steps.find((s) => s.name === name)!.output as Record<string, any>;
      // Google first for what it answers; DataForSEO for what only it has.
      for (const name of [
        'autocomplete_phrases',
        'interest_90d',
        'interest_5y',
        'compare_anchor',
        'interest_by_country',
        'interest_by_city',
      ])
        if (output(name).provenance) expect(output(name).provenance.provider, name).toBe('google');
      expect(output('interest_90d').provenance.provider).toBe('google');
      expect(output('compare_anchor').volume).toMatchObject({
        outcome: 'served',
        location: { name: 'United States' },
        provenance: { provider: 'dataforseo' },
      });
      expect(fake.requests.map((r) => r.endpoint)).toEqual(['searchVolume']);
      const insight = await database.db.selectFrom('insights').selectAll().where('id', '=', done.insight_id!).executeTakeFirstOrThrow();
      expect(insight.search_volume).toMatchObject({ provider: 'dataforseo', location: 'United States' });
    } finally {
      await worker.kill('SIGTERM');
      await research.close();
      connection.disconnect();
      await fake.stop();
    }
  }, 300_000);
});
