// Research with the official Trends API as the only provider, against the loopback Trends API
// (OAuth through its token endpoint, long-running operations, quota, allow-list): all 40 steps,
// demand and reach read from searchInterest with no anchor term asked, the data points spent in `insights budget`; its
// quota running out is waited out, and a project not on the allow-list is a clear refusal.
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { providerGateways } from '../../src/providers/gateway-factory.js';
import type { ExploreAnswer, TrendsResponse } from '../../src/domain/trends/answers.js';
import { startDataForSeoOnLoopback } from '../../scripts/lib/dataforseo-on-loopback.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { STEP_COUNT } from '../../src/research/step-contract.js';
import { paidProviderReports } from '../../src/research/provider-spend.js';
import { planRefresh } from '../../src/refresh/plan.js';
import { TrendsApiProvider } from '../../src/providers/trends-api/provider.js';
import { trendsApi } from '../../src/providers/trends-api/profile.js';
import { publicFailure } from '../../src/domain/public-error.js';
import { DEFAULT_ANCHOR } from '../../src/providers/registry.js';
import {
  LOOPBACK_PROJECT,
  searchInterestOf,
  startTrendsApiOnLoopback,
  type TrendsApiOnLoopback,
} from '../../scripts/lib/trends-api-on-loopback/index.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { runCli } from '../support/cli.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let fake: TrendsApiOnLoopback;
let stepQueue: StepQueue;
const logged: string[] = [];

beforeAll(async () => {
  fake = await startTrendsApiOnLoopback();
  stack = await createTestStack({
    env: {
      TRENDS_PROVIDER: 'trends-api',
      ...fake.env,
      // A wait (quota, its side) is looked at again after 300 ms here (5 minutes by default).
      TRENDS_API_RETRY_MS: '300',
    },
    workers: true,
    logger: pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }),
  });
  ({ database, redis } = stack);
  stepQueue = new StepQueue(stack.pipeline!.queues.research);
});
afterAll(async () => {
  await stack?.close();
  await fake?.stop();
});
beforeEach(() => {
  fake.allowList = new Set([LOOPBACK_PROJECT]);
  fake.exhaustNext(0);
});

const runOf = (id: string) => database.db.selectFrom('research_runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const stepsOf = (id: string) => database.db.selectFrom('research_steps').selectAll().where('run_id', '=', id).orderBy('step').execute();
const finished = (id: string) =>
  until(
    () => runOf(id),
    (r) => r.status === 'succeeded' || r.status === 'failed',
    60_000,
    `run ${id} to finish`,
  );
const research = (idea: string, geo = 'US') =>
  startRun(database.db, stepQueue, { idea, hints: [], provider: 'trends-api', source: 'research', geo });
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('research with the Trends API alone', () => {
  it('completes all 40 steps, demand and reach from searchInterest, and `insights budget` shows the data points spent', async () => {
    const pointsBefore = fake.pointsServed;
    const run = await research('Meal planner for busy parents');
    const done = await finished(run.id);
    expect(done.status, done.error ?? '').toBe('succeeded');
    const steps = await stepsOf(run.id);
    expect(steps.filter((s) => s.status === 'done')).toHaveLength(STEP_COUNT);
    const byName = new Map(steps.map((s) => [s.name, s.output as Record<string, unknown>]));
    const insight = await database.db.selectFrom('insights').selectAll().where('id', '=', done.insight_id!).executeTakeFirstOrThrow();
    expect(Object.values(insight.dimensions).filter((d) => d.score !== null).length).toBeGreaterThanOrEqual(7);

    // Demand: the phrase's own 12-month mean searchInterest against the scale's reference level: no anchor term asked.
    const comparison = byName.get('compare_anchor') as {
      anchor: string | null;
      scale?: { values: string; reference: number };
      phraseMean: number;
      anchorMean: number;
      provenance: object;
    };
    expect(comparison.anchor).toBeNull();
    expect(comparison.scale).toEqual(trendsApi.comparableScale);
    expect(comparison.provenance).toMatchObject({ provider: 'trends-api', valuesFrom: 'searchInterest' });
    const { startDate, endDate } = new TrendsApiProvider({ ask: async () => ({}) }).timeRange('12m');
    const weeks: string[] = [];
    for (let t = Date.parse(startDate); t <= Date.parse(endDate); t += 7 * 86_400_000) weeks.push(new Date(t).toISOString().slice(0, 10));
    const primary = insight.primary_keyword;
    const level = mean(weeks.map((w) => searchInterestOf(primary, 'US', w)));
    const reference = trendsApi.comparableScale.reference;
    expect(Math.abs(comparison.phraseMean / comparison.anchorMean / (level / reference) - 1)).toBeLessThan(0.02);
    const demand = insight.dimensions.demand!;
    expect(demand.score).not.toBeNull();
    expect(demand.evidence).toMatchObject({ basis: 'searchInterest', scale: 'searchInterest', reference });
    expect(demand.evidence).not.toHaveProperty('anchor');
    expect(Math.abs((demand.evidence.phrase_level as number) / level - 1)).toBeLessThan(0.02);
    expect(demand.explanation).toMatch(/no anchor term/);
    // No term was asked beside another, and the anchor term of other providers' runs was never asked at all.
    const asked = fake.requests.filter((r) => r.method === 'POST').map((r) => r.body?.term);
    expect(asked.every((term) => typeof term === 'string')).toBe(true);
    expect(asked).not.toContain(DEFAULT_ANCHOR);
    expect(asked).toContain(primary);

    // Reach: the market's regions (ISO 3166-2) from the geo breakdown.
    const map = byName.get('interest_by_country') as { places: Array<{ code: string }>; compared_with: string | null; provenance: object };
    expect(map.provenance).toMatchObject({ provider: 'trends-api', valuesFrom: 'searchInterest' });
    expect(map.compared_with).toBeNull();
    expect(map.places.length).toBeGreaterThan(0);
    expect(map.places.every((p) => /^US-[A-Z]{2}$/.test(p.code))).toBe(true);
    expect(insight.dimensions.reach!.score).not.toBeNull();

    // What the Trends API does not answer is recorded as not available, never failed.
    expect(byName.get('interest_by_city')).toMatchObject({ unavailable: expect.stringContaining('interest by city') });
    expect(byName.get('related_queries_top')).toMatchObject({ served: 'not_available' });
    expect(byName.get('autocomplete_phrases')).toMatchObject({ unavailable: expect.stringContaining('topic autocomplete') });

    // `insights budget`: the data points the API answered, today and for the run.
    const spent = fake.pointsServed - pointsBefore;
    expect(spent).toBeGreaterThan(0);
    const [report] = await paidProviderReports(
      database.db,
      redis.redis,
      redis.keys,
      ['trends-api'],
      await planRefresh(database.db, 'trends-api'),
    );
    expect(report).toMatchObject({ provider: 'trends-api', unit: 'data points' });
    expect(report!.today.research.points).toBe(spent);
    expect(report!.perRun).toMatchObject({ runs: 1, medianPoints: spent });
    // As the operator reads it: `insights budget` prints the same data points.
    const budget = await runCli(['budget'], {
      ...database.env,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      TRENDS_PROVIDER: 'trends-api',
      ...fake.env,
    });
    expect(budget.code, budget.stderr).toBe(0);
    expect(budget.stdout).toMatch(/trends-api \(quota in data points\)/);
    expect(budget.stdout).toContain(`${spent} data points`);
  });

  it('its quota running out is waited out: the run finishes, no step failed, nothing lost', async () => {
    const before = fake.requests.length;
    fake.exhaustNext(3);
    const run = await research(`Bike repair subscription ${Math.random().toString(36).slice(2, 6)}`);
    const done = await finished(run.id);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(fake.requests.slice(before).filter((r) => r.status === 429)).toHaveLength(3);
    expect((await stepsOf(run.id)).filter((s) => s.error !== null)).toHaveLength(0);
  });

  it('a project not on the allow-list is a clear refusal that names the fix, and no data', async () => {
    fake.allowList = new Set();
    const run = await research(`Rooftop garden kits ${Math.random().toString(36).slice(2, 6)}`);
    const done = await finished(run.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/PERMISSION_DENIED/);
    expect(done.error).toMatch(/allow-list/);
    expect(done.error).toMatch(/TRENDS_API_PROJECT/);
    // Stored as a refusal of access, not as an unexpected error of ours (review of issue 51).
    expect(done.error).toMatch(/^\[notAllowed:trends-api\] /);
    expect(publicFailure(done.error!)).toBe("the Google Trends API refused this service's access (not allowed: an operator must fix it)");
    expect(done.insight_id).toBeNull();
  });

  it('combines with DataForSEO as other lists do: series and maps from the official API, related lists from DataForSEO', async () => {
    const dataforseo = await startDataForSeoOnLoopback();
    try {
      const config = loadConfig({ REDIS_PREFIX: redis.prefix, TRENDS_PROVIDER: 'trends-api,dataforseo', ...fake.env, ...dataforseo.env });
      expect(config.trends.provider).toBe('trends-api+dataforseo');
      const gateway = providerGateways({ config, logger: pino({ level: 'silent' }), redis: redis.redis, keys: redis.keys })(
        config.trends.provider,
      );
      const answer = (await gateway.fetch({
        kind: 'explore',
        keywords: ['kayak rental'],
        timeframe: '12m',
        geo: 'US',
        parts: ['series', 'relatedQueries', 'mapCountry'],
      })) as ExploreAnswer & TrendsResponse;
      expect(answer.series?.points.length).toBeGreaterThan(50);
      const providerOf = (part: object | undefined) => (part as TrendsResponse | undefined)?.provenance?.provider;
      expect(providerOf(answer.series)).toBe('trends-api');
      expect(providerOf(answer.mapCountry)).toBe('trends-api');
      expect(providerOf(answer.relatedQueries)).toBe('dataforseo');
      expect(
        dataforseo.requests.every(
          (r) => (r.body as Array<{ item_types?: string[] }>)[0]?.item_types?.join() === 'google_trends_queries_list',
        ),
      ).toBe(true);
    } finally {
      await dataforseo.stop();
    }
  });
});
